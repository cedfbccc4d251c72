#include "sql/planner/query.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/check_value.h"
#include "common/datetime.h"
#include "common/stack_guard.h"
#include "common/strings.h"
#include "common/timezone.h"
#include "meta/paths.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "read/scan_plan.h"
#include "read/split_read.h"
#include "sql/binder/cast.h"
#include "sql/binder/computed.h"
#include "sql/binder/expression.h"
#include "sql/exec/operators.h"
#include "sql/planner/query_internal.h"
#include "sql/stream/streaming_operators.h"
#include "table/system_tables.h"
#include "tributary/options.h"
#include "tributary/stream_scan.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

namespace planner {

const char* OpName(Predicate::Op op) {
  switch (op) {
    case Predicate::Op::kEq:
      return "=";
    case Predicate::Op::kNe:
      return "<>";
    case Predicate::Op::kLt:
      return "<";
    case Predicate::Op::kLe:
      return "<=";
    case Predicate::Op::kGt:
      return ">";
    case Predicate::Op::kGe:
      return ">=";
    case Predicate::Op::kIsNull:
      return "IS NULL";
    case Predicate::Op::kIsNotNull:
      return "IS NOT NULL";
    case Predicate::Op::kIn:
      return "IN";
  }
  return "?";
}

// A cast that keeps order and equality (so a filter on the cast column is a filter on the column).
bool IsWidening(const DataType& from, const DataType& to) {
  if (from.SameKind(to)) return true;
  if (from.IsInteger() && to.IsFloating()) {
    // Exact only while the integer fits the mantissa (BIGINT does not fit a DOUBLE).
    return DecimalFor(from).precision <= (to.id == TypeId::kDouble ? 15 : 7);
  }
  if (from.IsInteger() && (to.IsInteger() || to.id == TypeId::kDecimal)) {
    return DecimalFor(to).precision >= DecimalFor(from).precision;
  }
  if (from.id == TypeId::kFloat && to.id == TypeId::kDouble) return true;
  if (from.id == TypeId::kDecimal && to.id == TypeId::kDecimal) {
    return to.scale >= from.scale && to.precision - to.scale >= from.precision - from.scale;
  }
  if (from.id == TypeId::kVarChar && to.id == TypeId::kVarChar) return true;
  if (from.id == TypeId::kDate && to.id == TypeId::kTimestamp) return true;
  if (from.id == to.id && from.IsTimestamp()) return to.precision >= from.precision;
  return false;
}

// The table column under `e` (a column, or a widening cast of one); -1 otherwise.
int ColumnUnder(const BoundExpr& e) {
  if (e.kind == BoundKind::kColumn) return e.column;
  if (e.kind == BoundKind::kCast && e.args[0]->kind == BoundKind::kColumn &&
      IsWidening(e.args[0]->type, e.type)) {
    return e.args[0]->column;
  }
  return -1;
}

// Converts a constant of the comparison type to the column's type when nothing is lost.
std::optional<Value> ToColumnValue(const BoundExpr& constant, const DataType& column) {
  if (constant.constant.is_null()) return std::nullopt;
  if (column.id == TypeId::kChar) return std::nullopt;  // padding semantics differ
  auto v = CastValue(constant.constant, constant.type, column, CastMode::kExplicit);
  if (!v.ok()) return std::nullopt;
  auto back = CastValue(*v, column, constant.type, CastMode::kExplicit);
  if (!back.ok() || CompareSame(*back, constant.constant) != 0) return std::nullopt;
  return *v;
}

std::optional<Predicate> ToPredicate(const BoundExpr& c, const std::vector<Field>& fields) {
  if (c.kind == BoundKind::kIsNull) {
    int col = ColumnUnder(*c.args[0]);
    if (col < 0) return std::nullopt;
    Predicate p;
    p.column = col;
    p.op = c.negated ? Predicate::Op::kIsNotNull : Predicate::Op::kIsNull;
    return p;
  }
  if (c.kind == BoundKind::kIn && !c.negated && !c.in_set) {
    int col = ColumnUnder(*c.args[0]);
    if (col < 0) return std::nullopt;
    Predicate p;
    p.column = col;
    p.op = Predicate::Op::kIn;
    for (size_t i = 1; i < c.args.size(); ++i) {
      if (!c.args[i]->IsConstant()) return std::nullopt;
      auto v = ToColumnValue(*c.args[i], fields[col].type);
      if (!v) return std::nullopt;
      p.literals.push_back(*v);
    }
    return p;
  }
  if (c.kind != BoundKind::kCompare) return std::nullopt;
  const BoundExpr* col_side = c.args[0].get();
  const BoundExpr* val_side = c.args[1].get();
  std::string op = c.op;
  if (col_side->IsConstant()) {
    std::swap(col_side, val_side);
    if (op == "<")
      op = ">";
    else if (op == ">")
      op = "<";
    else if (op == "<=")
      op = ">=";
    else if (op == ">=")
      op = "<=";
  }
  if (!val_side->IsConstant()) return std::nullopt;
  int col = ColumnUnder(*col_side);
  if (col < 0) return std::nullopt;
  auto v = ToColumnValue(*val_side, fields[col].type);
  if (!v) return std::nullopt;
  Predicate p;
  p.column = col;
  p.op = op == "="    ? Predicate::Op::kEq
         : op == "<>" ? Predicate::Op::kNe
         : op == "<"  ? Predicate::Op::kLt
         : op == "<=" ? Predicate::Op::kLe
         : op == ">"  ? Predicate::Op::kGt
                      : Predicate::Op::kGe;
  p.literals.push_back(*v);
  return p;
}

void FlattenAnd(BoundExprPtr e, std::vector<BoundExprPtr>* out) {
  if (e->kind == BoundKind::kAnd) {
    FlattenAnd(std::move(e->args[0]), out);
    FlattenAnd(std::move(e->args[1]), out);
    return;
  }
  out->push_back(std::move(e));
}

ScanPlan PlanScan(const std::vector<Field>& fields, const std::vector<BoundExprPtr>& conjuncts,
                  std::vector<bool> used) {
  ScanPlan plan;
  used.resize(fields.size(), false);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (used[i]) plan.projection.push_back(static_cast<int>(i));
  }
  // No column used (COUNT(*)): the scan reads none and counts its rows (batches' num_rows).
  for (const auto& c : conjuncts) {
    auto p = ToPredicate(*c, fields);
    if (!p) {
      plan.all_pushed = false;
      continue;
    }
    std::string text = fields[p->column].name + " " + OpName(p->op);
    for (size_t i = 0; i < p->literals.size(); ++i) {
      text += (i ? ", " : " ") + FormatValue(p->literals[i], fields[p->column].type);
    }
    plan.filter_texts.push_back(std::move(text));
    plan.filters.push_back(std::move(*p));
  }
  return plan;
}

bool IsIntegerLiteral(const Expr& e) {
  return e.kind == ExprKind::kLiteral && e.literal_kind == LiteralKind::kInteger;
}

Result<QueryResult> ExecuteValues(const SelectStmt& q) {
  Scope empty;
  Binder binder(&empty);
  size_t width = q.values[0].size();
  std::vector<std::vector<BoundExprPtr>> bound;
  std::vector<std::vector<DataType>> col_types(width);
  for (const auto& row : q.values) {
    std::vector<BoundExprPtr> b;
    for (size_t c = 0; c < row.size(); ++c) {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr e, binder.Bind(*row[c]));
      if (!e->null_literal) col_types[c].push_back(e->type);
      b.push_back(std::move(e));
    }
    bound.push_back(std::move(b));
  }
  QueryResult out;
  for (size_t c = 0; c < width; ++c) {
    auto t = col_types[c].empty() ? std::optional<DataType>(DataType::String())
                                  : CommonType(col_types[c]);
    if (!t) {
      return ErrorAt(q.values[0][c]->pos,
                     "VALUES column " + std::to_string(c + 1) + " mixes incompatible types");
    }
    bool nullable = col_types[c].size() < q.values.size();
    out.fields.push_back(Field{static_cast<int32_t>(c), "EXPR$" + std::to_string(c),
                               t->WithNullable(nullable || t->nullable), ""});
  }
  Row empty_row;
  for (auto& b : bound) {
    Row r;
    for (size_t c = 0; c < width; ++c) {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr e, CastTo(std::move(b[c]), out.fields[c].type,
                                                   static_cast<int>(CastMode::kExplicit)));
      TRIB_ASSIGN_OR_RETURN(Value v, Evaluate(*e, empty_row));
      r.push_back(std::move(v));
    }
    out.rows.push_back(std::move(r));
  }
  return out;
}

void CollectInputReads(const BoundExpr& e, size_t width, std::vector<BoundExprPtr>* out) {
  if (e.kind == BoundKind::kColumn && e.column >= 0 && static_cast<size_t>(e.column) < width) {
    auto ref = std::make_unique<BoundExpr>();
    ref->kind = BoundKind::kColumn;
    ref->column = e.column;
    ref->type = e.type;
    out->push_back(std::move(ref));
  }
  for (const auto& a : e.args) CollectInputReads(*a, width, out);
}

// The expressions of the window calls that read the input (arguments, partition and order keys).
std::vector<BoundExpr*> WindowExprs(WindowBinding* windows) {
  std::vector<BoundExpr*> out;
  for (WindowCall& c : windows->calls) {
    for (auto& a : c.args) out.push_back(a.get());
    if (c.aggregate.arg) out.push_back(c.aggregate.arg.get());
    for (auto& p : c.partition_by) out.push_back(p.get());
    for (auto& o : c.order_by) out.push_back(o.get());
  }
  return out;
}

// A column reference as an unqualified name of scope column `c` reads it: the column itself, or
// the merged column of a FULL JOIN ... USING.
ExprPtr UsingColumnRef(const Scope& scope, int c, const Pos& pos) {
  auto column = [&](int i) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kColumn;
    e->pos = pos;
    e->names = {scope.columns[i].qualifier, scope.columns[i].name};
    return e;
  };
  const int partner = scope.columns[c].coalesce_with;
  if (partner < 0) return column(c);
  auto call = std::make_unique<Expr>();
  call->kind = ExprKind::kFunction;
  call->op = "COALESCE";
  call->pos = pos;
  call->depth = 2;
  call->args.push_back(column(c));
  call->args.push_back(column(partner));
  return call;
}

// JOIN ... USING (a, b) and NATURAL JOIN (every column name both sides have): the join condition
// is the equality of each pair, and each pair becomes one column for unqualified names and `*`
// (the left one for INNER and LEFT joins, the right one for RIGHT joins, COALESCE of both for
// FULL joins), listed first by `*`, as SQL says. Qualified names still read either side.
Status PlanUsingJoin(const JoinClause& jc, Binder* binder, JoinInput* in, Scope* scope) {
  const size_t first = in->first_slot, end = first + in->source.fields.size();
  auto find = [&](size_t from, size_t to, const std::string& name, bool visible_only) {
    std::vector<int> hits;
    for (int pass = 0; pass < 2 && hits.empty(); pass++) {
      for (size_t s = from; s < to; s++) {
        const ScopeColumn& c = scope->columns[s];
        if (visible_only && c.hidden) continue;
        if (pass == 0 ? c.name == name : EqualsIgnoreCase(c.name, name)) {
          hits.push_back(static_cast<int>(s));
        }
      }
    }
    return hits;
  };
  std::vector<std::string> names = jc.using_columns;
  if (jc.natural) {
    // The left side's order of the names both sides have.
    for (int s : scope->star_order) {
      const std::string& n = scope->columns[s].name;
      if (!find(first, end, n, false).empty() &&
          std::find(names.begin(), names.end(), n) == names.end()) {
        names.push_back(n);
      }
    }
  }
  std::set<std::string> seen;
  std::vector<std::pair<int, int>> pairs;  // (left slot, right slot)
  for (const std::string& name : names) {
    if (!seen.insert(AsciiLower(name)).second) {
      return ErrorAt(jc.using_pos, "column '" + name + "' is named twice in USING");
    }
    std::vector<int> left = find(0, first, name, true), right = find(first, end, name, false);
    if (left.size() != 1 || right.size() != 1) {
      const bool on_left = left.size() != 1;
      const size_t n = on_left ? left.size() : right.size();
      return ErrorAt(jc.using_pos,
                     "column '" + name + "' of " + (jc.natural ? "NATURAL JOIN" : "USING") +
                         (n == 0 ? " is not a column of " : " is ambiguous in ") +
                         (on_left ? "the inputs before the join of '" + in->source.name + "'"
                                  : "'" + in->source.name + "'"));
    }
    for (int s : {left[0], right[0]}) {
      if (scope->columns[s].qualifier.empty()) {
        return NotSupportedAt(jc.using_pos,
                              "USING and NATURAL JOIN over a subquery without an "
                              "alias are not supported yet; give it an alias");
      }
    }
    if (scope->columns[left[0]].coalesce_with >= 0 && jc.kind != JoinKind::kInner &&
        jc.kind != JoinKind::kLeft) {
      return NotSupportedAt(jc.using_pos,
                            "a RIGHT or FULL join USING a column merged by an "
                            "earlier FULL join is not supported yet; write ON");
    }
    pairs.emplace_back(left[0], right[0]);
  }
  std::string text;
  for (const auto& [l, r] : pairs) {
    auto eq = std::make_unique<Expr>();
    eq->kind = ExprKind::kBinary;
    eq->op = "=";
    eq->pos = jc.using_pos;
    eq->args.push_back(UsingColumnRef(*scope, l, jc.using_pos));
    eq->args.push_back(UsingColumnRef(*scope, r, jc.using_pos));
    eq->depth = 1 + std::max(eq->args[0]->depth, eq->args[1]->depth);
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr on, binder->BindPredicate(*eq, "USING"));
    text += (text.empty() ? "" : " AND ") + ExprToString(*eq);
    FlattenAnd(std::move(on), &in->on);
  }
  in->on_text = text;
  if (pairs.empty() && jc.kind == JoinKind::kInner) in->kind = JoinKind::kCross;
  // Merge each pair; `*` lists the merged columns first.
  std::vector<int> order;
  std::set<int> merged;
  for (const auto& [l, r] : pairs) {
    merged.insert(l);
    merged.insert(r);
    if (jc.kind == JoinKind::kRight) {
      scope->columns[l].hidden = true;
      order.push_back(r);
    } else {
      scope->columns[r].hidden = true;
      if (jc.kind == JoinKind::kFull) scope->columns[l].coalesce_with = r;
      order.push_back(l);
    }
  }
  for (int s : scope->star_order) {
    if (!merged.count(s)) order.push_back(s);
  }
  for (size_t s = first; s < end; s++) {
    if (!merged.count(static_cast<int>(s))) order.push_back(static_cast<int>(s));
  }
  scope->star_order = std::move(order);
  return Status::OK();
}

// Whether column `field` of `src` is a processing-time attribute: a computed PROCTIME() column,
// or a column of a subquery passing one through.
bool IsProctime(const Source& src, int field) {
  if (!src.plan || field < 0 || static_cast<size_t>(field) >= src.plan->items.size()) return false;
  const SelectPlan& p = *src.plan;
  const BoundExpr* e = p.items[static_cast<size_t>(field)].get();
  while (e->kind == BoundKind::kCast && e->args.size() == 1) e = e->args[0].get();
  if (e->kind == BoundKind::kFunction && e->op == "PROCTIME") return true;
  if (e->kind == BoundKind::kColumn && p.joins.empty() && !p.grouped) {
    return IsProctime(p.source, e->column);
  }
  return false;
}

// The table column under `e`: a column slot, or a widening cast of one (equal values stay
// equal); -1 otherwise.
int SlotUnder(const BoundExpr& e) {
  const BoundExpr* x = &e;
  while (x->kind == BoundKind::kCast && x->args.size() == 1 &&
         IsWidening(x->args[0]->type, x->type)) {
    x = x->args[0].get();
  }
  return x->kind == BoundKind::kColumn ? x->column : -1;
}

// Join `j` reads its table FOR SYSTEM_TIME AS OF a column (a lookup join, as Flink's): an INNER
// or LEFT join on a processing-time column of the inputs before it, whose ON condition fixes
// every primary-key column of the table by equality with the inputs before it. Marks the join.
Status CheckLookupJoin(const JoinClause& jc, Binder* binder, std::vector<JoinInput>& inputs,
                       size_t j) {
  JoinInput& in = inputs[j];
  const Source& src = in.source;
  const Pos& pos = src.lookup_time->pos;
  if (in.kind != JoinKind::kInner && in.kind != JoinKind::kLeft) {
    return ErrorAt(jc.pos, "a lookup join (FOR SYSTEM_TIME AS OF) is an INNER or LEFT join");
  }
  // The time: a processing-time column of an input before this one.
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr time, binder->Bind(*src.lookup_time));
  const int slot = SlotUnder(*time);
  bool proctime = false;
  for (size_t i = 0; i < j && slot >= 0; i++) {
    const size_t first = inputs[i].first_slot;
    if (static_cast<size_t>(slot) >= first &&
        static_cast<size_t>(slot) < first + inputs[i].source.fields.size()) {
      proctime = IsProctime(inputs[i].source, slot - static_cast<int>(first));
    }
  }
  if (!proctime) {
    return NotSupportedAt(pos, "FOR SYSTEM_TIME AS OF '" + ExprToString(*src.lookup_time) +
                                   "': a lookup join reads the table as of a processing-time "
                                   "column (a computed column AS PROCTIME() of the other side); "
                                   "event-time temporal joins are not supported yet");
  }
  // The table's primary key, each column fixed by an equality with the inputs before; or, when
  // its bucket key is a strict part of the primary key, the bucket key and the partition keys (a
  // prefix lookup: every row of those values).
  const TableSchema* dim_schema = nullptr;
  if (src.table) {
    dim_schema = src.table->schema().get();
  } else if (src.plan && src.plan->source.table) {
    dim_schema = src.plan->source.table->schema().get();
  }
  if (!dim_schema || dim_schema->primary_keys.empty()) {
    return ErrorAt(pos,
                   "a lookup join reads a table by its primary key; '" + src.name + "' has none");
  }
  // The equality in `on` fixing column `name` of this input by the inputs before, or -1.
  auto fixed_by = [&](const std::string& name) -> int {
    int field = -1;
    for (size_t f = 0; f < src.fields.size(); f++) {
      if (src.fields[f].name == name) field = static_cast<int>(f);
    }
    const int key_slot = field < 0 ? -1 : static_cast<int>(in.first_slot) + field;
    for (size_t c = 0; c < in.on.size() && key_slot >= 0; c++) {
      const BoundExpr& e = *in.on[c];
      if (e.kind != BoundKind::kCompare || e.op != "=" || e.args.size() != 2) continue;
      for (int side = 0; side < 2; side++) {
        if (SlotUnder(*e.args[side]) != key_slot) continue;
        std::vector<bool> used;
        CollectColumns(*e.args[1 - side], &used);
        bool before = true;
        for (size_t s = in.first_slot; s < used.size(); s++) before = before && !used[s];
        if (before) return static_cast<int>(c);
      }
    }
    return -1;
  };
  auto try_key = [&](const std::vector<std::string>& names, std::string* missing) {
    in.lookup_keys.clear();
    in.lookup_columns.clear();
    for (const std::string& name : names) {
      const int c = fixed_by(name);
      if (c < 0) {
        *missing += (missing->empty() ? "" : ", ") + name;
      } else {
        in.lookup_keys.push_back(static_cast<size_t>(c));
        in.lookup_columns.push_back(dim_schema->FieldIndex(name));
      }
    }
    return missing->empty();
  };
  std::string missing;
  if (!try_key(dim_schema->primary_keys, &missing)) {
    std::vector<std::string> prefix = dim_schema->BucketKeys();
    const bool strict_prefix = options::IsSet(*dim_schema, options::kBucketKey).has_value() &&
                               prefix.size() < dim_schema->TrimmedPrimaryKeys().size();
    for (const auto& k : dim_schema->partition_keys) prefix.push_back(k);
    std::string prefix_missing;
    if (!strict_prefix || !try_key(prefix, &prefix_missing)) {
      return ErrorAt(jc.pos,
                     "the ON condition of a lookup join must fix every primary-key "
                     "column of '" +
                         src.name + "' by an equality with the other side" +
                         (strict_prefix ? " (or every bucket-key and partition column, a "
                                          "prefix lookup)"
                                        : "") +
                         "; missing: " + missing);
    }
    in.lookup_prefix = true;
  }
  // Its cache options checked in either mode (a batch lookup join reads the table once, whole).
  if (src.table) {
    std::map<std::string, std::string> options = src.table->schema()->options;
    for (const auto& [k, v] : src.dynamic_options) options[k] = v;
    if (auto cache = ParseLookupCacheOptions(options); !cache.ok()) {
      return ErrorAt(jc.pos, cache.status().message());
    }
  }
  in.lookup = true;
  return Status::OK();
}

// The inputs of a FROM with joins, opened, their columns side by side in `scope`, each join's
// ON condition bound (it may read the inputs up to its own).
Status PlanJoinInputs(const QueryContext& session, const SelectStmt& q, SelectPlan* plan) {
  if (!q.from->partition.empty()) {
    return NotSupportedAt(q.from->pos,
                          "PARTITION (...) on a joined table is not supported yet; "
                          "filter the partition in WHERE or ON");
  }
  JoinInput first;
  first.source = std::move(plan->source);
  first.hints_pos = q.from->hints_pos;
  plan->joins.push_back(std::move(first));
  for (const JoinClause& jc : q.joins) {
    if (!jc.table.partition.empty()) {
      return NotSupportedAt(jc.table.pos,
                            "PARTITION (...) on a joined table is not supported "
                            "yet; filter the partition in WHERE or ON");
    }
    JoinInput in;
    TRIB_ASSIGN_OR_RETURN(in.source, OpenSource(session, jc.table));
    in.hints_pos = jc.table.hints_pos;
    in.kind = jc.kind;
    in.pos = jc.pos;
    plan->joins.push_back(std::move(in));
  }
  std::set<std::string> qualifiers;
  for (JoinInput& in : plan->joins) {
    const std::string& qual = in.source.qualifier;
    if (!qual.empty() && !qualifiers.insert(qual).second) {
      return ErrorAt(in.pos, "table name '" + qual + "' is used twice in FROM; give one an alias");
    }
    in.first_slot = plan->scope.columns.size();
    for (const auto& f : in.source.fields) plan->scope.columns.push_back({f.name, qual, f.type});
  }
  for (size_t j = 1; j < plan->joins.size(); j++) {
    if (!q.joins[j - 1].hidden) continue;
    const JoinInput& in = plan->joins[j];
    for (size_t s = 0; s < in.source.fields.size(); s++) {
      plan->scope.columns[in.first_slot + s].hidden = true;
    }
  }
  Binder binder(&plan->scope);
  Scope& scope = plan->scope;
  for (size_t s = 0; s < plan->joins[0].source.fields.size(); s++) {
    scope.star_order.push_back(static_cast<int>(s));
  }
  for (size_t j = 1; j < plan->joins.size(); j++) {
    const JoinClause& jc = q.joins[j - 1];
    JoinInput& in = plan->joins[j];
    const size_t first = in.first_slot, end = first + in.source.fields.size();
    if (jc.natural || !jc.using_columns.empty()) {
      TRIB_RETURN_NOT_OK(PlanUsingJoin(jc, &binder, &in, &scope));
      continue;
    }
    if (!jc.hidden) {
      for (size_t s = first; s < end; s++) scope.star_order.push_back(static_cast<int>(s));
    }
    if (!jc.on) continue;
    if (ContainsAggregate(*jc.on)) {
      return ErrorAt(jc.on->pos, "aggregate functions are not allowed in ON");
    }
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr on, binder.BindPredicate(*jc.on, "ON"));
    std::vector<bool> used(plan->scope.columns.size(), false);
    CollectColumns(*on, &used);
    const size_t visible = in.first_slot + in.source.fields.size();
    for (size_t s = visible; s < used.size(); s++) {
      if (used[s]) {
        return ErrorAt(jc.on->pos, "the ON condition of the join of '" + in.source.name +
                                       "' reads column '" + plan->scope.columns[s].name +
                                       "' of a table joined later");
      }
    }
    in.on_text = ExprToString(*jc.on);
    FlattenAnd(std::move(on), &in.on);
    if (in.source.lookup_time) TRIB_RETURN_NOT_OK(CheckLookupJoin(jc, &binder, plan->joins, j));
  }
  for (size_t j = 1; j < plan->joins.size(); j++) {
    const JoinInput& in = plan->joins[j];
    if (in.source.lookup_time && !in.lookup) {
      return ErrorAt(in.source.lookup_time->pos,
                     "a lookup join needs an ON condition fixing the "
                     "primary key of '" +
                         in.source.name + "'");
    }
  }
  return Status::OK();
}

// The table scan of a query reading one table: the columns read, the filters and LIMIT pushed
// into it (again after PushIntoSubquery added filters).
Result<SelectPlan> PlanSelectAs(const QueryContext& session, const SelectStmt& q);

Result<const Expr*> GroupExpression(const SelectStmt& q, const Expr& group, const Scope& scope) {
  // GROUP BY a position of the select list, or an alias of it that names no column.
  const Expr* g = &group;
  if (IsIntegerLiteral(*g)) {
    const int64_t n = g->text.size() > 9 ? -1 : std::stoll(g->text);
    if (n < 1 || n > static_cast<int64_t>(q.items.size()) ||
        q.items[static_cast<size_t>(n - 1)].expr->kind == ExprKind::kStar) {
      return ErrorAt(g->pos, "GROUP BY position " + g->text + " is not in the select list");
    }
    return q.items[static_cast<size_t>(n - 1)].expr.get();
  }
  if (g->kind == ExprKind::kColumn && g->names.size() == 1 &&
      !scope.Resolve(g->names, g->pos).ok()) {
    for (const auto& item : q.items) {
      if (item.alias == g->names[0]) return item.expr.get();
    }
  }
  return g;
}

namespace {

// How the binder plans and runs the subqueries of a query's expressions.
// Uncorrelated subqueries in expressions are planned now and run when the plan is built into
// operators (ResolvePlanSubqueries); their results become constants of the plan. Correlated
// ones that decorrelation left run per row (CorrelatedRunner, sources.cc).
SubqueryRunner MakeSubqueryRunner(const QueryContext& session) {
  SubqueryRunner run_subquery;
  run_subquery.run = [&session](const SelectStmt& sq) -> Result<QueryRows> {
    TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenQuery(session, sq));
    std::vector<Field> fields = op->fields();
    TRIB_ASSIGN_OR_RETURN(std::vector<Row> rows, CollectRows(*op));
    return std::make_pair(std::move(fields), std::move(rows));
  };
  run_subquery.per_row = !session.streaming();
  run_subquery.later = [&session](std::shared_ptr<const SelectStmt> sq) {
    return CorrelatedRunner(session, std::move(sq));
  };
  run_subquery.deferred = [&session](std::shared_ptr<const SelectStmt> sq) {
    return CorrelatedRunner(session, std::move(sq), /*with_frames=*/false);
  };
  return run_subquery;
}

}  // namespace

// `q` planned, its correlated subqueries first rewritten as joins.
Result<SelectPlan> PlanSelect(const QueryContext& session, const SelectStmt& q) {
  TRIB_ASSIGN_OR_RETURN(auto grouped, GroupBeforeWindows(session, q));
  if (grouped) {
    TRIB_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(session, *grouped));
    plan.grouped_rewrite = std::move(grouped);
    return plan;
  }
  TRIB_ASSIGN_OR_RETURN(auto rewritten, Decorrelate(session, q));
  if (!rewritten) return PlanSelectAs(session, q);
  TRIB_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelectAs(session, *rewritten));
  plan.rewritten = std::move(rewritten);
  return plan;
}

Result<SelectPlan> PlanSelectAs(const QueryContext& session, const SelectStmt& q) {
  SelectPlan plan;
  plan.query = &q;
  if (q.from) {
    TRIB_ASSIGN_OR_RETURN(plan.source, OpenSource(session, *q.from));
    if (plan.source.lookup_time) {
      return ErrorAt(plan.source.lookup_time->pos,
                     "FOR SYSTEM_TIME AS OF a column makes a lookup join: it belongs to a table "
                     "joined to others (FROM o JOIN dim FOR SYSTEM_TIME AS OF o.proctime ON ...)");
    }
  } else {
    plan.source.rows.push_back(Row{});
    plan.source.name = "(no table)";
  }
  Source& src = plan.source;
  if (!q.joins.empty()) {
    TRIB_RETURN_NOT_OK(PlanJoinInputs(session, q, &plan));
  } else {
    for (const auto& f : src.fields) plan.scope.columns.push_back({f.name, src.qualifier, f.type});
  }
  const Scope& scope = plan.scope;

  const SubqueryRunner run_subquery = MakeSubqueryRunner(session);

  // WHERE (plus FROM t PARTITION (k = 'v') as equalities).
  Binder binder(&scope);
  binder.set_subqueries(&run_subquery);
  std::vector<const Expr*> where_parts;
  if (q.where) SplitConjuncts(*q.where, &where_parts);
  std::vector<ExprPtr> partition_eqs;
  if (q.from) {
    for (const auto& p : q.from->partition) {
      auto eq = std::make_unique<Expr>();
      eq->kind = ExprKind::kBinary;
      eq->op = "=";
      eq->pos = p.pos;
      auto col = std::make_unique<Expr>();
      col->kind = ExprKind::kColumn;
      col->names = {p.column};
      col->pos = p.pos;
      eq->args.push_back(std::move(col));
      eq->args.push_back(p.value->Clone());
      partition_eqs.push_back(std::move(eq));
    }
  }
  for (const auto& e : partition_eqs) where_parts.push_back(e.get());
  for (const Expr* part : where_parts) {
    if (ContainsAggregate(*part)) {
      return ErrorAt(part->pos, "aggregate functions are not allowed in WHERE; use HAVING");
    }
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr c, binder.BindPredicate(*part, "WHERE"));
    FlattenAnd(std::move(c), &plan.conjuncts);
  }

  plan.grouped = !q.group_by.empty() || q.having != nullptr;
  for (const auto& item : q.items) plan.grouped = plan.grouped || ContainsAggregate(*item.expr);
  for (const auto& o : q.order_by) plan.grouped = plan.grouped || ContainsAggregate(*o.expr);

  AggregateBinding& agg = plan.agg;
  agg.input = &scope;
  if (plan.grouped) {
    for (const auto& group : q.group_by) {
      TRIB_ASSIGN_OR_RETURN(const Expr* g, GroupExpression(q, *group, scope));
      if (ContainsAggregate(*g))
        return ErrorAt(g->pos, "aggregate functions are not allowed in GROUP BY");
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr k, binder.Bind(*g));
      agg.key_columns.push_back(k->kind == BoundKind::kColumn ? k->column : -1);
      agg.key_texts.push_back(ExprToString(*g));
      agg.keys.push_back(std::move(k));
    }
  }
  Binder item_binder(&scope, plan.grouped ? &agg : nullptr);
  item_binder.set_subqueries(&run_subquery);
  bool windowed = false;
  for (const auto& item : q.items) windowed = windowed || ContainsWindow(*item.expr);
  for (const auto& o : q.order_by) windowed = windowed || ContainsWindow(*o.expr);
  if (windowed) {
    if (plan.grouped) {
      return NotSupportedAt(q.pos,
                            "window functions in a query with GROUP BY or aggregates are "
                            "not supported yet; group in a subquery");
    }
    plan.windows.input = &scope;
    item_binder.set_windows(&plan.windows);
  }

  // Select list. item_out[i]: the output column of item i ('*' expands to several).
  std::vector<int> item_out(q.items.size(), -1);
  for (size_t i = 0; i < q.items.size(); ++i) {
    const SelectItem& item = q.items[i];
    item_out[i] = static_cast<int>(plan.fields.size());
    if (item.expr->kind == ExprKind::kStar) {
      if (plan.grouped) return ErrorAt(item.pos, "'*' cannot be used with GROUP BY or aggregates");
      std::string qual = item.expr->names.empty() ? "" : item.expr->names.back();
      bool any = false;
      std::vector<int> expand;
      if (qual.empty() && !scope.star_order.empty()) {
        expand = scope.star_order;  // a FROM with joins (USING columns merged, listed first)
      } else {
        for (size_t c = 0; c < scope.columns.size(); ++c) {
          if (!qual.empty() && scope.columns[c].qualifier != qual) continue;
          if (qual.empty() && scope.columns[c].hidden) continue;
          expand.push_back(static_cast<int>(c));
        }
      }
      for (int c : expand) {
        BoundExprPtr ref;
        if (qual.empty() && scope.columns[c].coalesce_with >= 0) {
          TRIB_ASSIGN_OR_RETURN(ref, item_binder.Bind(*UsingColumnRef(scope, c, item.pos)));
        } else {
          ref = std::make_unique<BoundExpr>();
          ref->kind = BoundKind::kColumn;
          ref->column = c;
          ref->type = scope.columns[c].type;
          ref->pos = item.pos;
        }
        plan.fields.push_back(
            Field{static_cast<int32_t>(plan.fields.size()), scope.columns[c].name, ref->type, ""});
        plan.items.push_back(std::move(ref));
        any = true;
      }
      if (!any && !qual.empty()) return ErrorAt(item.pos, "unknown table '" + qual + "'");
      continue;
    }
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, item_binder.Bind(*item.expr));
    if (b->null_literal) {
      b->null_literal = false;  // SELECT NULL: a nullable STRING column
    }
    std::string name = item.alias;
    if (name.empty()) {
      name = item.expr->kind == ExprKind::kColumn ? item.expr->names.back()
                                                  : "EXPR$" + std::to_string(i);
    }
    plan.fields.push_back(Field{static_cast<int32_t>(plan.fields.size()), name, b->type, ""});
    plan.items.push_back(std::move(b));
  }

  if (q.having) {
    TRIB_ASSIGN_OR_RETURN(plan.having, item_binder.BindPredicate(*q.having, "HAVING"));
  }

  // ORDER BY: an ordinal, an output column name, a select-list expression, or an expression.
  for (const auto& o : q.order_by) {
    SortKey key;
    key.descending = o.descending;
    key.nulls_first = o.nulls_first.value_or(!o.descending);
    const Expr& e = *o.expr;
    if (IsIntegerLiteral(e)) {
      int64_t n = e.text.size() > 9 ? -1 : std::stoll(e.text);  // no position has 10 digits
      if (n < 1 || n > static_cast<int64_t>(plan.fields.size())) {
        return ErrorAt(e.pos, "ORDER BY position " + e.text + " is not in the select list");
      }
      key.output = static_cast<int>(n - 1);
    } else if (e.kind == ExprKind::kColumn && e.names.size() == 1) {
      for (size_t i = 0; i < plan.fields.size(); ++i) {
        if (plan.fields[i].name == e.names[0]) {
          key.output = static_cast<int>(i);
          break;
        }
      }
    }
    if (key.output < 0) {
      std::string text = ExprToString(e);
      for (size_t i = 0; i < q.items.size(); ++i) {
        if (q.items[i].expr->kind != ExprKind::kStar && ExprToString(*q.items[i].expr) == text) {
          key.output = item_out[i];
          break;
        }
      }
    }
    if (key.output < 0) {
      if (q.distinct) {
        return ErrorAt(e.pos,
                       "with SELECT DISTINCT, ORDER BY expressions must appear in the "
                       "select list");
      }
      TRIB_ASSIGN_OR_RETURN(key.expr, item_binder.Bind(e));
    }
    plan.sort.push_back(std::move(key));
  }

  // The filters go as far down as they can: into the subquery read (and on into its scan), or
  // with the projection and limit into the table scan.
  if (plan.joins.empty()) TRIB_RETURN_NOT_OK(PushIntoSubquery(&src, &plan.conjuncts));
  TRIB_RETURN_NOT_OK(PlanTableScan(&plan));
  return plan;
}

}  // namespace planner

void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out) {
  if (e.kind == ExprKind::kBinary && e.op == "AND") {
    SplitConjuncts(*e.args[0], out);
    SplitConjuncts(*e.args[1], out);
    return;
  }
  out->push_back(&e);
}

Status TakeBranchHint(OptionList* hints, Identifier* id) {
  for (auto it = hints->begin(); it != hints->end();) {
    if (it->key != "branch") {
      ++it;
      continue;
    }
    const std::string branch = it->value == "main" ? "" : it->value;
    if (!id->branch.empty() && id->branch != branch) {
      return ErrorAt(it->pos, "OPTIONS('branch' = '" + it->value + "') on '" + id->ToString() +
                                  "', which names branch '" + id->branch + "'");
    }
    id->branch = branch;
    it = hints->erase(it);
  }
  return Status::OK();
}

Result<std::map<std::string, std::string>> NormalizeHints(const OptionList& hints,
                                                          const TableSchema& schema) {
  std::map<std::string, std::string> raw;
  for (const auto& h : hints) raw[h.key] = h.value;
  std::vector<std::string> columns;
  for (const auto& f : schema.fields) columns.push_back(f.name);
  TRIB_ASSIGN_OR_RETURN(auto normalized, NormalizeOptions(OptionScope::kTable, raw, columns));
  // A hint must do what it says: one not implemented yet is refused, as CREATE TABLE refuses it.
  for (const auto& [key, value] : normalized) {
    const OptionDef* def = FindOption(OptionScope::kTable, key);
    if (def && !def->supported) {
      return Status::NotSupported("option '" + key + "' is recognised but not supported yet");
    }
  }
  // Hints that would read or write the stored data as if laid out differently are refused here,
  // where the error can point at the hint (the table's reader and writer refuse them too).
  TRIB_RETURN_NOT_OK(
      options::WithDynamicOptions(std::make_shared<TableSchema>(schema), normalized).status());
  return normalized;
}

Result<int64_t> SessionTimeToUtcMillis(const QueryContext& session, std::string_view text) {
  TRIB_ASSIGN_OR_RETURN(Timestamp local, ParseTimestamp(text, 3));
  auto tz_name = session.options().find("table.local-time-zone");
  TRIB_ASSIGN_OR_RETURN(TimeZone tz,
                        TimeZone::Load(tz_name == session.options().end() ? "" : tz_name->second));
  const int64_t seconds = local.millis >= 0 ? local.millis / 1000 : -((-local.millis + 999) / 1000);
  return tz.LocalToUtc(seconds) * 1000 + (local.millis - seconds * 1000);
}

namespace planner {

// Rewrites the column slots of `e` (table columns) to their positions among the scanned
// columns: a scan hands out only its projection.
void RemapColumns(BoundExpr* e, const std::vector<int>& slot) {
  if (e->kind == BoundKind::kColumn) e->column = slot[e->column];
  for (auto& a : e->args) RemapColumns(a.get(), slot);
}

namespace {}  // namespace

}  // namespace planner

using namespace planner;

Result<RowChunks> OpenMatchingRows(Table& table, const Expr* where,
                                   const std::map<std::string, std::string>& options) {
  const auto schema = table.schema();
  Scope scope;
  for (const auto& f : schema->fields)
    scope.columns.push_back({f.name, table.identifier().table, f.type});
  Binder binder(&scope);
  auto conjuncts = std::make_shared<std::vector<BoundExprPtr>>();
  if (where) {
    if (ContainsAggregate(*where)) {
      return ErrorAt(where->pos, "aggregate functions are not allowed in WHERE");
    }
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr c, binder.BindPredicate(*where, "WHERE"));
    FlattenAnd(std::move(c), conjuncts.get());
  }
  std::vector<bool> all(schema->fields.size(), true);
  ScanPlan plan = PlanScan(schema->fields, *conjuncts, all);
  ScanOptions scan_options = MakeScanOptions(plan, options, "");
  scan_options.max_batch_rows = kStreamBatchRows;  // a slice of a file at a time
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableScan> opened, table.NewScan(scan_options));
  std::shared_ptr<TableScan> scan = std::move(opened);
  const size_t width = schema->fields.size();
  const std::vector<int> projection = plan.projection;
  // Each scan batch: its rows as full rows (the columns the plan does not project left NULL),
  // those the WHERE keeps.
  return RowChunks([scan, conjuncts, width, projection](std::vector<Row>* out) -> Result<bool> {
    RowBatch batch;
    while (true) {
      TRIB_ASSIGN_OR_RETURN(bool more, scan->Next(&batch));
      out->clear();
      for (Row& r : batch.rows) {
        Row full(width);
        for (size_t i = 0; i < projection.size() && i < r.size(); ++i) {
          full[projection[i]] = std::move(r[i]);
        }
        bool keep = true;
        for (const auto& c : *conjuncts) {
          TRIB_ASSIGN_OR_RETURN(keep, EvaluatePredicate(*c, full));
          if (!keep) break;
        }
        if (keep) out->push_back(std::move(full));
      }
      batch.Clear();
      if (!out->empty()) return true;
      if (!more) return false;
    }
  });
}

}  // namespace tributary::sql
