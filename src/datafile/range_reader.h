// ColumnRangeReader: one column of a Parquet data file read in ascending ranges of rows, as a
// merge that goes through its inputs a chunk at a time reads them: each data page is decoded
// once, the rows of the last page decoded beyond a range kept for the next range. Internal.
// Thread-safety: one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tributary/column_batch.h"
#include "tributary/result.h"

namespace tributary::format::parquet {
class ParquetReader;
}  // namespace tributary::format::parquet

namespace tributary::datafile {

class ColumnRangeReader {
 public:
  // Column `column` of `reader` over row groups `groups` (in file order: positions count their
  // rows one after another); `path` names the file in errors.
  ColumnRangeReader(std::shared_ptr<const format::parquet::ParquetReader> reader,
                    std::vector<int> groups, int column, std::string path);

  // Rows [begin, end) of the column. Each call's `begin` is at or after the previous call's
  // `end` (ranges ascend): the rows the previous call decoded past its range are taken from
  // what it kept, and this call decodes to the end of the page holding row end - 1 (where the
  // file's offset index says where pages end; else exactly to `end`), keeping the rows past
  // `end`. What is kept is at most one page of rows.
  Result<ColumnVector> Read(int64_t begin, int64_t end);

 private:
  // Where the page holding position `row` (in row group groups_[g], which starts at position
  // `at`) ends, as a position; row + 1 when the file has no offset index (nothing kept).
  Result<int64_t> PageEnd(size_t g, int64_t at, int64_t row);

  std::shared_ptr<const format::parquet::ParquetReader> reader_;
  std::vector<int> groups_;
  int column_;
  std::string path_;
  std::vector<std::vector<int64_t>> page_starts_;  // per group: first rows of its pages
  std::vector<bool> pages_known_;                  // per group: page_starts_ read
  ColumnVector kept_;                              // positions [kept_begin_, + kept_.size())
  int64_t kept_begin_ = 0;
};

}  // namespace tributary::datafile
