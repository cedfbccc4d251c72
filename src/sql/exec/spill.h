// Spilling in queries: ORDER BY, GROUP BY, DISTINCT and set operations put what does not fit
// their memory limits in spill files (datafile/spill_file.h; issue 38, docs/memory.md), read
// back through the operators here.
// Internal to sql/.
// Thread-safety: each object is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "datafile/spill_file.h"
#include "sql/exec/operators.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/types.h"

namespace tributary::sql {

using datafile::SpillCursor;
using datafile::SpillDirs;
using datafile::SpilledBytesTotal;
using datafile::SpillFile;
using datafile::SpillFilesTotal;

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
  // Appends rows `rows` of `in` to partition `p` (mod the partitions), whatever their keys.
  Status AddTo(size_t p, const ColumnBatch& in, const std::vector<uint32_t>& rows);
  // Ends the appends (before Next).
  Status Finish();
  int64_t rows() const { return rows_; }
  // The next batch of the operator `make` builds over each partition's rows in turn (skipping
  // empty ones); false once every partition is handed out.
  using MakeOperator = std::function<OperatorPtr(OperatorPtr partition_rows)>;
  Result<bool> Next(const MakeOperator& make, ColumnBatch* out);
  // Partition `p`'s rows (REQUIRES: Finish was called; taken once), null when none were added.
  std::unique_ptr<SpillFile> Take(size_t p);

 private:
  std::vector<Field> fields_;
  SpillOptions spill_;
  int depth_;
  Status Open(size_t p);  // partition p's file, at its first rows
  std::vector<std::unique_ptr<SpillFile>> files_;
  size_t next_ = 0;
  OperatorPtr current_;  // over the partition being handed out
  int64_t rows_ = 0;
};

}  // namespace tributary::sql
