// Keys and order over column vectors, so grouping, DISTINCT and sorting read the typed vectors
// of a batch instead of making a Value per cell: a byte key per row (equal exactly when the rows'
// values are equal, as AppendKey of their Values), dense group numbers for the rows of a batch,
// and the comparison of two rows' cells (as CompareSame of their Values).
// Internal to sql/.
// Thread-safety: GroupIndex is used by one thread; the functions are stateless.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/column_rep.h"  // TypedColumn, Canonical
#include "tributary/column_batch.h"

namespace tributary::sql {

// Appends the key of row `r` of `col` to `out` (AppendKey's encoding for every representation,
// so a key made from a column equals the key made from its Value).
void AppendColumnKey(const ColumnVector& col, size_t r, std::string* out);

// The bytes a std::string of `length` characters allocates beyond itself (none when it fits
// inline), roughly (for memory limits).
int64_t StringHeapBytes(size_t length);
// What `v` allocates beyond sizeof(Value), roughly (strings as StringHeapBytes, nested values a
// flat guess as ApproxBytes makes).
int64_t ValueHeapBytes(const Value& v);

// About how many bytes `col` holds (for memory limits).
int64_t ApproxColumnBytes(const ColumnVector& col);
// The bytes of `col`'s storage as allocated (its vectors' capacity), without what its Values
// hold beyond themselves (strings of a kValue column, nested values): cheap, for memory limits
// of columns that grow.
int64_t ColumnStorageBytes(const ColumnVector& col);

// Orders row `i` of `a` and row `j` of `b` (the same type and representation, see Canonical), NULLs
// first, as CompareSame orders their Values.
int CompareColumnRows(const ColumnVector& a, size_t i, const ColumnVector& b, size_t j);

// Gives each distinct combination of key values a number, 0, 1, 2, ... in the order the
// combinations first appear.
class GroupIndex {
 public:
  // The group of each of the `n` rows of `keys` (every column `n` rows long) in `*groups`; the
  // rows that began a new group, ascending, in `*first_rows` (both replaced).
  void Assign(const std::vector<const ColumnVector*>& keys, size_t n, std::vector<uint32_t>* groups,
              std::vector<uint32_t>* first_rows);
  // The group of each of the `n` rows of `keys` in `*groups` (replaced), kNoGroup for a row
  // whose key has none; no group is added.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  void Find(const std::vector<const ColumnVector*>& keys, size_t n,
            std::vector<uint32_t>* groups) const;
  size_t size() const { return count_; }
  // About how many bytes the index holds (its entries, their keys and its buckets), for memory
  // limits; cheap (kept as entries are added).
  int64_t ApproxBytes() const;

 private:
  uint32_t count_ = 0;
  int64_t entry_bytes_ = 0;  // the map nodes and key strings allocated so far
  // One integer key column without NULLs (the common GROUP BY id): a map from the integer.
  std::unordered_map<int64_t, uint32_t> ints_;
  // Every other key: a map from the rows' byte keys (AppendColumnKey of each column).
  std::unordered_map<std::string, uint32_t> bytes_;
};

}  // namespace tributary::sql
