// ParquetWriter: writes rows of a Tributary schema (flat and nested columns) as a Parquet file,
// the way Paimon's writer lays it out (message "paimon_schema", field ids, Paimon's physical types
// per DataType, LIST/MAP groups; see docs/format/parquet.md).
// Thread-safety: a writer is single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_parts.h"
#include "format/compression.h"
#include "format/parquet/column_writer.h"
#include "format/parquet/nested.h"
#include "format/parquet/parquet_metadata.h"
#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::format::parquet {

inline constexpr const char* kCreatedBy = "tributary version 0.1.0 (build tributary)";

struct ParquetWriterOptions {
  // 'file.compression': none, snappy, gzip, zstd or lz4_raw (lz4 is written as LZ4_RAW).
  CompressionCodec compression = CompressionCodec::kZstd;
  // 'file.compression.zstd-level' (1..22).
  int zstd_level = 1;
  // 'parquet.page.size': target encoded bytes of a data page before compression.
  int64_t page_size = 1 << 20;
  // 'parquet.page.row.count.limit': at most this many rows per page (parquet-mr's default).
  int64_t page_row_limit = 20000;
  // 'parquet.block.size': a row group is closed once its estimated size reaches this.
  int64_t row_group_size = int64_t{128} << 20;
  // 'parquet.enable.dictionary' and 'parquet.dictionary.page.size'.
  bool dictionary = true;
  int64_t dictionary_page_size = 1 << 20;
  // 'parquet.writer.version': 1 (PARQUET_1_0, data page v1) or 2 (PARQUET_2_0, data page v2).
  int data_page_version = 1;
  // Encoding of values that are not dictionary-encoded.
  ValueEncoding value_encoding = ValueEncoding::kPlain;
  std::string created_by = kCreatedBy;
};

class ParquetWriter {
 public:
  // `columns`: the columns in file order (id = Parquet field_id); nested types are written as
  // Paimon writes them. Unknown compression codecs or bad sizes are Invalid.
  static Result<std::unique_ptr<ParquetWriter>> Make(std::vector<Field> columns,
                                                     ParquetWriterOptions options = {});

  // Appends one row (values in column order, representation as value.h gives each type).
  // On error (wrong arity, NULL in a NOT NULL column, wrong representation) nothing is
  // appended.
  Status Append(const Row& row);
  // The same with the row's values given by pointer (`cells[i]` is column i's value): callers
  // that assemble rows from parts need not move values into a Row.
  Status Append(const std::vector<const Value*>& cells);
  // Appends `num_rows` rows given column by column (`columns[i]` is column i; flat columns
  // only), with no Value per cell for integers and strings. REQUIRES: the values fit their
  // columns' types (callers checked them when they were written). NULLs in NOT NULL columns are
  // Invalid before anything is appended; after another error the writer must be discarded.
  Status AppendColumns(const std::vector<ColumnValues>& columns, size_t num_rows);
  // Bytes of the file if it were finished now (closed row groups plus an estimate of the
  // buffered one). Callers roll files on it ('target-file-size').
  int64_t EstimatedSize() const;
  int64_t num_rows() const { return num_rows_; }
  // Closes the last row group and writes the footer; returns the whole file.
  // REQUIRES: called once (this or FinishParts); the writer is unusable afterwards.
  Result<std::string> Finish();
  // The same as the file's parts (the pages as the column writers made them, then the page
  // index and footer): no joined copy of the file is made.
  Result<FileParts> FinishParts();

 private:
  ParquetWriter() = default;
  Status FlushRowGroup();
  // After rows were added: closes the row group when it is full, else places the next check.
  Status CheckRowGroupSize();

  // How one column is written: a flat column is one writer; a nested one a tree over writers
  // [first_writer, first_writer + root.end_leaf - root.first_leaf).
  struct ColumnPlan {
    int first_writer = 0;
    int schema_index = 0;  // its (first) element in schema_
    std::optional<NestedNode> nested;
  };

  std::vector<Field> columns_;
  std::vector<SchemaElement> schema_;
  ParquetWriterOptions options_;
  std::vector<ColumnPlan> plans_;
  std::vector<std::unique_ptr<ColumnChunkWriter>> writers_;  // one per leaf
  std::vector<std::vector<LeafLevels>> scratch_;             // per column: one row's levels
  std::vector<const Value*> row_cells_;                      // Append(const Row&)'s cells
  FileParts file_;  // the file so far (magic, closed row groups)
  std::vector<RowGroup> row_groups_;
  std::vector<std::vector<ChunkPageIndex>> page_indexes_;  // [row group][column]
  int64_t num_rows_ = 0;
  int64_t group_rows_ = 0;
  int64_t next_size_check_ = 1;  // group_rows_ at which Append next estimates the group's size
  bool finished_ = false;
};

}  // namespace tributary::format::parquet
