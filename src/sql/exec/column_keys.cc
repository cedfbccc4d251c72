#include "sql/exec/column_keys.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "sql/binder/cast.h"
#include "sql/exec/operators.h"

namespace tributary::sql {

void AppendColumnKey(const ColumnVector& col, size_t r, std::string* out) {
  auto raw = [&](const void* p, size_t n) { out->append(static_cast<const char*>(p), n); };
  if (col.IsNull(r)) {
    out->push_back('N');
    return;
  }
  switch (col.rep) {
    case ColumnVector::Rep::kInt: {
      if (col.type.id == TypeId::kBoolean) {
        out->push_back(col.ints[r] != 0 ? 'T' : 'F');
        return;
      }
      out->push_back('I');
      raw(&col.ints[r], sizeof(int64_t));
      return;
    }
    case ColumnVector::Rep::kDouble: {
      double d = col.doubles[r];
      if (d == 0) d = 0;  // -0.0 groups with 0.0
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      out->push_back('D');
      raw(&d, sizeof(d));
      return;
    }
    case ColumnVector::Rep::kString: {
      const std::string_view s = col.strings[r];
      const uint64_t n = s.size();
      out->push_back('S');
      raw(&n, sizeof(n));
      out->append(s);
      return;
    }
    case ColumnVector::Rep::kValue:
      AppendKey(col.values[r], out);
      return;
  }
}

int64_t ApproxColumnBytes(const ColumnVector& col) {
  int64_t n = static_cast<int64_t>(col.ints.size() * sizeof(int64_t) +
                                   col.doubles.size() * sizeof(double) + col.strings.bytes() +
                                   col.strings.size() * sizeof(uint64_t) + col.nulls.size());
  for (const Value& v : col.values) n += ApproxBytes(v);
  return n;
}

int64_t ColumnStorageBytes(const ColumnVector& col) {
  return static_cast<int64_t>(col.ints.capacity() * sizeof(int64_t) +
                              col.doubles.capacity() * sizeof(double) + col.strings.memory_bytes() +
                              col.values.capacity() * sizeof(Value) + col.nulls.capacity());
}

int CompareColumnRows(const ColumnVector& a, size_t i, const ColumnVector& b, size_t j) {
  const bool an = a.IsNull(i), bn = b.IsNull(j);
  if (an || bn) return an == bn ? 0 : (an ? -1 : 1);
  switch (a.rep) {
    case ColumnVector::Rep::kInt: {
      const int64_t x = a.ints[i], y = b.ints[j];
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case ColumnVector::Rep::kDouble: {
      const double x = a.doubles[i], y = b.doubles[j];
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case ColumnVector::Rep::kString: {
      const std::string_view x = a.strings[i], y = b.strings[j];
      const int c = x.compare(y);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case ColumnVector::Rep::kValue:
      return CompareSame(a.values[i], b.values[j]);
  }
  return 0;
}

namespace {

// Bytes of a map node holding an integer key and a group number (next pointer, key, value; an
// allocator size class), and of one holding a string key (next pointer, std::string, value,
// cached hash).
constexpr int64_t kIntEntryBytes = 32;
constexpr int64_t kStringEntryBytes = 64;

}  // namespace

int64_t StringHeapBytes(size_t length) {
  // std::string keeps up to 15 characters inline; longer ones take an allocation of about the
  // length plus the terminator, rounded up to 16.
  return length <= 15 ? 0 : static_cast<int64_t>((length + 16) & ~size_t{15});
}

int64_t ValueHeapBytes(const Value& v) {
  if (v.is_string()) return StringHeapBytes(v.string_value().size());
  return v.is_nested() ? ApproxBytes(v) - static_cast<int64_t>(sizeof(Value)) : 0;
}

int64_t GroupIndex::ApproxBytes() const {
  return entry_bytes_ +
         static_cast<int64_t>((ints_.bucket_count() + bytes_.bucket_count()) * sizeof(void*));
}

namespace {

// Calls visit(map, key, row) for each of the `n` rows of `keys`, with the map of `index` that
// holds the row's key: `ints` for one integer key column (its NULL in `bytes` as "N"), else
// `bytes` with the row's byte key (AppendColumnKey of each column).
template <typename Ints, typename Bytes, typename Visit>
void VisitKeys(Ints& ints, Bytes& bytes, const std::vector<const ColumnVector*>& keys, size_t n,
               Visit&& visit) {
  if (keys.size() == 1 && keys[0]->rep == ColumnVector::Rep::kInt) {
    const ColumnVector& k = *keys[0];
    const std::string null_key("N");
    for (size_t r = 0; r < n; r++) {
      if (k.IsNull(r)) {
        visit(bytes, null_key, r);  // the NULL group
      } else {
        visit(ints, k.ints[r], r);
      }
    }
    return;
  }
  std::string key;
  for (size_t r = 0; r < n; r++) {
    key.clear();
    for (const ColumnVector* k : keys) AppendColumnKey(*k, r, &key);
    visit(bytes, key, r);
  }
}

}  // namespace

void GroupIndex::Assign(const std::vector<const ColumnVector*>& keys, size_t n,
                        std::vector<uint32_t>* groups, std::vector<uint32_t>* first_rows) {
  groups->resize(n);
  first_rows->clear();
  VisitKeys(ints_, bytes_, keys, n, [&](auto& map, const auto& key, size_t r) {
    auto [it, inserted] = map.try_emplace(key, count_);
    if (inserted) {
      first_rows->push_back(static_cast<uint32_t>(r));
      ++count_;
      if constexpr (std::is_same_v<std::decay_t<decltype(map)>, decltype(ints_)>) {
        entry_bytes_ += kIntEntryBytes;
      } else {
        entry_bytes_ += kStringEntryBytes + StringHeapBytes(it->first.size());
      }
    }
    (*groups)[r] = it->second;
  });
}

void GroupIndex::Find(const std::vector<const ColumnVector*>& keys, size_t n,
                      std::vector<uint32_t>* groups) const {
  groups->assign(n, kNoGroup);
  VisitKeys(ints_, bytes_, keys, n, [&](const auto& map, const auto& key, size_t r) {
    auto it = map.find(key);
    if (it != map.end()) (*groups)[r] = it->second;
  });
}

}  // namespace tributary::sql
