// Encoding of one column chunk (a flat column, or one leaf of a nested column): pages sized by
// bytes and rows, repetition and definition levels, dictionary encoding with fallback to a
// plain encoding, compression, statistics.
// Thread-safety: single-threaded; owned by one ParquetWriter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_parts.h"
#include "format/column_values.h"
#include "format/compression.h"
#include "format/parquet/encodings.h"
#include "format/parquet/parquet_metadata.h"
#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::format::parquet {

// Encoding of values that are not dictionary-encoded (all values when the dictionary is off,
// and after a fallback).
enum class ValueEncoding {
  kPlain,            // PLAIN for every type (parquet-mr's v1 writer)
  kDelta,            // DELTA_BINARY_PACKED ints, DELTA_BYTE_ARRAY byte arrays, RLE booleans
                     // (parquet-mr's v2 writer); PLAIN for the rest
  kDeltaLength,      // as kDelta, but DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY
  kByteStreamSplit,  // BYTE_STREAM_SPLIT for FLOAT and DOUBLE, PLAIN for the rest
};

struct ColumnWriterOptions {
  Codec codec = Codec::kZstd;
  int zstd_level = 1;  // 'file.compression.zstd-level'
  int64_t page_size = 1 << 20;
  int64_t page_row_limit = 20000;
  bool dictionary = true;
  int64_t dictionary_page_size = 1 << 20;
  int data_page_version = 1;
  ValueEncoding value_encoding = ValueEncoding::kPlain;
};

// The page index of one column chunk (written after the row groups, as parquet-mr does).
struct ChunkPageIndex {
  std::optional<ColumnIndex> column_index;  // absent for INT96 and when a page holds NaN
  OffsetIndex offset_index;
};

// One leaf of the file schema, as the writer sees it.
struct LeafSpec {
  std::vector<std::string> path;  // path_in_schema
  DataType type;                  // the Tributary type of its values
  PhysicalType physical = PhysicalType::kInt32;
  int32_t type_length = 0;
  int16_t max_def = 0;
  int16_t max_rep = 0;
};

// ColumnValues (format/column_values.h): the columns AppendColumns takes.
using format::ColumnValues;

class ColumnChunkWriter {
 public:
  // A flat column. REQUIRES: `element` is the leaf's schema element (ColumnSchemaElement(field)).
  ColumnChunkWriter(const Field& field, const SchemaElement& element,
                    const ColumnWriterOptions& options);
  // Any leaf, nested ones included.
  ColumnChunkWriter(LeafSpec spec, const ColumnWriterOptions& options);
  ~ColumnChunkWriter();
  // Not copied or moved: the dictionary's index points at the dictionary's values.
  ColumnChunkWriter(const ColumnChunkWriter&) = delete;
  ColumnChunkWriter& operator=(const ColumnChunkWriter&) = delete;

  // Adds the next row's value (flat columns). A null in a NOT NULL column or a value of the
  // wrong representation is Invalid and leaves the writer unchanged.
  Status Add(const Value& v);
  // Adds the next row's level entries (leaves of nested columns; levels.values holds the values
  // of the entries at the maximum definition level). REQUIRES: the values have the leaf's
  // representation (callers check with AppendPhysical first).
  Status AddRow(const std::vector<int16_t>& defs, const std::vector<int16_t>& reps,
                const std::vector<Value>& values);
  // Adds rows [begin, end) of `values` (flat columns), with no Value per entry for integers
  // and strings outside dictionary-encoded pages. REQUIRES: the values fit the column's type.
  Status AddValues(const ColumnValues& values, size_t begin, size_t end);
  const LeafSpec& spec() const { return spec_; }
  // Bytes the chunk would take if finished now (pages so far, the current page and the
  // dictionary, before compression of the unflushed parts).
  int64_t EstimatedSize() const;
  // Appends the chunk (dictionary page, data pages) to `file`, whose current size is the
  // chunk's offset, and returns its metadata; `index` receives its page index. The pages are
  // moved into `file`, not copied. Resets the writer for the next row group.
  Result<ColumnChunk> Finish(FileParts* file, ChunkPageIndex* index);

 private:
  Status AddEntry(int16_t def, int16_t rep, const Value* v);
  Status EndRow();
  bool PlainInts() const {
    return !use_dictionary_ &&
           (physical_ == PhysicalType::kInt64 || physical_ == PhysicalType::kInt32);
  }
  bool PlainBytes() const {
    return !use_dictionary_ && physical_ == PhysicalType::kByteArray &&
           PlainEncodingFor() == Encoding::kPlain;
  }
  void AppendPlainInt(int16_t def, int64_t x);
  void AppendDictInt(int16_t def, int64_t x);
  void TrackInt(int64_t x);
  void TrackBytes(std::string_view s);
  void AppendDictBytes(int16_t def, std::string_view s);
  // After a value or NULL entered the page: counts it, gives up the dictionary when it does not
  // pay (see AddEntry).
  void EndEntry();
  void AppendPlainBytes(int16_t def, std::string_view s);
  Status FlushPage();
  Status WriteDataPage(bool dictionary_encoded);
  Result<std::string> Compress(std::string_view data) const;
  // A value as statistics store it (PLAIN, no length prefix).
  Result<std::string> StatBytes(const Value& v) const;
  Status BuildPageIndex(int64_t data_page_offset, ChunkPageIndex* index) const;
  Encoding PlainEncodingFor() const;
  void ResetChunk();

  LeafSpec spec_;
  std::string name_;  // for messages
  std::vector<std::string> path_;
  DataType type_;
  PhysicalType physical_;
  int32_t type_length_;
  int16_t max_def_;
  int16_t max_rep_;
  ColumnWriterOptions options_;

  // Current page.
  std::vector<uint32_t> def_levels_;
  std::vector<uint32_t> rep_levels_;
  int64_t page_levels_ = 0;     // level entries (= rows for flat columns)
  PhysicalValues page_values_;  // present values in physical form
  // Strings of a page encoded PLAIN without a dictionary go straight here (length + bytes), not
  // through page_values_: no string per value.
  std::string page_plain_;
  std::vector<uint32_t> indices_;  // their dictionary indices, while the dictionary is in use
  int64_t page_rows_ = 0;
  int64_t page_nulls_ = 0;
  int64_t page_plain_bytes_ = 0;

  // Dictionary of the chunk.
  bool use_dictionary_ = false;
  struct DictIndex;  // value -> dictionary index (hash maps; column_writer.cc)
  std::unique_ptr<DictIndex> dict_index_;
  PhysicalValues dict_values_;
  int64_t dict_bytes_ = 0;
  uint32_t last_dict_index_ = UINT32_MAX;  // AppendDictInt's last index (checked before use)
  // Of the values probed (kDictionaryProbe), those equal to the value just before them.
  uint32_t probe_repeats_ = 0;
  uint32_t last_bytes_index_ = UINT32_MAX;  // AppendDictBytes' last index
  bool dict_pages_written_ = false;

  // Encoded data pages of the chunk (headers included), one string per page: a chunk grows
  // page by page without reallocating (and copying) what it holds so far, and holds no spare
  // capacity once flushed.
  std::vector<std::string> pages_;
  int64_t pages_bytes_ = 0;
  int64_t pages_uncompressed_ = 0;
  std::vector<Encoding> encodings_;
  int64_t num_values_ = 0;

  // Statistics of the chunk and of the current page.
  std::optional<Value> min_, max_;
  bool saw_nan_ = false;
  int64_t null_count_ = 0;
  std::optional<Value> page_min_, page_max_;
  // Bounds of the page's integers added by AddEntry's fast path, folded into page_min_ and
  // page_max_ when the page is flushed.
  bool page_has_ints_ = false;
  int64_t page_int_min_ = 0, page_int_max_ = 0;
  bool page_nan_ = false;

  // One entry per data page written, for the page index.
  struct PageEntry {
    int64_t offset = 0;  // within pages_
    int32_t size = 0;    // header + body
    int64_t first_row = 0;
    std::optional<Value> min, max;
    int64_t nulls = 0;
    bool nan = false;
  };
  std::vector<PageEntry> page_entries_;
  int64_t rows_in_pages_ = 0;
};

}  // namespace tributary::format::parquet
