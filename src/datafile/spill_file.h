// Spill files: where what outgrows its memory goes on local disk (issue 38, docs/memory.md): a
// query's ORDER BY, GROUP BY, DISTINCT and set operations, a writer's buffer. A SpillFile is a
// temporary file holding column batches of one schema as segments, each a small Parquet file of
// its own (the writer Tributary writes data files with, LZ4-compressed), so a segment is read
// back whole without reading the rest; a reader holds one segment at a time.
// The file is unlinked as soon as it is created: it takes disk space only while it is used and
// a crash leaves nothing behind.
// Thread-safety: a SpillFile is appended to by one thread at a time; once nothing appends, Read
// may be called from several threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/compression.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/types.h"

namespace tributary::datafile {

// Where spill files go: the local directories of 'io.tmp.dirs' (Flink's key: directories
// separated by ',' or ':', used in turn); empty: $TMPDIR, else /tmp.
struct SpillOptions {
  std::vector<std::string> dirs;
  // Of each segment ('spill-compression' for a writer's spills).
  format::CompressionCodec compression = format::CompressionCodec::kLz4Raw;
};

// The directories of an 'io.tmp.dirs' value (empty: $TMPDIR, else /tmp).
std::vector<std::string> SpillDirs(const std::string& option_value);

class SpillFile {
 public:
  // A new empty file for batches of `fields` (columns in that order, of those types), in the
  // next of `options`' directories. Rows are written in segments of `segment_rows` rows
  // (the last one may be shorter). An error names the directory.
  static Result<std::unique_ptr<SpillFile>> Create(const std::vector<Field>& fields,
                                                   const SpillOptions& options,
                                                   size_t segment_rows);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  // Appends rows [begin, end) of `batch` (its columns those of the fields, any representation).
  Status Append(const ColumnBatch& batch, size_t begin, size_t end);
  // Appends rows `rows` of `batch`.
  Status AppendRows(const ColumnBatch& batch, const std::vector<uint32_t>& rows);
  // Appends rows `rows` of `columns` (one per field, each at least as long as the rows say).
  Status AppendRows(const std::vector<const ColumnVector*>& columns,
                    const std::vector<uint32_t>& rows);
  // Writes the rows appended so far as segments (the last one may be short): they can be read
  // while more rows are appended after them.
  Status Flush() { return WritePending(); }
  // Writes what is still pending; the file can then be read (and no longer appended to).
  Status Finish();

  int64_t rows() const { return rows_; }
  size_t segments() const { return segments_.size(); }
  // Bytes on disk.
  int64_t bytes() const { return end_; }
  // Segment `i` (REQUIRES: Finish or Flush was called after its rows), each column in its scan
  // representation (ColumnVector::RepOf of its field's type).
  Result<ColumnBatch> Read(size_t i) const;
  const std::vector<Field>& fields() const { return fields_; }

 private:
  SpillFile() = default;
  Status WritePending();

  std::vector<Field> fields_;
  std::string path_;  // for errors (unlinked)
  int fd_ = -1;
  size_t segment_rows_ = 0;
  format::CompressionCodec compression_ = format::CompressionCodec::kLz4Raw;
  ColumnBatch pending_;
  struct Segment {
    int64_t offset = 0, length = 0;
  };
  std::vector<Segment> segments_;
  int64_t end_ = 0;
  int64_t rows_ = 0;
  bool finished_ = false;
};

// Reads a SpillFile's segments in order, one held at a time.
class SpillCursor {
 public:
  explicit SpillCursor(std::unique_ptr<SpillFile> file) : file_(std::move(file)) {}
  // Moves to the next segment; false at the end.
  Result<bool> NextSegment();
  const ColumnBatch& batch() const { return batch_; }

 private:
  std::unique_ptr<SpillFile> file_;
  size_t next_ = 0;
  ColumnBatch batch_;
};

// Bytes spilled by this process so far, spill files made and segments written (SHOW STATS,
// tests).
int64_t SpilledBytesTotal();
int64_t SpillFilesTotal();
int64_t SpillSegmentsTotal();

}  // namespace tributary::datafile
