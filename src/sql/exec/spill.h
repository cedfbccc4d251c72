// Spilling: where a query's ORDER BY and GROUP BY put what does not fit their memory limits
// (issue 38, docs/memory.md). A SpillFile is a temporary file on local disk holding column
// batches of one schema as segments, each a small Parquet file of its own (the writer Tributary
// writes data files with, LZ4-compressed), so a segment is read back whole without reading the
// rest; a reader holds one segment at a time.
// The file is unlinked as soon as it is created: it takes disk space only while the query runs
// and a crash leaves nothing behind.
// Internal to sql/.
// Thread-safety: a SpillFile is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sql/exec/operators.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/types.h"

namespace tributary::sql {

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
  // Writes what is still pending; the file can then be read (and no longer appended to).
  Status Finish();

  int64_t rows() const { return rows_; }
  size_t segments() const { return segments_.size(); }
  // Bytes on disk.
  int64_t bytes() const { return end_; }
  // Segment `i` (REQUIRES: Finish was called), each column in its scan representation
  // (ColumnVector::RepOf of its field's type).
  Result<ColumnBatch> Read(size_t i) const;
  const std::vector<Field>& fields() const { return fields_; }

 private:
  SpillFile() = default;
  Status WritePending();

  std::vector<Field> fields_;
  std::string path_;  // for errors (unlinked)
  int fd_ = -1;
  size_t segment_rows_ = 0;
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

// The rows of one spill file, a segment per batch (the input of a spilled partition's GROUP BY
// or DISTINCT).
class SpillSourceOperator : public Operator {
 public:
  SpillSourceOperator(std::vector<Field> fields, std::unique_ptr<SpillFile> file)
      : cursor_(std::move(file)) {
    fields_ = std::move(fields);
  }
  std::string Describe() const override { return "Spilled rows"; }
  Result<bool> Next(ColumnBatch* out) override;

 private:
  SpillCursor cursor_;
};

// Rows spilled in partitions by a hash of their keys, then handed out partition by partition
// through an operator over each (the GROUP BY or DISTINCT of the partition, one level deeper:
// each level hashes differently, so rows one level put together the next may separate).
class SpilledPartitions {
 public:
  static constexpr size_t kPartitions = 16;
  // For rows of `fields`, spilled to `spill`'s directories, at partitioning level `depth`.
  SpilledPartitions(std::vector<Field> fields, SpillOptions spill, int depth)
      : fields_(std::move(fields)), spill_(std::move(spill)), depth_(depth) {}
  // Appends rows `rows` of `in` to their partitions, by their values in `keys` (columns as long
  // as `in`'s).
  Status Add(const ColumnBatch& in, const std::vector<ColumnVector>& keys,
             const std::vector<uint32_t>& rows);
  // Ends the appends (before Next).
  Status Finish();
  int64_t rows() const { return rows_; }
  // The next batch of the operator `make` builds over each partition's rows in turn (skipping
  // empty ones); false once every partition is handed out.
  using MakeOperator = std::function<OperatorPtr(OperatorPtr partition_rows)>;
  Result<bool> Next(const MakeOperator& make, ColumnBatch* out);

 private:
  std::vector<Field> fields_;
  SpillOptions spill_;
  int depth_;
  std::vector<std::unique_ptr<SpillFile>> files_;
  size_t next_ = 0;
  OperatorPtr current_;  // over the partition being handed out
  int64_t rows_ = 0;
};

// Bytes spilled by the queries of this process so far, and spill files made (SHOW STATS,
// tests).
int64_t SpilledBytesTotal();
int64_t SpillFilesTotal();

}  // namespace tributary::sql
