// Encoding of one flat column chunk: pages sized by bytes and rows, definition levels,
// dictionary encoding with fallback to a plain encoding, compression, statistics.
// Thread-safety: single-threaded; owned by one ParquetWriter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

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

class ColumnChunkWriter {
 public:
  // REQUIRES: `element` is the leaf's schema element (ColumnSchemaElement(field)).
  ColumnChunkWriter(const Field& field, const SchemaElement& element,
                    const ColumnWriterOptions& options);

  // Adds the next row's value. A null in a NOT NULL column or a value of the wrong
  // representation is Invalid and leaves the writer unchanged.
  Status Add(const Value& v);
  // Bytes the chunk would take if finished now (pages so far, the current page and the
  // dictionary, before compression of the unflushed parts).
  int64_t EstimatedSize() const;
  // Appends the chunk (dictionary page, data pages) to `file`, whose current size is the
  // chunk's offset, and returns its metadata; `index` receives its page index. Resets the
  // writer for the next row group.
  Result<ColumnChunk> Finish(std::string* file, ChunkPageIndex* index);

 private:
  Status FlushPage();
  Status WriteDataPage(bool dictionary_encoded);
  Result<std::string> Compress(std::string_view data) const;
  // A value as statistics store it (PLAIN, no length prefix).
  Result<std::string> StatBytes(const Value& v) const;
  Status BuildPageIndex(int64_t data_page_offset, ChunkPageIndex* index) const;
  Encoding PlainEncodingFor() const;
  void ResetChunk();

  Field field_;
  PhysicalType physical_;
  int32_t type_length_;
  bool nullable_;
  ColumnWriterOptions options_;

  // Current page.
  std::vector<uint32_t> def_levels_;
  PhysicalValues page_values_;     // present values in physical form
  std::vector<uint32_t> indices_;  // their dictionary indices, while the dictionary is in use
  int64_t page_rows_ = 0;
  int64_t page_nulls_ = 0;
  int64_t page_plain_bytes_ = 0;

  // Dictionary of the chunk.
  bool use_dictionary_ = false;
  std::unordered_map<std::string, uint32_t> dict_index_;
  PhysicalValues dict_values_;
  int64_t dict_bytes_ = 0;
  bool dict_pages_written_ = false;

  // Encoded data pages of the chunk (headers included).
  std::string pages_;
  int64_t pages_uncompressed_ = 0;
  std::vector<Encoding> encodings_;
  int64_t num_values_ = 0;

  // Statistics of the chunk and of the current page.
  std::optional<Value> min_, max_;
  bool saw_nan_ = false;
  int64_t null_count_ = 0;
  std::optional<Value> page_min_, page_max_;
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
