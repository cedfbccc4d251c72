// The records of a Parquet data file a slice of rows at a time (OpenSlicedRecords): what a
// compaction's merge reads from each input, so that it holds a slice of each file instead of
// every file decoded whole (issue 38).
#include <set>

#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/parquet_file.h"
#include "merge/sort_merge_reader.h"

namespace tributary::datafile {

namespace {

using format::parquet::RowRanges;

// Rows decoded at once: a few pages of each column (pages hold about 20,000 rows), so that a
// page is decoded about once however the slices cut it.
constexpr int64_t kSliceRows = 65536;

class SlicedRecords : public merge::RecordSource {
 public:
  SlicedRecords(ParquetReaderPtr reader, std::vector<int> cols, std::string path, int32_t level,
                std::set<int64_t> deleted)
      : reader_(std::move(reader)),
        cols_(std::move(cols)),
        path_(std::move(path)),
        level_(level),
        deleted_(std::move(deleted)) {}

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
  // The next slice of rows (within one row group); false at the end of the file.
  Result<bool> ReadSlice() {
    while (rg_ < reader_->num_row_groups()) {
      const int64_t rows = reader_->metadata().row_groups[rg_].num_rows;
      if (rg_row_ >= rows) {
        group_start_ += rows;
        rg_++;
        rg_row_ = 0;
        continue;
      }
      const int64_t end = std::min(rows, rg_row_ + kSliceRows);
      const RowRanges range = {{rg_row_, end}};
      TRIB_ASSIGN_OR_RETURN(slice_, reader_->ReadRowGroupVectors(rg_, cols_, &range));
      // The file is read once, a slice at a time: the pages read need not stay in memory (a
      // mapped file's count in the process's resident memory while they do).
      reader_->ReleasePages();
      slice_first_ = group_start_ + rg_row_;
      slice_rows_ = static_cast<size_t>(end - rg_row_);
      for (const ColumnVector& c : slice_) {
        if (c.size() != slice_rows_) {
          return Status::Corruption("data file '" + path_ + "': a column of row group " +
                                    std::to_string(rg_) + " holds another number of rows");
        }
      }
      rg_row_ = end;
      pos_ = 0;
      return true;
    }
    slice_.clear();
    slice_rows_ = pos_ = 0;
    return false;
  }

  ParquetReaderPtr reader_;
  std::vector<int> cols_;  // _SEQUENCE_NUMBER, _VALUE_KIND, then every table field
  std::string path_;
  int32_t level_;
  std::set<int64_t> deleted_;
  int rg_ = 0;
  int64_t rg_row_ = 0, group_start_ = 0;
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
  return std::unique_ptr<merge::RecordSource>(
      std::make_unique<SlicedRecords>(std::move(reader), std::move(*cols), file.path, level,
                                      deleted ? *deleted : std::set<int64_t>()));
}

}  // namespace tributary::datafile
