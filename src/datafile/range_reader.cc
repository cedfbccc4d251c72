#include "datafile/range_reader.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "format/parquet/reader.h"

namespace tributary::datafile {

namespace {

// Positions [first, last) as row numbers.
std::vector<uint32_t> Positions(int64_t first, int64_t last) {
  std::vector<uint32_t> rows(static_cast<size_t>(last - first));
  std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(first));
  return rows;
}

}  // namespace

ColumnRangeReader::ColumnRangeReader(std::shared_ptr<const format::parquet::ParquetReader> reader,
                                     std::vector<int> groups, int column, std::string path)
    : reader_(std::move(reader)),
      groups_(std::move(groups)),
      column_(column),
      path_(std::move(path)),
      page_starts_(groups_.size()),
      pages_known_(groups_.size(), false) {}

Result<int64_t> ColumnRangeReader::PageEnd(size_t g, int64_t at, int64_t row) {
  if (!pages_known_[g]) {
    pages_known_[g] = true;
    const int leaf = reader_->schema().columns()[column_].first_leaf;
    auto index = reader_->ReadPageIndex(groups_[g], leaf);
    if (index.ok() && index->offset_index) {
      for (const auto& page : index->offset_index->page_locations) {
        page_starts_[g].push_back(page.first_row_index);
      }
    }
  }
  const std::vector<int64_t>& starts = page_starts_[g];
  if (starts.empty()) return row + 1;
  const int64_t rows = reader_->metadata().row_groups[groups_[g]].num_rows;
  auto next = std::upper_bound(starts.begin(), starts.end(), row - at);
  return next == starts.end() ? at + rows : at + std::min(*next, rows);
}

Result<ColumnVector> ColumnRangeReader::Read(int64_t begin, int64_t end) {
  ColumnVector out;
  bool have = false;
  const int64_t kept_end = kept_begin_ + static_cast<int64_t>(kept_.size());
  int64_t from = begin;
  if (begin >= kept_begin_ && begin < kept_end) {
    const int64_t to = std::min(end, kept_end);
    out.type = kept_.type;
    out.rep = kept_.rep;
    out.AppendRows(kept_, Positions(begin - kept_begin_, to - kept_begin_));
    have = true;
    from = to;
  }
  if (from < end) {
    kept_ = ColumnVector();
    kept_begin_ = 0;
  }
  int64_t at = 0;  // position of the current row group's first row
  for (size_t g = 0; g < groups_.size() && from < end; g++) {
    const int64_t rows = reader_->metadata().row_groups[groups_[g]].num_rows;
    const int64_t lo = std::max(from, at), hi = std::min(end, at + rows);
    if (lo < hi) {
      int64_t stop = hi;
      if (hi == end) {
        TRIB_ASSIGN_OR_RETURN(int64_t page_end, PageEnd(g, at, end - 1));
        stop = std::clamp(page_end, hi, at + rows);
      }
      const format::parquet::RowRanges range = {{lo - at, stop - at}};
      const bool whole = lo == at && stop == at + rows;
      auto v = reader_->ReadRowGroupVectors(groups_[g], {column_}, whole ? nullptr : &range);
      if (!v.ok()) return v.status().WithContext("data file '" + path_ + "'");
      ColumnVector& got = (*v)[0];
      if (static_cast<int64_t>(got.size()) != stop - lo) {
        return Status::Corruption("data file '" + path_ + "': column lengths differ");
      }
      if (stop > hi) {
        // The rest of the page, for the next range.
        kept_.type = got.type;
        kept_.rep = got.rep;
        kept_.AppendRows(got, Positions(hi - lo, stop - lo));
        kept_begin_ = hi;
        got.KeepRows(Positions(0, hi - lo));
      }
      if (!have) {
        out = std::move(got);
        have = true;
      } else if (got.rep != out.rep) {
        return Status::Corruption("data file '" + path_ + "': row groups disagree");
      } else {
        out.AppendAll(std::move(got));
      }
    }
    at += rows;
  }
  if (static_cast<int64_t>(out.size()) != end - begin) {
    return Status::Corruption("data file '" + path_ + "': column lengths differ");
  }
  return out;
}

}  // namespace tributary::datafile
