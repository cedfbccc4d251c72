// The records of a Parquet data file a slice of rows at a time (OpenSlicedRecords): what a
// compaction's merge reads from each input, so that it holds a slice of each file instead of
// every file decoded whole (issue 38).
#include <set>

#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/parquet_file.h"
#include "datafile/range_reader.h"
#include "merge/sort_merge_reader.h"

namespace tributary::datafile {

namespace {

// Rows handed out a slice at a time. Each column is read by a ColumnRangeReader, which decodes a
// page once however the slices cut it (the rest of the page it decoded past a slice is kept for
// the next): a slice holds 16,384 rows and at most a page more of each column. (To the
// thirty-ninth session slices were 65,536 rows, read whole so that a page was decoded about once:
// a row merge of a bucket's inputs, two buckets at a time, held four times as much.)
constexpr int64_t kSliceRows = 16384;

class SlicedRecords : public merge::RecordSource {
 public:
  SlicedRecords(ParquetReaderPtr reader, const std::vector<int>& cols, std::string path,
                int32_t level, std::set<int64_t> deleted)
      : reader_(std::move(reader)),
        path_(std::move(path)),
        level_(level),
        deleted_(std::move(deleted)) {
    std::vector<int> groups;
    for (int g = 0; g < reader_->num_row_groups(); g++) {
      groups.push_back(g);
      total_ += reader_->metadata().row_groups[g].num_rows;
    }
    for (int c : cols) columns_.emplace_back(reader_, groups, c, path_);
  }

  Result<bool> Next(merge::KeyValue* out) override {
    while (true) {
      while (pos_ >= slice_rows_) {
        TRIB_ASSIGN_OR_RETURN(bool more, ReadSlice());
        if (!more) return false;
      }
      const size_t r = pos_++;
      const int64_t position = slice_first_ + static_cast<int64_t>(r);
      if (!deleted_.empty() && deleted_.count(position)) continue;
      TRIB_RETURN_NOT_OK(RecordAt(slice_, r, path_, position, level_, out));
      return true;
    }
  }

 private:
  // The next slice of rows; false at the end of the file.
  Result<bool> ReadSlice() {
    slice_.clear();
    slice_rows_ = pos_ = 0;
    if (next_ >= total_) return false;
    const int64_t end = std::min(total_, next_ + kSliceRows);
    for (ColumnRangeReader& column : columns_) {
      TRIB_ASSIGN_OR_RETURN(ColumnVector v, column.Read(next_, end));
      slice_.push_back(std::move(v));
    }
    // The file is read once, a slice at a time: the pages read need not stay in memory (a
    // mapped file's count in the process's resident memory while they do).
    reader_->ReleasePages();
    slice_first_ = next_;
    slice_rows_ = static_cast<size_t>(end - next_);
    next_ = end;
    return true;
  }

  ParquetReaderPtr reader_;
  std::string path_;
  int32_t level_;
  std::set<int64_t> deleted_;
  std::vector<ColumnRangeReader> columns_;  // _SEQUENCE_NUMBER, _VALUE_KIND, then every field
  int64_t total_ = 0;                       // the file's rows
  int64_t next_ = 0;                        // the first row of the next slice
  std::vector<ColumnVector> slice_;
  int64_t slice_first_ = 0;  // the file row of the slice's first row
  size_t slice_rows_ = 0, pos_ = 0;
};

}  // namespace

Result<std::unique_ptr<merge::RecordSource>> OpenSlicedRecords(const DataFileRef& file,
                                                               const FileLayout& layout,
                                                               int32_t level,
                                                               const std::set<int64_t>* deleted) {
  if (!ReadsColumns(file.path)) return std::unique_ptr<merge::RecordSource>();
  TRIB_ASSIGN_OR_RETURN(ParquetReaderPtr reader, OpenParquet(file));
  std::optional<std::vector<int>> cols = RecordColumns(*reader, layout);
  if (!cols) return std::unique_ptr<merge::RecordSource>();
  return std::unique_ptr<merge::RecordSource>(std::make_unique<SlicedRecords>(
      std::move(reader), *cols, file.path, level, deleted ? *deleted : std::set<int64_t>()));
}

}  // namespace tributary::datafile
