#include "datafile/spill_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "common/column_rep.h"
#include "datafile/data_file.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"

namespace tributary::datafile {

namespace {

std::atomic<int64_t> spilled_bytes{0};
std::atomic<int64_t> spill_files{0};
std::atomic<int64_t> spill_segments{0};
std::atomic<uint64_t> next_dir{0};

std::string ErrnoText() { return std::strerror(errno); }

// The columns of a segment file: c0, c1, ... (query columns may share names), all nullable.
std::vector<Field> SegmentFields(const std::vector<Field>& fields) {
  std::vector<Field> out;
  out.reserve(fields.size());
  for (size_t i = 0; i < fields.size(); i++) {
    out.push_back(Field{static_cast<int32_t>(i), "c" + std::to_string(i),
                        fields[i].type.WithNullable(true), ""});
  }
  return out;
}

}  // namespace

std::vector<std::string> SpillDirs(const std::string& option_value) {
  std::vector<std::string> dirs;
  std::string cur;
  for (char ch : option_value + ",") {
    if (ch == ',' || ch == ':') {
      while (!cur.empty() && cur.back() == ' ') cur.pop_back();
      size_t b = cur.find_first_not_of(' ');
      if (b != std::string::npos) dirs.push_back(cur.substr(b));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (dirs.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    dirs.push_back(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  }
  return dirs;
}

Result<std::unique_ptr<SpillFile>> SpillFile::Create(const std::vector<Field>& fields,
                                                     const SpillOptions& options,
                                                     size_t segment_rows) {
  std::vector<std::string> dirs = options.dirs.empty() ? SpillDirs("") : options.dirs;
  const std::string& dir = dirs[next_dir.fetch_add(1) % dirs.size()];
  std::string path = dir + "/tributary-spill-XXXXXX";
  const int fd = ::mkostemp(path.data(), O_CLOEXEC);  // not inherited by programs started
  if (fd < 0) {
    return Status::IOError("cannot create a spill file in '" + dir + "' (" + ErrnoText() +
                           "); set 'io.tmp.dirs' to a writable local directory");
  }
  ::unlink(path.c_str());  // gone when closed, also after a crash
  std::unique_ptr<SpillFile> f(new SpillFile());
  f->fields_ = fields;
  f->path_ = path;
  f->fd_ = fd;
  f->segment_rows_ = std::max<size_t>(1, segment_rows);
  f->compression_ = options.compression;
  for (const Field& field : fields) f->pending_.columns.push_back(TypedColumn(field.type));
  spill_files.fetch_add(1, std::memory_order_relaxed);
  return f;
}

SpillFile::~SpillFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status SpillFile::Append(const ColumnBatch& batch, size_t begin, size_t end) {
  std::vector<uint32_t> rows(end - begin);
  std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(begin));
  return AppendRows(batch, rows);
}

Status SpillFile::AppendRows(const ColumnBatch& batch, const std::vector<uint32_t>& rows) {
  std::vector<const ColumnVector*> columns;
  for (const ColumnVector& c : batch.columns) columns.push_back(&c);
  return AppendRows(columns, rows);
}

Status SpillFile::AppendRows(const std::vector<const ColumnVector*>& columns,
                             const std::vector<uint32_t>& rows) {
  if (finished_) return Status::Internal("spill file: append after Finish");
  if (columns.size() != fields_.size()) {
    return Status::Internal("spill file: " + std::to_string(columns.size()) + " columns for " +
                            std::to_string(fields_.size()) + " fields");
  }
  size_t done = 0;
  std::vector<uint32_t> part;
  while (done < rows.size()) {
    const size_t n = std::min(rows.size() - done, segment_rows_ - pending_.num_rows);
    part.assign(rows.begin() + static_cast<std::ptrdiff_t>(done),
                rows.begin() + static_cast<std::ptrdiff_t>(done + n));
    for (size_t c = 0; c < fields_.size(); c++) {
      const ColumnVector& col = *columns[c];
      if (col.rep == ColumnVector::RepOf(col.type)) {
        pending_.columns[c].AppendRows(col, part);
      } else {  // Values (row-by-row evaluation's): converted as they are appended
        for (uint32_t r : part) pending_.columns[c].Append(col.Get(r));
      }
    }
    pending_.num_rows += n;
    done += n;
    if (pending_.num_rows >= segment_rows_) TRIB_RETURN_NOT_OK(WritePending());
  }
  return Status::OK();
}

Status SpillFile::WritePending() {
  if (pending_.num_rows == 0) return Status::OK();
  format::parquet::ParquetWriterOptions o;
  o.compression = compression_;
  o.dictionary = false;
  o.row_group_size = INT64_MAX;  // a segment is one row group
  TRIB_ASSIGN_OR_RETURN(auto writer,
                        format::parquet::ParquetWriter::Make(SegmentFields(fields_), o));
  bool flat = true;
  for (const Field& f : fields_) flat = flat && !f.type.IsNested();
  if (flat) {
    std::vector<format::ColumnValues> cols;
    for (const ColumnVector& c : pending_.columns) cols.push_back(ColumnValuesOf(c));
    TRIB_RETURN_NOT_OK(writer->AppendColumns(cols, pending_.num_rows));
  } else {
    Row row(fields_.size());
    for (size_t r = 0; r < pending_.num_rows; r++) {
      for (size_t c = 0; c < fields_.size(); c++) row[c] = pending_.columns[c].Get(r);
      TRIB_RETURN_NOT_OK(writer->Append(row));
    }
  }
  TRIB_ASSIGN_OR_RETURN(std::string bytes, writer->Finish());
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t w = ::pwrite(fd_, bytes.data() + written, bytes.size() - written,
                               static_cast<off_t>(end_ + static_cast<int64_t>(written)));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      return Status::IOError("cannot write spill file '" + path_ + "' (" + ErrnoText() +
                             "); free space there or set 'io.tmp.dirs' to another directory");
    }
    written += static_cast<size_t>(w);
  }
  segments_.push_back(Segment{end_, static_cast<int64_t>(bytes.size())});
  spill_segments.fetch_add(1, std::memory_order_relaxed);
  end_ += static_cast<int64_t>(bytes.size());
  rows_ += static_cast<int64_t>(pending_.num_rows);
  spilled_bytes.fetch_add(static_cast<int64_t>(bytes.size()), std::memory_order_relaxed);
  for (ColumnVector& c : pending_.columns) c.Clear();
  pending_.num_rows = 0;
  return Status::OK();
}

Status SpillFile::Finish() {
  if (finished_) return Status::OK();
  TRIB_RETURN_NOT_OK(WritePending());
  finished_ = true;
  pending_.Clear();
  return Status::OK();
}

Result<ColumnBatch> SpillFile::Read(size_t i) const {
  const Segment& s = segments_.at(i);
  std::string bytes(static_cast<size_t>(s.length), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t r = ::pread(fd_, bytes.data() + got, bytes.size() - got,
                              static_cast<off_t>(s.offset + static_cast<int64_t>(got)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      return Status::IOError("cannot read spill file '" + path_ + "' (" +
                             (r == 0 ? std::string("short file") : ErrnoText()) + ")");
    }
    got += static_cast<size_t>(r);
  }
  TRIB_ASSIGN_OR_RETURN(auto reader, format::parquet::ParquetReader::Open(std::move(bytes)));
  std::vector<int> projection(fields_.size());
  std::iota(projection.begin(), projection.end(), 0);
  ColumnBatch out;
  out.num_rows = static_cast<size_t>(reader->num_rows());
  for (int rg = 0; rg < reader->num_row_groups(); rg++) {
    TRIB_ASSIGN_OR_RETURN(std::vector<ColumnVector> cols,
                          reader->ReadRowGroupVectors(rg, projection));
    for (size_t c = 0; c < cols.size(); c++) {
      cols[c].type = fields_[c].type;
      ColumnVector col = Canonical(std::move(cols[c]));
      if (rg == 0) {
        out.columns.push_back(std::move(col));
      } else {
        out.columns[c].AppendAll(std::move(col));
      }
    }
  }
  if (out.columns.empty()) {
    for (const Field& f : fields_) out.columns.push_back(TypedColumn(f.type));
  }
  return out;
}

Result<bool> SpillCursor::NextSegment() {
  if (next_ >= file_->segments()) {
    batch_.Clear();
    return false;
  }
  TRIB_ASSIGN_OR_RETURN(batch_, file_->Read(next_));
  next_++;
  return true;
}

int64_t SpilledBytesTotal() { return spilled_bytes.load(std::memory_order_relaxed); }
int64_t SpillFilesTotal() { return spill_files.load(std::memory_order_relaxed); }
int64_t SpillSegmentsTotal() { return spill_segments.load(std::memory_order_relaxed); }

}  // namespace tributary::datafile
