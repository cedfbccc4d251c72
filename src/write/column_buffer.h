// ColumnWriteBuffer: the write buffer of a bucket held column by column (DESIGN.md "rows move in
// column batches") in the columns scans hand out (ColumnVector): integers and floating-point
// numbers in typed vectors, strings in one arena per column, other types as Values. A flush sorts
// record indices by key, merges each key's records with the table's ColumnMergePlan and hands the
// columns to the Parquet writer through the merged rows, so no row is rebuilt and strings are read
// from a few contiguous arenas. Thread-safety: single-threaded (one per bucket writer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "merge/column_merge.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary::format {
struct ColumnValues;
}  // namespace tributary::format

namespace tributary::write {

class ColumnWriteBuffer {
 public:
  // Whether the columns can be buffered (flat types only).
  static bool Supports(const std::vector<Field>& fields);
  explicit ColumnWriteBuffer(const std::vector<Field>& fields);

  // Appends one record. REQUIRES: the values were checked against the column types.
  void Add(RowKind kind, const Row& row);
  // The bytes bytes() would grow by if `row` were added now: what the vectors that are full
  // would add by doubling (std::vector's and std::string's growth), else 0. Lets the writer
  // flush a large buffer before a doubling it would flush right after (the doubled memory
  // never used, its bytes copied for nothing).
  int64_t GrowthOf(const Row& row) const;
  size_t size() const { return kinds_.size(); }
  bool empty() const { return kinds_.empty(); }
  // Bytes the buffered records take (what 'write-buffer-size' and the process's memory budget
  // bound): the capacity of the vectors holding them (so a vector's doubling counts), 0 when the
  // buffer is empty (the capacity a small buffer keeps across Clear() counts once records come
  // again).
  int64_t bytes() const { return bytes_; }
  RowKind kind(size_t i) const { return static_cast<RowKind>(kinds_[i]); }
  // Forgets the records, keeping the memory for the next ones (a small buffer's, unless the
  // process is short of memory), or giving it back with `release`.
  void Clear(bool release = false);

  // The indices of every record in key order (the trimmed primary key `key_columns`), records
  // of one key in the order they were written.
  std::vector<uint32_t> SortedByKey(const std::vector<int>& key_columns) const;
  // What a flush writes: the records merged key by key with `plan` into `out` (rows are
  // positions in this buffer; record i has sequence number first_seq + i). A partial-update
  // merge appends a NULL record for columns no record sets (so the buffer must be cleared
  // before more records are added). False when a key needs the row merge. `order`, when
  // given, receives SortedByKey's order (the flush's input changelog needs it too).
  Result<bool> Merge(const std::vector<int>& key_columns, int64_t first_seq,
                     merge::ColumnMergePlan* plan, merge::ColumnMergeOutput* out,
                     std::vector<uint32_t>* order = nullptr);
  // Value of column c of record r.
  Value Get(size_t c, size_t r) const;
  // The buffered columns (one per field), for the Parquet writer.
  std::vector<format::ColumnValues> Columns() const;
  // The same as column vectors (BOOLEAN columns hold Values).
  const std::vector<ColumnVector>& vectors() const { return columns_; }
  // Record i as a row (tests and diagnostics).
  Row GetRow(size_t i) const;

 private:
  using Rep = ColumnVector::Rep;
  int CompareKeys(const std::vector<int>& key_columns, uint32_t a, uint32_t b) const;
  // -1, 0, 1 as CompareValues orders records a and b by column c.
  int Compare(const ColumnVector& c, uint32_t a, uint32_t b) const;

  std::vector<Field> fields_;
  // One per field; `nulls` stays empty until the first NULL. BOOLEAN columns hold Values (the
  // Parquet writer takes them as such).
  std::vector<ColumnVector> columns_;
  std::vector<uint8_t> kinds_;
  int64_t memory_ = 0;  // the capacity of every vector
  int64_t bytes_ = 0;   // memory_ while records are buffered, else 0
};

}  // namespace tributary::write
