#include "sql/vector_eval.h"

#include <cmath>
#include <cstring>

#include "sql/cast.h"

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
void KeepCompared(const Values& values, const std::vector<uint8_t>& nulls,
                  const std::string& op, const T& k, std::vector<uint32_t>* rows) {
  size_t out = 0;
  const bool has_nulls = !nulls.empty();
  for (uint32_t r : *rows) {
    if (has_nulls && nulls[r]) continue;
    if (Holds(op, Compare(values[r], k))) (*rows)[out++] = r;
  }
  rows->resize(out);
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
