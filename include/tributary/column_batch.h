// ColumnBatch: rows stored column by column, as scans hand them out for analytic work
// (TableScan::NextColumns): integers, floating-point numbers and strings in plain typed vectors,
// every other type as Values.
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary {

// Strings stored back to back in one buffer (a column's string arena): value i is
// chars()[offsets()[i], offsets()[i + 1]). Used like a std::vector of strings whose elements are
// read as views; appending copies the bytes. A view stays valid until the next append or clear.
class StringVector {
 public:
  StringVector() : offsets_{0} {}
  StringVector(std::initializer_list<std::string_view> values) : StringVector() {
    for (std::string_view v : values) push_back(v);
  }
  explicit StringVector(const std::vector<std::string>& values) : StringVector() {
    for (const std::string& v : values) push_back(v);
  }
  StringVector(const StringVector&) = default;
  StringVector& operator=(const StringVector&) = default;
  // A moved-from vector is empty (and usable), not offset-less.
  StringVector(StringVector&& o) noexcept
      : chars_(std::move(o.chars_)), offsets_(std::move(o.offsets_)) {
    o.chars_.clear();
    o.offsets_.assign(1, 0);
  }
  StringVector& operator=(StringVector&& o) noexcept {
    if (this != &o) {
      chars_ = std::move(o.chars_);
      offsets_ = std::move(o.offsets_);
      o.chars_.clear();
      o.offsets_.assign(1, 0);
    }
    return *this;
  }
  bool operator==(const StringVector& o) const {
    return chars_ == o.chars_ && offsets_ == o.offsets_;
  }
  size_t size() const { return offsets_.size() - 1; }
  bool empty() const { return offsets_.size() == 1; }
  std::string_view operator[](size_t i) const {
    return std::string_view(chars_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  std::string_view back() const { return (*this)[size() - 1]; }
  void push_back(std::string_view s) {
    chars_.append(s.data(), s.size());
    offsets_.push_back(chars_.size());
  }
  void emplace_back(std::string_view s) { push_back(s); }
  // Every value of `other`, after these.
  void append(const StringVector& other);
  // Values `rows[0..n)` of `other` (not *this), after these.
  void append_rows(const StringVector& other, const uint32_t* rows, size_t n);
  // Keeps values `rows[0..n)`, strictly ascending, in place (the storage stays).
  void keep_rows(const uint32_t* rows, size_t n);
  // Room for `n` values (and, when given, `bytes` bytes of them) in all.
  void reserve(size_t n, size_t bytes = 0) {
    offsets_.reserve(n + 1);
    if (bytes > 0) chars_.reserve(bytes);
  }
  size_t capacity() const { return offsets_.capacity() - 1; }
  // Bytes of values the storage holds without growing.
  size_t bytes_capacity() const { return chars_.capacity(); }
  void clear() {
    chars_.clear();
    offsets_.resize(1);
  }
  // Keeps the first `n` values. REQUIRES: n <= size().
  void truncate(size_t n) {
    chars_.resize(offsets_[n]);
    offsets_.resize(n + 1);
  }
  const char* chars() const { return chars_.data(); }
  const uint64_t* offsets() const { return offsets_.data(); }
  // Bytes of the values, and of the storage held.
  size_t bytes() const { return chars_.size(); }
  size_t memory_bytes() const { return chars_.capacity() + offsets_.capacity() * sizeof(uint64_t); }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string_view;
    const_iterator(const StringVector* v, size_t i) : v_(v), i_(i) {}
    std::string_view operator*() const { return (*v_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const StringVector* v_;
    size_t i_;
  };
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size()); }

 private:
  std::string chars_;
  std::vector<uint64_t> offsets_;  // size() + 1 entries, the first 0
};

// One column of a batch. Exactly one of ints/doubles/strings/values is used, by `rep`:
//   kInt:    BOOLEAN (0/1), TINYINT..BIGINT, DATE (days), TIME (millis of day)
//   kDouble: FLOAT, DOUBLE
//   kString: CHAR, VARCHAR, BINARY, VARBINARY (one string arena: `strings`)
//   kValue:  every other type (DECIMAL, TIMESTAMP, nested types)
// A NULL row holds a placeholder (0, 0.0, "" or a NULL Value) in the used vector.
struct ColumnVector {
  enum class Rep : uint8_t { kInt, kDouble, kString, kValue };
  static Rep RepOf(const DataType& type);

  DataType type;
  Rep rep = Rep::kValue;
  std::vector<int64_t> ints;
  std::vector<double> doubles;
  StringVector strings;
  std::vector<Value> values;
  std::vector<uint8_t> nulls;  // empty: no NULLs; else one per row, 1 = NULL

  size_t size() const;
  bool IsNull(size_t i) const { return !nulls.empty() && nulls[i] != 0; }
  // Row i as a Value (as a row scan returns it).
  Value Get(size_t i) const;
  // Appends `v` (of this column's type, or NULL).
  void Append(const Value& v);
  // Appends row `r` of `from` (same type and rep).
  void AppendRow(const ColumnVector& from, size_t r);
  // Appends rows `rows` of `from` (same type and rep).
  void AppendRows(const ColumnVector& from, const std::vector<uint32_t>& rows);
  // Appends every row of `from` (same type and rep), moving its strings and Values.
  void AppendAll(ColumnVector&& from);
  // Keeps rows `rows` (strictly ascending) in place, the storage kept for later appends.
  void KeepRows(const std::vector<uint32_t>& rows);
  // Room for `n` rows in the used vector.
  void Reserve(size_t n);
  void Clear();
};

struct ColumnBatch {
  std::vector<ColumnVector> columns;  // in the scan's output_fields() order
  size_t num_rows = 0;
  void Clear() {
    columns.clear();
    num_rows = 0;
  }
};

}  // namespace tributary
