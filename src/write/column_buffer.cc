#include "write/column_buffer.h"

#include <algorithm>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/memory_budget.h"
#include "format/parquet/writer.h"
#include "tributary/column_batch.h"

namespace tributary::write {

using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;

bool ColumnWriteBuffer::Supports(const std::vector<Field>& fields) {
  for (const Field& f : fields) {
    if (f.type.IsNested()) return false;
  }
  return true;
}

ColumnWriteBuffer::ColumnWriteBuffer(const std::vector<Field>& fields) : fields_(fields) {
  for (const Field& f : fields_) {
    ColumnVector c;
    c.type = f.type;
    // Booleans as Values: the Parquet writer takes them as such.
    c.rep = f.type.id == TypeId::kBoolean ? Rep::kValue : ColumnVector::RepOf(f.type);
    columns_.push_back(std::move(c));
  }
}

// Appends to `v`, adding to `*memory` what a reallocation adds to its capacity.
template <typename V, typename T>
inline void PushCounted(V& v, T&& x, int64_t* memory) {
  const size_t before = v.capacity();
  v.push_back(std::forward<T>(x));
  if (v.capacity() != before) {
    *memory += static_cast<int64_t>((v.capacity() - before) * sizeof(typename V::value_type));
  }
}

void ColumnWriteBuffer::Add(RowKind kind, const Row& row) {
  const size_t n = kinds_.size();
  for (size_t i = 0; i < columns_.size(); ++i) {
    ColumnVector& c = columns_[i];
    const Value& v = row[i];
    const bool null = v.is_null();
    if (null || !c.nulls.empty()) {
      const size_t before = c.nulls.capacity();
      c.nulls.resize(n, 0);  // the first NULL: the records before it were not
      c.nulls.push_back(null ? 1 : 0);
      memory_ += static_cast<int64_t>(c.nulls.capacity() - before);
    }
    switch (c.rep) {
      case Rep::kInt:
        PushCounted(c.ints, null ? 0 : v.int_value(), &memory_);
        break;
      case Rep::kDouble:
        PushCounted(c.doubles, null ? 0.0 : v.double_value(), &memory_);
        break;
      case Rep::kString: {
        const int64_t before = static_cast<int64_t>(c.strings.memory_bytes());
        c.strings.push_back(null ? std::string_view() : std::string_view(v.string_value()));
        memory_ += static_cast<int64_t>(c.strings.memory_bytes()) - before;
        break;
      }
      case Rep::kValue:
        PushCounted(c.values, v, &memory_);
        // What a Value keeps outside itself (a long string, a decimal's digits): as written.
        if (v.is_string()) memory_ += static_cast<int64_t>(v.string_value().size());
        break;
    }
  }
  PushCounted(kinds_, static_cast<uint8_t>(kind), &memory_);
  bytes_ = memory_;
}

int64_t ColumnWriteBuffer::GrowthOf(const Row& row) const {
  int64_t growth = 0;
  const size_t n = kinds_.size();
  // Every record adds one entry to each column's vector and to kinds_: they fill up together.
  const bool rows_full = n == kinds_.capacity();
  const size_t more_rows = std::max<size_t>(n, 1);           // doubling adds as many again
  if (rows_full) growth += static_cast<int64_t>(more_rows);  // kinds_
  for (size_t i = 0; i < columns_.size(); ++i) {
    const ColumnVector& c = columns_[i];
    const Value& v = row[i];
    if (!c.nulls.empty() && c.nulls.size() == c.nulls.capacity()) {
      growth += static_cast<int64_t>(std::max<size_t>(c.nulls.size(), 1));
    } else if (c.nulls.empty() && v.is_null() && c.nulls.capacity() < n + 1) {
      // The first NULL: a flag for every record (resized to n, then doubled by the push), in
      // what capacity the flags kept across Clear.
      growth += static_cast<int64_t>(n == 0 ? 1 : 2 * n) - static_cast<int64_t>(c.nulls.capacity());
    }
    switch (c.rep) {
      case Rep::kInt:
        if (c.ints.size() == c.ints.capacity()) {
          growth += static_cast<int64_t>(more_rows * sizeof(int64_t));
        }
        break;
      case Rep::kDouble:
        if (c.doubles.size() == c.doubles.capacity()) {
          growth += static_cast<int64_t>(more_rows * sizeof(double));
        }
        break;
      case Rep::kString: {
        if (c.strings.size() == c.strings.capacity()) {  // its n + 1 offsets, doubled
          growth += static_cast<int64_t>((c.strings.size() + 1) * sizeof(uint64_t));
        }
        const size_t len = v.is_null() ? 0 : v.string_value().size();
        const size_t bytes = c.strings.bytes(), cap = c.strings.bytes_capacity();
        if (bytes + len > cap) growth += static_cast<int64_t>(std::max(cap, bytes + len - cap));
        break;
      }
      case Rep::kValue:
        if (c.values.size() == c.values.capacity()) {
          growth += static_cast<int64_t>(more_rows * sizeof(Value));
        }
        break;
    }
  }
  return growth;
}

void ColumnWriteBuffer::Clear(bool release_memory) {
  // A small buffer keeps its memory for the next records (no page faults refilling it); a
  // large one gives it back, so a writer with many buckets does not hold each one's peak.
  // Under the process's memory pressure (its writers' buffers past their share) every buffer
  // gives its memory back.
  constexpr int64_t kKeepBytes = int64_t{8} << 20;
  const bool release =
      release_memory || memory_ > kKeepBytes || MemoryBudget::Instance().BuffersOverLimit();
  auto reset = [release](auto& v) {
    if (release) {
      v = std::remove_reference_t<decltype(v)>();
    } else {
      v.clear();
    }
  };
  for (ColumnVector& c : columns_) {
    reset(c.ints);
    reset(c.doubles);
    reset(c.strings);
    reset(c.values);
    reset(c.nulls);
  }
  reset(kinds_);
  if (release) memory_ = 0;  // else the capacity kept is counted again once records come
  bytes_ = 0;
}

int ColumnWriteBuffer::Compare(const ColumnVector& c, uint32_t a, uint32_t b) const {
  const bool na = !c.nulls.empty() && c.nulls[a], nb = !c.nulls.empty() && c.nulls[b];
  if (na || nb) return na == nb ? 0 : (na ? -1 : 1);  // NULL first, as CompareValues
  switch (c.rep) {
    case Rep::kInt:
      return c.ints[a] < c.ints[b] ? -1 : (c.ints[a] > c.ints[b] ? 1 : 0);
    case Rep::kDouble:
      return CompareValues(Value::Double(c.doubles[a]), Value::Double(c.doubles[b]));
    case Rep::kString: {
      int r = c.strings[a].compare(c.strings[b]);
      return r < 0 ? -1 : (r > 0 ? 1 : 0);
    }
    case Rep::kValue:
      return CompareValues(c.values[a], c.values[b]);
  }
  return 0;
}

std::vector<uint32_t> ColumnWriteBuffer::SortedByKey(const std::vector<int>& key_columns) const {
  const size_t n = kinds_.size();
  std::vector<uint32_t> order(n);
  if (key_columns.size() == 1 && columns_[key_columns[0]].rep == Rep::kInt &&
      columns_[key_columns[0]].nulls.empty()) {
    // One integer key: sort (key, position) pairs, small and contiguous. Positions break ties,
    // so equal keys stay in arrival order.
    const std::vector<int64_t>& keys = columns_[key_columns[0]].ints;
    std::vector<std::pair<int64_t, uint32_t>> sorted(n);
    for (uint32_t i = 0; i < n; ++i) sorted[i] = {keys[i], i};
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < n; ++i) order[i] = sorted[i].second;
    return order;
  }
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return CompareKeys(key_columns, a, b) < 0; });
  return order;
}

int ColumnWriteBuffer::CompareKeys(const std::vector<int>& key_columns, uint32_t a,
                                   uint32_t b) const {
  for (int k : key_columns) {
    int c = Compare(columns_[k], a, b);
    if (c != 0) return c;
  }
  return 0;
}

Result<bool> ColumnWriteBuffer::Merge(const std::vector<int>& key_columns, int64_t first_seq,
                                      ColumnMergePlan* plan, ColumnMergeOutput* out,
                                      std::vector<uint32_t>* order) {
  std::vector<uint32_t> all = SortedByKey(key_columns);
  const uint32_t null_row = static_cast<uint32_t>(kinds_.size());
  plan->Start(columns_.size(), out);
  // The records of one key, in the order they were written (their sequence order).
  struct Group {
    const ColumnWriteBuffer* b;
    const uint32_t* members;
    size_t n;
    int64_t first_seq;
    size_t size() const { return n; }
    RowKind kind(size_t m) const { return b->kind(members[m]); }
    int64_t seq(size_t m) const { return first_seq + members[m]; }
    uint32_t row(size_t m) const { return members[m]; }
    bool IsNull(size_t c, size_t m) const { return b->columns_[c].IsNull(members[m]); }
    Value Get(size_t c, size_t m) const { return b->Get(c, members[m]); }
  };
  size_t i = 0;
  while (i < all.size()) {
    size_t j = i + 1;
    while (j < all.size() && CompareKeys(key_columns, all[i], all[j]) == 0) j++;
    TRIB_ASSIGN_OR_RETURN(bool merged, plan->Merge(Group{this, all.data() + i, j - i, first_seq},
                                                   nullptr, null_row, out));
    if (!merged) return false;
    i = j;
  }
  if (plan->kind() == ColumnMergePlan::Kind::kPartialUpdate) {
    Add(RowKind::kInsert, Row(columns_.size()));  // the NULL record
  }
  if (order != nullptr) *order = std::move(all);
  return true;
}

Value ColumnWriteBuffer::Get(size_t c, size_t r) const { return columns_[c].Get(r); }

std::vector<format::ColumnValues> ColumnWriteBuffer::Columns() const {
  std::vector<format::ColumnValues> out(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    const ColumnVector& c = columns_[i];
    format::ColumnValues& o = out[i];
    switch (c.rep) {
      case Rep::kInt:
        o.ints = c.ints.data();
        break;
      case Rep::kDouble:
        o.doubles = c.doubles.data();
        break;
      case Rep::kString:
        o.chars = c.strings.chars();
        o.offsets = c.strings.offsets();
        break;
      case Rep::kValue:
        o.values = c.values.data();
        break;
    }
    if (!c.nulls.empty()) o.nulls = c.nulls.data();
  }
  return out;
}

Row ColumnWriteBuffer::GetRow(size_t r) const {
  Row row;
  for (size_t c = 0; c < columns_.size(); c++) row.push_back(Get(c, r));
  return row;
}

}  // namespace tributary::write
