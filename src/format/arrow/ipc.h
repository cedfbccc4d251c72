// Arrow IPC streams (the Apache Arrow columnar format's streaming format: a schema message,
// record batches, an end-of-stream marker), written from and read into Tributary rows. The hot
// tier of `tributary serve` keeps its log entries so ('table.log.format' = 'ARROW', as Fluss's
// logs are); docs/format/arrow.md maps the types.
//
// Types written: BOOLEAN Bool; TINYINT..BIGINT Int(8..64, signed); FLOAT, DOUBLE FloatingPoint;
// DECIMAL Decimal(p, s, 128); CHAR, VARCHAR Utf8; BINARY, VARBINARY Binary; DATE Date(DAY);
// TIME Time(MILLISECOND, 32); TIMESTAMP(p) Timestamp(MILLISECOND | MICROSECOND | NANOSECOND for
// p <= 3, 6, 9; a TIMESTAMP(7..9) column holding a value outside the years 1677..2262 as a
// struct of milliseconds and nanoseconds); TIMESTAMP_LTZ the same with time zone "UTC"; ARRAY
// List; MAP and MULTISET Map (a multiset's values are its counts); ROW Struct_. Each field
// carries its Paimon field id ("tributary.field-id"), its comment and, for flat types, the exact
// type ("tributary.type": VARCHAR(10) where Arrow has Utf8) in its custom metadata, so a stream
// this writes reads back as the same types; a stream without them (another program's) reads as the
// plain mapping back (Utf8 as STRING, Binary as BYTES, FixedSizeBinary(n) as BINARY(n),
// Date(MILLISECOND) as DATE, Time and Timestamp of any unit, LargeUtf8 and LargeBinary as STRING
// and BYTES).
//
// Thread-safety: a writer is one thread's; ReadIpcStream is stateless.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::format::arrow {

// Body compression of record batches (the IPC format's BodyCompression; Fluss's
// 'table.log.arrow.compression.type'). A buffer that would not shrink is written as it is.
enum class IpcCompression { kNone, kLz4Frame, kZstd };

struct IpcWriteOptions {
  IpcCompression compression = IpcCompression::kZstd;
  int zstd_level = 3;  // Fluss's 'table.log.arrow.compression.zstd.level' default
};

struct IpcColumns;

class IpcStreamWriter {
 public:
  // `fields`: the columns in order (each field's id goes into its metadata).
  static Result<std::unique_ptr<IpcStreamWriter>> Make(std::vector<Field> fields,
                                                       IpcWriteOptions options = {});
  ~IpcStreamWriter();

  // Appends one row (`cells[i]` is column i's value, representation as value.h gives each
  // type). A NULL in a NOT NULL column or a value of the wrong representation is Invalid, and
  // the writer then refuses every later call with that error (the row may be in some columns).
  Status Append(const std::vector<const Value*>& cells);
  int64_t rows() const;
  // The whole stream: the schema, one record batch of every row appended (none if no row was),
  // the end-of-stream marker.
  Result<std::string> Finish();

 private:
  IpcStreamWriter(std::vector<Field> fields, IpcWriteOptions options);
  std::vector<Field> fields_;
  IpcWriteOptions options_;
  std::unique_ptr<IpcColumns> columns_;
  Status broken_;
};

struct IpcStream {
  std::vector<Field> fields;
  std::vector<Row> rows;  // every record batch's rows, in order
};

// Bounds on what a stream may make a reader hold (a damaged or hostile one could otherwise say
// it decompresses to gigabytes): past them the read fails (Corruption) before allocating.
struct IpcReadLimits {
  int64_t max_decompressed_bytes = int64_t{1} << 30;  // the compressed buffers once decompressed
  // Values decoded, nested ones included (each takes tens of bytes, where a BOOLEAN's takes a
  // bit in the stream).
  int64_t max_values = int64_t{1} << 24;
};

// Reads a whole stream (continuation markers or the pre-1.0 framing without them; an end of
// bytes ends it as the end-of-stream marker does). Damaged or truncated input, buffers outside
// the body, offsets out of order or past their data are Corruption; dictionaries, big-endian
// streams and types with no Tributary type (unsigned integers, half floats, unions, intervals,
// durations, views, run-end encoding, 256-bit decimals) are NotSupported naming the field.
Result<IpcStream> ReadIpcStream(std::string_view bytes, const IpcReadLimits& limits = {});

// Whether `bytes` begin as an Arrow IPC stream does (a continuation marker).
bool LooksLikeIpcStream(std::string_view bytes);

}  // namespace tributary::format::arrow
