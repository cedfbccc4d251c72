// KeyValue: one record of a primary-key table as it moves through the write buffer, data files,
// merge readers and compaction: the full row, its row kind and its sequence number. The key is
// the trimmed primary key columns of `value` (see KeyComparator).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tributary/value.h"

namespace tributary::merge {

struct KeyValue {
  int64_t sequence = 0;
  RowKind kind = RowKind::kInsert;
  Row value;
  int32_t level = 0;  // the level of the file the record came from (used by compaction/changelog)
  // Static partial-column writes: which columns this record wrote (null = every column). The
  // columns it did not write keep their stored values when merged.
  std::shared_ptr<const std::vector<bool>> write_mask;
};

// The columns either of two records wrote (null: every column, when either wrote every column).
inline std::shared_ptr<const std::vector<bool>> UnionWriteMask(
    const std::shared_ptr<const std::vector<bool>>& a,
    const std::shared_ptr<const std::vector<bool>>& b) {
  if (!a || !b) return nullptr;
  auto m = std::make_shared<std::vector<bool>>(*a);
  for (size_t i = 0; i < m->size() && i < b->size(); i++) (*m)[i] = (*m)[i] || (*b)[i];
  return m;
}

// CompareValues with the common cases (two integers, two strings) inlined: key comparisons and
// column statistics run it for every record.
inline int FastCompare(const Value& a, const Value& b) {
  if (a.is_int() && b.is_int()) {
    int64_t x = a.int_value(), y = b.int_value();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    int c = a.string_value().compare(b.string_value());
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return CompareValues(a, b);
}

// Drops the records of one file (in file order: record i is row i) whose row `deleted(i)` says
// a deletion vector deletes.
template <typename Deleted>
void DropDeletedRows(std::vector<KeyValue>* records, const Deleted& deleted) {
  size_t kept = 0;
  for (size_t i = 0; i < records->size(); i++) {
    if (deleted(static_cast<int64_t>(i))) continue;
    if (kept != i) (*records)[kept] = std::move((*records)[i]);
    kept++;
  }
  records->resize(kept);
}

// Compares records by the key columns of `value`. Thread-safe (immutable).
class KeyComparator {
 public:
  explicit KeyComparator(std::vector<int> key_columns) : key_columns_(std::move(key_columns)) {}
  int Compare(const Row& a, const Row& b) const {
    for (int c : key_columns_) {
      int r = FastCompare(a[c], b[c]);
      if (r != 0) return r;
    }
    return 0;
  }
  const std::vector<int>& key_columns() const { return key_columns_; }

 private:
  std::vector<int> key_columns_;
};

}  // namespace tributary::merge
