// ParquetReader: reads a whole Parquet file held in memory. Exposes the schema (top-level
// columns, their leaves, field ids and Tributary types), per-row-group statistics decoded to
// Values so callers can skip row groups, and the rows of a projection of the columns. Nested
// columns (struct, list, map) are assembled into ROW, ARRAY and MAP Values (nested.h).
// Thread-safety: an opened reader is immutable; its const methods may run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/parquet/column_reader.h"
#include "format/parquet/nested.h"
#include "format/parquet/parquet_metadata.h"
#include "format/parquet/parquet_schema.h"
#include "format/parquet/parquet_values.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::format::parquet {

// Statistics of one column in one row group. min/max are set only when the file's statistics
// are trustworthy for the type (see docs/format/parquet.md); both are inclusive bounds.
struct ColumnStats {
  std::optional<Value> min;
  std::optional<Value> max;
  std::optional<int64_t> null_count;
  int64_t num_values = 0;
};

struct RowGroupStats {
  int index = 0;
  int64_t num_rows = 0;
  std::vector<ColumnStats> columns;  // one per top-level column (empty stats for nested ones)
};

// The page index of one column chunk, when the writer stored one.
struct PageIndex {
  std::optional<ColumnIndex> column_index;
  std::optional<OffsetIndex> offset_index;
};

// Returns true to read the row group, false to skip it.
using RowGroupFilter = std::function<bool(const RowGroupStats&)>;

struct ParquetReadOptions {
  std::vector<int> projection;      // top-level column indexes; empty = every column
  RowGroupFilter row_group_filter;  // empty = read every row group
};

class ParquetReader {
 public:
  // Parses the footer and schema. Not a Parquet file, a damaged footer or an encrypted file
  // gives an error (Corruption / NotSupported); data pages are only read later.
  static Result<std::unique_ptr<ParquetReader>> Open(std::string file_bytes);
  // The same over bytes held elsewhere (a mapped file): `owner` keeps `file` alive.
  // `release`, if given, drops the bytes' pages from the process's resident memory while
  // keeping them readable (a mapped file pages them in again): ReleasePages calls it.
  // `ensure`, if given, makes a byte range of `file` readable before it is read (a file on
  // object storage, fetched by range: io::RangedFile); then the leading magic is not checked
  // (it would cost a request; the trailing magic and the footer's checks remain).
  static Result<std::unique_ptr<ParquetReader>> Open(
      std::shared_ptr<const void> owner, std::string_view file,
      std::function<void()> release = nullptr,
      std::function<Status(int64_t offset, int64_t length)> ensure = nullptr);

  // Lets the pages read so far leave memory (see Open); a reader of bytes in memory keeps them.
  // A job that reads a file once, piece by piece (a compaction), calls it after each piece (a
  // mapping under 1 MiB keeps its pages: io::MappedFile::ReleasePages).
  void ReleasePages() const {
    if (release_) release_();
  }

  const FileMetaData& metadata() const { return metadata_; }
  const FileSchema& schema() const { return schema_; }
  int num_row_groups() const { return static_cast<int>(metadata_.row_groups.size()); }
  int64_t num_rows() const { return metadata_.num_rows; }
  const std::string& created_by() const;

  // Statistics of row group `rg`.
  RowGroupStats RowGroupStatistics(int rg) const;

  // The values of the projected columns of row group `rg`, one vector per projected column.
  // `rows`: only these rows are returned (in order; the vectors hold one value per wanted row),
  // and pages of flat columns holding none of them are not decoded (use the page index,
  // PageStatistics, to find the rows).
  Result<std::vector<std::vector<Value>>> ReadRowGroupColumns(
      int rg, const std::vector<int>& projection, const RowRanges* rows = nullptr) const;
  // The same columns as column vectors (tributary/column_batch.h): flat columns whose values
  // are their physical values (integers, floating point, strings) keep the decoded vectors; the
  // others hold Values.
  // `rows`: only these rows, as ReadRowGroupColumns takes them.
  Result<std::vector<ColumnVector>> ReadRowGroupVectors(int rg, const std::vector<int>& projection,
                                                        const RowRanges* rows = nullptr) const;
  // Fetches in one go the column chunks of `projection` (top-level columns) in row group `rg`
  // when the file is read by range (see Open), so that reading them costs one request instead
  // of one per chunk; nothing for a file in memory.
  Status Prefetch(int rg, const std::vector<int>& projection) const;
  // Rows (values in projection order) of every row group the filter keeps.
  Result<std::vector<Row>> ReadRows(const ParquetReadOptions& options = {}) const;

  // The raw page index of leaf `leaf` in row group `rg` (both parts absent if not written).
  Result<PageIndex> ReadPageIndex(int rg, int leaf) const;
  // Per-page statistics of flat column `column` in row group `rg` from the column index (empty
  // if there is none): min/max decoded like the chunk statistics, num_values = rows of the
  // page when the offset index gives them.
  Result<std::vector<ColumnStats>> PageStatistics(int rg, int column) const;

  // The type of top-level column `column`: flat columns from their leaf, nested ones from
  // their tree; nullopt when the column cannot be read (type_error of the column says why).
  std::optional<DataType> ColumnType(int column) const;

  // Levels and physical values of leaf `leaf` in row group `rg` (works for nested leaves);
  // `rows` as ReadColumnChunk takes them.
  Result<ColumnChunkData> ReadLeafChunk(int rg, int leaf, const RowRanges* rows = nullptr) const;

 private:
  ParquetReader() = default;
  Result<std::vector<int>> ResolveProjection(const std::vector<int>& projection) const;

  std::shared_ptr<const void> owner_;  // holds the bytes file_ views
  std::function<void()> release_;
  std::function<Status(int64_t, int64_t)> ensure_;
  // Makes [offset, offset + length) of file_ readable (clamped to the file: the readers check
  // ranges themselves).
  Status EnsureRange(int64_t offset, int64_t length) const;
  std::string_view file_;
  FileMetaData metadata_;
  FileSchema schema_;
  // One per top-level column; set for flat columns whose type maps to Tributary.
  std::vector<std::optional<ValueConverter>> converters_;
  // A readable nested column: its tree and a converter per leaf.
  struct NestedPlan {
    NestedNode root;
    std::vector<ValueConverter> leaf_converters;
  };
  // One per top-level column; set for nested columns that can be read.
  std::vector<std::optional<NestedPlan>> nested_;
  std::vector<std::string> nested_errors_;
  // The file is immutable while open: each page's checksum is checked once.
  std::unique_ptr<VerifiedPages> verified_ = std::make_unique<VerifiedPages>();
};

}  // namespace tributary::format::parquet
