#include "sql/exec/vector_eval.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

#include "sql/binder/cast.h"

namespace tributary::sql {

namespace {

// The columns `e` reads, as a list.
std::vector<int> ColumnsOf(const BoundExpr& e, size_t width) {
  std::vector<bool> used(width, false);
  CollectColumns(e, &used);
  std::vector<int> out;
  for (size_t c = 0; c < used.size(); c++) {
    if (used[c]) out.push_back(static_cast<int>(c));
  }
  return out;
}

// Row `r` of `batch` with only `columns` filled (the others NULL): what Evaluate reads.
void FillRow(const ColumnBatch& batch, const std::vector<int>& columns, size_t r, Row* row) {
  for (int c : columns) (*row)[c] = batch.columns[c].Get(r);
}

// -1, 0, 1 as CompareSame orders two non-NULL values of one representation.
int Compare(int64_t a, int64_t b) { return a < b ? -1 : a > b ? 1 : 0; }
int Compare(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
  return x < y ? -1 : x > y ? 1 : 0;
}
int Compare(std::string_view x, std::string_view y) {
  const size_t n = std::min(x.size(), y.size());
  const int c = n ? std::memcmp(x.data(), y.data(), n) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

bool Holds(const std::string& op, int c) {
  if (op == "=") return c == 0;
  if (op == "<>") return c != 0;
  if (op == "<") return c < 0;
  if (op == "<=") return c <= 0;
  if (op == ">") return c > 0;
  return c >= 0;
}

// The comparison with its sides swapped: 5 < x is x > 5.
std::string Mirror(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op;
}

// Keeps the rows of `rows` whose value in `values` compares `op` with `k`.
template <typename Values, typename T>
void KeepCompared(const Values& values, const std::vector<uint8_t>& nulls, const std::string& op,
                  const T& k, std::vector<uint32_t>* rows) {
  size_t out = 0;
  const bool has_nulls = !nulls.empty();
  for (uint32_t r : *rows) {
    if (has_nulls && nulls[r]) continue;
    if (Holds(op, Compare(values[r], k))) (*rows)[out++] = r;
  }
  rows->resize(out);
}

// ---- numeric expressions on whole vectors

// An operand of a numeric expression computed on vectors: a column of the batch (not copied), a
// column computed from it, or a constant.
struct Operand {
  bool constant = false;  // else a column: `ref`, or `owned` when computed
  bool null_constant = false;
  bool double_constant = false;
  int64_t i = 0;
  double d = 0;
  const ColumnVector* ref = nullptr;
  ColumnVector owned;

  const ColumnVector& col() const { return ref ? *ref : owned; }
  bool IsNull(size_t r) const { return constant ? null_constant : col().IsNull(r); }
  bool HasNulls() const { return constant ? null_constant : !col().nulls.empty(); }
  // Integer values (or a NULL constant, which fits either kind).
  bool Ints() const { return constant ? !double_constant : col().rep == ColumnVector::Rep::kInt; }
  bool Doubles() const {
    return constant ? double_constant || null_constant : col().rep == ColumnVector::Rep::kDouble;
  }
  int64_t Int(size_t r) const { return constant ? i : col().ints[r]; }
  double Double(size_t r) const { return constant ? d : col().doubles[r]; }
};

std::optional<Operand> VectorOperand(const BoundExpr& e, const ColumnBatch& batch);

// The bounds of an integer type's values.
void IntegerRange(TypeId id, int64_t* lo, int64_t* hi) {
  switch (id) {
    case TypeId::kTinyInt:
      *lo = -128;
      *hi = 127;
      break;
    case TypeId::kSmallInt:
      *lo = -32768;
      *hi = 32767;
      break;
    case TypeId::kInt:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      break;
    default:
      *lo = INT64_MIN;
      *hi = INT64_MAX;
  }
}

// x op y (+ - * / %, as EvalArithmetic computes it) into *v; false for a division by zero.
template <typename T>
bool Apply(char op, T x, T y, T* v) {
  switch (op) {
    case '+':
      *v = x + y;
      return true;
    case '-':
      *v = x - y;
      return true;
    case '*':
      *v = x * y;
      return true;
    case '/':
      if (y == 0) return false;
      *v = x / y;
      return true;
    case '%':
      if (y == 0) return false;
      if constexpr (std::is_floating_point_v<T>) {
        *v = std::fmod(x, y);
      } else {
        *v = x % y;
      }
      return true;
  }
  return false;
}

// `e` (+ - * / % of two integer or two floating-point operands) for every row; nullopt when an
// operand is not a vector operand or a row fails (overflow, division by zero: the row path then
// says which, as Evaluate does).
std::optional<ColumnVector> VectorArithmetic(const BoundExpr& e, const ColumnBatch& batch) {
  const bool integer = e.type.IsInteger(), floating = e.type.IsFloating();
  if ((!integer && !floating) || e.args.size() != 2 || e.op.size() != 1) return std::nullopt;
  std::optional<Operand> a = VectorOperand(*e.args[0], batch);
  if (!a) return std::nullopt;
  std::optional<Operand> b = VectorOperand(*e.args[1], batch);
  if (!b) return std::nullopt;
  const bool ints = integer && e.args[0]->type.IsInteger() && e.args[1]->type.IsInteger() &&
                    a->Ints() && b->Ints();
  const bool doubles = floating && e.args[0]->type.IsFloating() && e.args[1]->type.IsFloating() &&
                       a->Doubles() && b->Doubles();
  if (!ints && !doubles) return std::nullopt;
  const size_t n = batch.num_rows;
  ColumnVector out;
  out.type = e.type;
  out.rep = ints ? ColumnVector::Rep::kInt : ColumnVector::Rep::kDouble;
  const bool any_null = a->HasNulls() || b->HasNulls();
  if (any_null) {
    out.nulls.resize(n);
    for (size_t r = 0; r < n; r++) out.nulls[r] = a->IsNull(r) || b->IsNull(r);
  }
  const char op = e.op[0];
  if (ints) {
    out.ints.resize(n);
    int64_t lo, hi;
    IntegerRange(e.type.id, &lo, &hi);
    for (size_t r = 0; r < n; r++) {
      if (any_null && out.nulls[r]) continue;
      __int128 v = 0;
      if (!Apply<__int128>(op, a->Int(r), b->Int(r), &v) || v < lo || v > hi) return std::nullopt;
      out.ints[r] = static_cast<int64_t>(v);
    }
    return out;
  }
  out.doubles.resize(n);
  const bool to_float = e.type.id == TypeId::kFloat;
  for (size_t r = 0; r < n; r++) {
    if (any_null && out.nulls[r]) continue;
    double v = 0;
    if (!Apply<double>(op, a->Double(r), b->Double(r), &v)) return std::nullopt;
    out.doubles[r] = to_float ? static_cast<double>(static_cast<float>(v)) : v;
  }
  return out;
}

std::optional<Operand> VectorOperand(const BoundExpr& e, const ColumnBatch& batch) {
  Operand o;
  if (e.IsConstant()) {
    o.constant = true;
    if (e.constant.is_null()) {
      o.null_constant = true;
    } else if (e.constant.is_int() && e.type.IsInteger()) {
      o.i = e.constant.int_value();
    } else if (e.constant.is_double() && e.type.IsFloating()) {
      o.d = e.constant.double_value();
      o.double_constant = true;
    } else {
      return std::nullopt;
    }
    return o;
  }
  if (e.kind == BoundKind::kColumn) {
    const ColumnVector& c = batch.columns[e.column];
    const bool ok = (c.rep == ColumnVector::Rep::kInt && e.type.IsInteger()) ||
                    (c.rep == ColumnVector::Rep::kDouble && e.type.IsFloating());
    if (!ok) return std::nullopt;
    o.ref = &c;
    return o;
  }
  std::optional<ColumnVector> computed;
  if (e.kind == BoundKind::kArithmetic || e.kind == BoundKind::kNegate) {
    computed = VectorArithmetic(e, batch);
  } else if (e.kind == BoundKind::kCast && e.args[0]->type.IsInteger() &&
             (e.type.id == TypeId::kDouble ||
              (e.type.IsInteger() && IntegerRank(e.type.id) >= IntegerRank(e.args[0]->type.id)))) {
    // Casts that cannot fail: an integer to DOUBLE or to a wider integer type.
    std::optional<Operand> from = VectorOperand(*e.args[0], batch);
    if (!from || from->constant) return std::nullopt;
    const ColumnVector& f = from->col();
    if (f.rep != ColumnVector::Rep::kInt) return std::nullopt;
    ColumnVector c;
    c.type = e.type;
    c.nulls = f.nulls;
    if (e.type.IsInteger()) {
      c.rep = ColumnVector::Rep::kInt;
      c.ints = f.ints;
    } else {
      c.rep = ColumnVector::Rep::kDouble;
      c.doubles.assign(f.ints.begin(), f.ints.end());
    }
    computed = std::move(c);
  }
  if (!computed) return std::nullopt;
  o.owned = std::move(*computed);
  return o;
}

// Narrows `rows` to those where `p` is TRUE: directly for `column op constant` and IS [NOT]
// NULL of a column, row by row otherwise.
Status Narrow(const BoundExpr& p, const ColumnBatch& batch, std::vector<uint32_t>* rows) {
  if (rows->empty()) return Status::OK();
  if (p.kind == BoundKind::kAnd) {
    for (const auto& a : p.args) TRIB_RETURN_NOT_OK(Narrow(*a, batch, rows));
    return Status::OK();
  }
  if (p.kind == BoundKind::kIsNull && p.args[0]->kind == BoundKind::kColumn) {
    const ColumnVector& col = batch.columns[p.args[0]->column];
    size_t out = 0;
    for (uint32_t r : *rows) {
      if (col.IsNull(r) != p.negated) (*rows)[out++] = r;
    }
    rows->resize(out);
    return Status::OK();
  }
  if (p.kind == BoundKind::kCompare) {
    const BoundExpr* col_side = nullptr;
    const BoundExpr* const_side = nullptr;
    std::string op = p.op;
    if (p.args[0]->kind == BoundKind::kColumn && p.args[1]->IsConstant()) {
      col_side = p.args[0].get();
      const_side = p.args[1].get();
    } else if (p.args[1]->kind == BoundKind::kColumn && p.args[0]->IsConstant()) {
      col_side = p.args[1].get();
      const_side = p.args[0].get();
      op = Mirror(op);
    }
    if (col_side != nullptr) {
      const ColumnVector& col = batch.columns[col_side->column];
      const Value& k = const_side->constant;
      if (k.is_null()) {
        rows->clear();  // comparing with NULL is never TRUE
        return Status::OK();
      }
      if (col.rep == ColumnVector::Rep::kInt && (k.is_int() || k.is_bool())) {
        const int64_t kv = k.is_bool() ? (k.bool_value() ? 1 : 0) : k.int_value();
        KeepCompared(col.ints, col.nulls, op, kv, rows);
        return Status::OK();
      }
      if (col.rep == ColumnVector::Rep::kDouble && k.is_double()) {
        KeepCompared(col.doubles, col.nulls, op, k.double_value(), rows);
        return Status::OK();
      }
      if (col.rep == ColumnVector::Rep::kString && k.is_string()) {
        KeepCompared(col.strings, col.nulls, op, std::string_view(k.string_value()), rows);
        return Status::OK();
      }
    }
  }
  if (p.kind == BoundKind::kCompare) {
    // Numeric operands on vectors (two columns, arithmetic, casts): compared row by row here.
    std::optional<Operand> a = VectorOperand(*p.args[0], batch);
    std::optional<Operand> b = a ? VectorOperand(*p.args[1], batch) : std::nullopt;
    if (a && b && !(a->constant && b->constant)) {
      if ((a->constant && a->null_constant) || (b->constant && b->null_constant)) {
        rows->clear();  // comparing with NULL is never TRUE
        return Status::OK();
      }
      const bool ints = a->Ints() && b->Ints(), doubles = a->Doubles() && b->Doubles();
      if (ints || doubles) {
        const bool nulls = a->HasNulls() || b->HasNulls();
        size_t out = 0;
        for (uint32_t r : *rows) {
          if (nulls && (a->IsNull(r) || b->IsNull(r))) continue;
          const int c = ints ? Compare(a->Int(r), b->Int(r)) : Compare(a->Double(r), b->Double(r));
          if (Holds(p.op, c)) (*rows)[out++] = r;
        }
        rows->resize(out);
        return Status::OK();
      }
    }
  }
  const std::vector<int> columns = ColumnsOf(p, batch.columns.size());
  Row row(batch.columns.size());
  size_t out = 0;
  for (uint32_t r : *rows) {
    FillRow(batch, columns, r, &row);
    TRIB_ASSIGN_OR_RETURN(bool keep, EvaluatePredicate(p, row));
    if (keep) (*rows)[out++] = r;
  }
  rows->resize(out);
  return Status::OK();
}

}  // namespace

ColumnVector ValueColumn(const DataType& type) {
  ColumnVector c;
  c.type = type;
  c.rep = ColumnVector::Rep::kValue;
  return c;
}

Result<ColumnVector> EvaluateBatch(const BoundExpr& e, const ColumnBatch& batch) {
  const size_t n = batch.num_rows;
  if (e.kind == BoundKind::kColumn) {
    ColumnVector out = batch.columns[e.column];
    out.type = e.type;
    return out;
  }
  // Computed values are kept as Values: exactly what Evaluate returned, whatever the type.
  ColumnVector out = ValueColumn(e.type);
  out.Reserve(n);
  if (e.IsConstant()) {
    for (size_t r = 0; r < n; r++) out.Append(e.constant);
    return out;
  }
  if (e.kind == BoundKind::kArithmetic || e.kind == BoundKind::kNegate ||
      e.kind == BoundKind::kCast) {
    std::optional<Operand> v = VectorOperand(e, batch);
    if (v && !v->constant) {
      if (v->ref) return *v->ref;
      return std::move(v->owned);
    }
  }
  const std::vector<int> columns = ColumnsOf(e, batch.columns.size());
  Row row(batch.columns.size());
  for (size_t r = 0; r < n; r++) {
    FillRow(batch, columns, r, &row);
    TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(e, row));
    out.Append(v);
  }
  return out;
}

Result<std::vector<uint32_t>> SelectRows(const std::vector<BoundExprPtr>& predicates,
                                         const ColumnBatch& batch) {
  std::vector<uint32_t> rows(batch.num_rows);
  for (size_t r = 0; r < rows.size(); r++) rows[r] = static_cast<uint32_t>(r);
  for (const auto& p : predicates) TRIB_RETURN_NOT_OK(Narrow(*p, batch, &rows));
  return rows;
}

ColumnBatch TakeRows(ColumnBatch&& batch, const std::vector<uint32_t>& rows) {
  if (rows.size() == batch.num_rows) return std::move(batch);
  return CopyRows(batch, rows);
}

ColumnBatch CopyRows(const ColumnBatch& batch, const std::vector<uint32_t>& rows) {
  ColumnBatch out;
  out.num_rows = rows.size();
  out.columns.reserve(batch.columns.size());
  for (const ColumnVector& c : batch.columns) {
    ColumnVector kept;
    kept.type = c.type;
    kept.rep = c.rep;
    kept.Reserve(rows.size());
    kept.AppendRows(c, rows);
    out.columns.push_back(std::move(kept));
  }
  return out;
}

}  // namespace tributary::sql
