#include "tributary/column_batch.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "common/column_rep.h"

namespace tributary {

ColumnVector TypedColumn(const DataType& type) {
  ColumnVector c;
  c.type = type;
  c.rep = ColumnVector::RepOf(type);
  return c;
}

ColumnVector Canonical(ColumnVector&& col) {
  const ColumnVector::Rep want = ColumnVector::RepOf(col.type);
  if (col.rep == want) return std::move(col);
  ColumnVector out;
  out.type = col.type;
  out.rep = want;
  const size_t n = col.size();
  out.Reserve(n);
  for (size_t r = 0; r < n; r++) out.Append(col.Get(r));
  return out;
}

void StringVector::append(const StringVector& other) {
  const uint64_t base = chars_.size();
  const size_t n = other.offsets_.size();  // before: `other` may be *this
  chars_.append(other.chars_);             // std::string appends itself correctly
  for (size_t i = 1; i < n; i++) offsets_.push_back(base + other.offsets_[i]);
}

void StringVector::append_rows(const StringVector& other, const uint32_t* rows, size_t n) {
  size_t bytes = 0;
  for (size_t i = 0; i < n; i++) bytes += other.offsets_[rows[i] + 1] - other.offsets_[rows[i]];
  // Grown by doubling, as push_back would: an exact reserve per call copies the whole arena
  // every call.
  if (chars_.size() + bytes > chars_.capacity()) {
    chars_.reserve(std::max(chars_.size() + bytes, 2 * chars_.capacity()));
  }
  if (offsets_.size() + n > offsets_.capacity()) {
    offsets_.reserve(std::max(offsets_.size() + n, 2 * offsets_.capacity()));
  }
  for (size_t i = 0; i < n; i++) {
    const uint64_t begin = other.offsets_[rows[i]];
    chars_.append(other.chars_.data() + begin, other.offsets_[rows[i] + 1] - begin);
    offsets_.push_back(chars_.size());
  }
}

void StringVector::keep_rows(const uint32_t* rows, size_t n) {
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++) {
    const uint64_t begin = offsets_[rows[i]], len = offsets_[rows[i] + 1] - begin;
    if (begin != end) std::memmove(chars_.data() + end, chars_.data() + begin, len);
    end += len;
    offsets_[i + 1] = end;
  }
  chars_.resize(end);
  offsets_.resize(n + 1);
}

ColumnVector::Rep ColumnVector::RepOf(const DataType& type) {
  switch (type.id) {
    case TypeId::kBoolean:
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
    case TypeId::kDate:
    case TypeId::kTime:
      return Rep::kInt;
    case TypeId::kFloat:
    case TypeId::kDouble:
      return Rep::kDouble;
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return Rep::kString;
    default:
      return Rep::kValue;
  }
}

size_t ColumnVector::size() const {
  switch (rep) {
    case Rep::kInt:
      return ints.size();
    case Rep::kDouble:
      return doubles.size();
    case Rep::kString:
      return strings.size();
    case Rep::kValue:
      return values.size();
  }
  return 0;
}

Value ColumnVector::Get(size_t i) const {
  if (IsNull(i)) return Value::Null();
  switch (rep) {
    case Rep::kInt:
      return type.id == TypeId::kBoolean ? Value::Bool(ints[i] != 0) : Value::Int(ints[i]);
    case Rep::kDouble:
      return Value::Double(doubles[i]);
    case Rep::kString:
      return Value::String(std::string(strings[i]));
    case Rep::kValue:
      return values[i];
  }
  return Value::Null();
}

void ColumnVector::Append(const Value& v) {
  const size_t n = size();
  if (v.is_null()) {
    if (nulls.empty()) nulls.assign(n, 0);
    nulls.push_back(1);
  } else if (!nulls.empty()) {
    nulls.push_back(0);
  }
  switch (rep) {
    case Rep::kInt:
      ints.push_back(v.is_null() ? 0 : v.is_bool() ? (v.bool_value() ? 1 : 0) : v.int_value());
      break;
    case Rep::kDouble:
      doubles.push_back(v.is_null() ? 0.0 : v.double_value());
      break;
    case Rep::kString:
      strings.push_back(v.is_null() ? std::string_view() : std::string_view(v.string_value()));
      break;
    case Rep::kValue:
      values.push_back(v);
      break;
  }
}

void ColumnVector::AppendRow(const ColumnVector& from, size_t r) {
  if (!from.nulls.empty() || !nulls.empty()) {
    if (nulls.empty()) nulls.assign(size(), 0);
    nulls.push_back(from.IsNull(r) ? 1 : 0);
  }
  switch (rep) {
    case Rep::kInt:
      ints.push_back(from.ints[r]);
      break;
    case Rep::kDouble:
      doubles.push_back(from.doubles[r]);
      break;
    case Rep::kString:
      strings.push_back(from.strings[r]);
      break;
    case Rep::kValue:
      values.push_back(from.values[r]);
      break;
  }
}

void ColumnVector::AppendRows(const ColumnVector& from, const std::vector<uint32_t>& rows) {
  if (!from.nulls.empty() || !nulls.empty()) {
    if (nulls.empty()) nulls.assign(size(), 0);
    for (uint32_t r : rows) nulls.push_back(from.IsNull(r) ? 1 : 0);
  }
  // A gather into room made first (no capacity check per row).
  auto gather = [&rows](auto& to, const auto& src) {
    const size_t at = to.size();
    to.resize(at + rows.size());
    auto* out = to.data() + at;
    for (size_t i = 0; i < rows.size(); i++) out[i] = src[rows[i]];
  };
  switch (rep) {
    case Rep::kInt:
      gather(ints, from.ints);
      break;
    case Rep::kDouble:
      gather(doubles, from.doubles);
      break;
    case Rep::kString:
      strings.append_rows(from.strings, rows.data(), rows.size());
      break;
    case Rep::kValue:
      for (uint32_t r : rows) values.push_back(from.values[r]);
      break;
  }
}

void ColumnVector::KeepRows(const std::vector<uint32_t>& rows) {
  const size_t n = rows.size();
  auto keep = [&](auto& v) {
    for (size_t i = 0; i < n; i++) {
      if (rows[i] != i) v[i] = std::move(v[rows[i]]);
    }
    v.resize(n);
  };
  if (!nulls.empty()) keep(nulls);
  switch (rep) {
    case Rep::kInt:
      keep(ints);
      break;
    case Rep::kDouble:
      keep(doubles);
      break;
    case Rep::kString:
      strings.keep_rows(rows.data(), n);
      break;
    case Rep::kValue:
      keep(values);
      break;
  }
}

void ColumnVector::AppendAll(ColumnVector&& from) {
  const size_t n = size(), m = from.size();
  if (!from.nulls.empty() || !nulls.empty()) {
    nulls.resize(n, 0);
    if (from.nulls.empty()) {
      nulls.resize(n + m, 0);
    } else {
      nulls.insert(nulls.end(), from.nulls.begin(), from.nulls.end());
    }
  }
  ints.insert(ints.end(), from.ints.begin(), from.ints.end());
  doubles.insert(doubles.end(), from.doubles.begin(), from.doubles.end());
  if (strings.empty()) {
    strings = std::move(from.strings);
  } else {
    strings.append(from.strings);
  }
  values.insert(values.end(), std::make_move_iterator(from.values.begin()),
                std::make_move_iterator(from.values.end()));
}

void ColumnVector::Reserve(size_t n) {
  switch (rep) {
    case Rep::kInt:
      ints.reserve(n);
      break;
    case Rep::kDouble:
      doubles.reserve(n);
      break;
    case Rep::kString:
      strings.reserve(n);
      break;
    case Rep::kValue:
      values.reserve(n);
      break;
  }
}

void ColumnVector::Clear() {
  ints.clear();
  doubles.clear();
  strings.clear();
  values.clear();
  nulls.clear();
}

}  // namespace tributary
