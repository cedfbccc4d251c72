// Avro: schemas, a generic datum model, the binary encoding and object container files
// (https://avro.apache.org/docs/1.11.1/specification/), with codecs null, deflate, snappy and
// zstandard. Written in-house because Debian's Avro C library lacks zstandard, which Paimon's
// manifests use by default. Used for manifests, manifest lists, index manifests and Avro data
// files. Thread-safety: schemas are immutable and shared; readers and writers are single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "tributary/result.h"

namespace tributary::avro {

// clang-format off
enum class Type {
  kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString,
  kRecord, kEnum, kArray, kMap, kUnion, kFixed,
};
// clang-format on

struct Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

struct SchemaField {
  std::string name;
  SchemaPtr schema;
  std::string doc;
  // The field's "default" as raw JSON text ("" when absent); kept so schemas round-trip.
  std::string default_json;
};

struct Schema {
  Type type = Type::kNull;
  std::string name;                  // record, enum, fixed (full name, namespace included)
  std::string logical_type;          // "decimal", "date", "time-millis", "timestamp-millis", ...
  int32_t precision = 0;             // decimal
  int32_t scale = 0;                 // decimal
  int32_t fixed_size = 0;            // fixed
  std::vector<SchemaField> fields;   // record
  std::vector<std::string> symbols;  // enum
  SchemaPtr items;                   // array
  SchemaPtr values;                  // map
  std::vector<SchemaPtr> branches;   // union
  // Set by ParseSchema: levels of nesting, this one included, following named-type references
  // (bounded, so a hostile schema cannot make decoding recurse without end); and for a record,
  // the fewest bytes one of its values takes (capped at 1024).
  int32_t depth = 1;
  int64_t record_min_size = 0;

  // Index of the record field named `name`, or -1.
  int FieldIndex(std::string_view name) const;
  // For a union ["null", T] (either order): T; otherwise this schema itself.
  const Schema& NonNull() const;
  bool IsNullableUnion() const;
};

// The fewest bytes one value of `s` can take (capped; only used to bound block counts).
int64_t MinEncodedSize(const Schema& s);

// Parses Avro schema JSON (named types may be referenced by name after their definition).
Result<SchemaPtr> ParseSchema(std::string_view json);
// Canonical-enough JSON for the container header (keeps logicalType, doc-less).
std::string SchemaToJson(const Schema& schema);

// A decoded value. Unions are resolved: the Datum holds the chosen branch's value and
// `union_branch` its index (so a writer can re-encode it); null is std::monostate.
struct Datum;
using DatumList = std::vector<Datum>;
using DatumMap = std::vector<std::pair<std::string, Datum>>;

struct Datum {
  // bool; int32 (int, date, time-millis, enum index); int64 (long, timestamps);
  // float; double; string (bytes, string, fixed); DatumList (record fields in schema order,
  // or array items); DatumMap (map).
  using Rep = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                           DatumList, DatumMap>;
  Rep rep;
  int32_t union_branch = -1;  // set by the reader for union values; -1 lets the writer choose

  Datum() = default;
  template <typename T>
  Datum(T v) : rep(std::move(v)) {}  // NOLINT: implicit on purpose

  // Deep equality, union_branch included (a decoded datum equals its re-encoded decoding).
  bool operator==(const Datum& other) const = default;

  bool is_null() const { return std::holds_alternative<std::monostate>(rep); }
  // REQUIRES: the matching alternative.
  bool as_bool() const { return std::get<bool>(rep); }
  int32_t as_int() const { return std::get<int32_t>(rep); }
  int64_t as_long() const { return std::get<int64_t>(rep); }
  float as_float() const { return std::get<float>(rep); }
  double as_double() const { return std::get<double>(rep); }
  const std::string& as_string() const { return std::get<std::string>(rep); }
  const DatumList& as_list() const { return std::get<DatumList>(rep); }
  DatumList& as_list() { return std::get<DatumList>(rep); }
  const DatumMap& as_map() const { return std::get<DatumMap>(rep); }
};

// Binary encoding of one datum of `schema` (no container). For a union with union_branch == -1
// the writer picks the first branch whose type accepts the value (null -> the "null" branch).
Status Encode(const Schema& schema, const Datum& datum, std::string* out);
// Decodes one datum from data[*pos...], advancing *pos. Errors name what was truncated.
Status Decode(const Schema& schema, std::string_view data, size_t* pos, Datum* out);

enum class Codec { kNull, kDeflate, kSnappy, kZstandard };
// "null", "deflate", "snappy", "zstandard".
const char* CodecName(Codec c);
Result<Codec> CodecFromName(std::string_view name);

// Reads an object container file held in memory, record by record. Not thread-safe.
class FileReader {
 public:
  // `file` holds the whole file; the reader owns it (move it in to avoid a copy). Reads and
  // checks the header (magic, metadata, schema, codec, sync marker). Errors: Corruption for a
  // damaged header, NotSupported for an unknown codec.
  static Result<std::unique_ptr<FileReader>> Open(std::string file);
  const SchemaPtr& schema() const { return schema_; }
  Codec codec() const { return codec_; }
  // Reads the next record; returns false at the end of the file. Damaged blocks (bad sync
  // marker, checksum, compression or encoding) give Corruption.
  Result<bool> Next(Datum* out);
  // Reads every remaining record.
  Result<std::vector<Datum>> ReadAll();

 private:
  FileReader() = default;
  Status LoadBlock();
  std::string file_;
  size_t pos_ = 0;
  SchemaPtr schema_;
  Codec codec_ = Codec::kNull;
  std::string sync_;
  std::string block_;  // decompressed current block
  size_t block_pos_ = 0;
  int64_t block_remaining_ = 0;
};

// Writes an object container file into memory: a header with the schema, the codec and a random
// sync marker, then blocks of records compressed once their encoding reaches `block_size`.
// Not thread-safe.
class FileWriter {
 public:
  // `block_size`: uncompressed bytes per block before it is flushed; `zstd_level` for the
  // zstandard codec.
  static Result<std::unique_ptr<FileWriter>> Make(SchemaPtr schema, Codec codec,
                                                  size_t block_size = 64 * 1024,
                                                  int zstd_level = 1);
  // Encodes `record` (a datum of the schema); a record that does not match the schema gives
  // Invalid and leaves the file unchanged.
  Status Append(const Datum& record);
  int64_t num_records() const { return num_records_; }
  // Approximate bytes written so far (flushed blocks plus buffered data).
  size_t EstimatedSize() const { return out_.size() + block_.size(); }
  // Flushes the last block and returns the whole file. REQUIRES: called once; Append and
  // Finish fail afterwards.
  Result<std::string> Finish();

 private:
  FileWriter() = default;
  Status FlushBlock();
  bool finished_ = false;
  SchemaPtr schema_;
  Codec codec_ = Codec::kNull;
  int zstd_level_ = 1;
  size_t block_size_ = 0;
  std::string sync_;
  std::string out_;
  std::string block_;
  int64_t block_count_ = 0;
  int64_t num_records_ = 0;
};

}  // namespace tributary::avro
