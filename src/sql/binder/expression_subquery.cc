// The binder's subqueries: scalar, IN and EXISTS, uncorrelated or correlated.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <set>

#include "common/datetime.h"
#include "common/stack_guard.h"
#include "common/strings.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/binder/correlated.h"
#include "sql/binder/expression.h"
#include "sql/binder/expression_internal.h"
#include "sql/binder/functions.h"

namespace tributary::sql {

Result<BoundExprPtr> Binder::BindSubquery(const Expr& e) {
  if (!subqueries_) {
    return NotSupportedAt(e.pos,
                          "a subquery is not supported here yet (subqueries work in "
                          "SELECT, WHERE and HAVING of a query)");
  }
  // Planned now and run when the statement runs, unless it reads a column of this query (the
  // probe says so). Inside a correlated subquery being run per row, it runs now.
  OuterFrame probe;
  probe.scope = agg_ ? agg_->input : scope_;
  if (subqueries_->deferred && OnlyProbeFrames()) {
    auto run = subqueries_->deferred(e.subquery);
    Result<QueryRows> planned = run(&probe, /*plan_only=*/true);
    if (!planned.ok()) {
      if (probe.hit) return BindCorrelated(e);
      return planned.status();
    }
    return BindDeferred(e, std::move(run), planned->first);
  }
  Result<QueryRows> ran = Status::OK();
  {
    OuterFrameScope in(&probe);
    ran = subqueries_->run(*e.subquery);
  }
  if (!ran.ok()) {
    if (probe.hit) return BindCorrelated(e);
    return ran.status();
  }
  auto& [fields, rows] = *ran;
  if (e.kind == ExprKind::kExists) {
    return MakeConstant(Value::Bool(rows.empty() == e.negated), DataType::Boolean().NotNull(),
                        e.pos);
  }
  if (fields.size() != 1) {
    return ErrorAt(e.pos,
                   "the subquery must return one column, not " + std::to_string(fields.size()));
  }
  if (e.kind == ExprKind::kSubquery) {
    if (rows.size() > 1) {
      return ErrorAt(e.pos, "a scalar subquery returned " + std::to_string(rows.size()) +
                                " rows; it may return at most one");
    }
    return MakeConstant(rows.empty() ? Value::Null() : rows[0][0],
                        fields[0].type.WithNullable(true), e.pos);
  }
  // x [NOT] IN (subquery): the values in a hash set, compared in their common type.
  DataType common;
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr left, BindInLeft(e, fields[0].type, &common));
  auto set = std::make_shared<std::unordered_set<std::string>>();
  bool has_null = false;
  for (const Row& r : rows) {
    if (r[0].is_null()) {
      has_null = true;
      continue;
    }
    auto v = CastValue(r[0], fields[0].type, common, CastMode::kExplicit);
    if (!v.ok()) return ErrorAt(e.pos, v.status().message());
    std::string key;
    AppendKey(*v, &key);
    set->insert(std::move(key));
  }
  auto in = NewExpr(BoundKind::kIn, DataType::Boolean(), e.pos);
  in->negated = e.negated;
  in->args.push_back(std::move(left));
  in->in_set = std::move(set);
  in->in_set_has_null = has_null;
  return in;
}

// An uncorrelated subquery planned (returning `fields`), run by `run` once when the statement
// runs: a CorrelatedSubquery that reads no enclosing column (ResolveSubqueries).
Result<BoundExprPtr> Binder::BindDeferred(const Expr& e,
                                          std::function<Result<QueryRows>(OuterFrame*, bool)> run,
                                          const std::vector<Field>& fields) {
  auto c = std::make_shared<CorrelatedSubquery>();
  c->form = e.kind;
  c->negated = e.negated;
  c->run = std::move(run);
  auto node = NewExpr(BoundKind::kSubquery, DataType::Boolean(), e.pos);
  node->negated = e.negated;
  TRIB_RETURN_NOT_OK(TypeSubquery(e, fields, c.get(), node.get()));
  node->correlated = std::move(c);
  return node;
}

// The type of subquery node `node` (EXISTS, a scalar, IN) over a subquery returning `fields`;
// for IN, its left side appended to its arguments.
Status Binder::TypeSubquery(const Expr& e, const std::vector<Field>& fields, CorrelatedSubquery* c,
                            BoundExpr* node) {
  if (e.kind == ExprKind::kExists) {
    node->type = DataType::Boolean().NotNull();
    return Status::OK();
  }
  if (fields.size() != 1) {
    return ErrorAt(e.pos,
                   "the subquery must return one column, not " + std::to_string(fields.size()));
  }
  c->value_type = fields[0].type;
  if (e.kind == ExprKind::kSubquery) {
    node->type = fields[0].type.WithNullable(true);
    return Status::OK();
  }
  node->type = DataType::Boolean();
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr left, BindInLeft(e, fields[0].type, &c->common));
  node->args.push_back(std::move(left));
  return Status::OK();
}

// The left side of `x [NOT] IN (subquery)` whose values are of type `values`, cast to the type
// both compare in (`*common`).
Result<BoundExprPtr> Binder::BindInLeft(const Expr& e, const DataType& values, DataType* common) {
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr left, Bind(*e.args[0]));
  std::optional<DataType> t = left->null_literal ? values : ComparisonType(left->type, values);
  if (!t) {
    return ErrorAt(e.pos, "the subquery's " + TypeName(values) +
                              " values cannot be compared with " + TypeName(left->type));
  }
  *common = *t;
  return CastTo(std::move(left), *t, static_cast<int>(CastMode::kExplicit));
}

// A subquery reading columns of this query: planned now with the enclosing row's columns as
// NULLs (which names it reads, what it returns), run per row later (correlated.h).
Result<BoundExprPtr> Binder::BindCorrelated(const Expr& e) {
  if (!subqueries_->per_row || !subqueries_->later) {
    return NotSupportedAt(e.pos,
                          "a correlated subquery that cannot be rewritten as a join "
                          "(docs/sql.md) is not supported in a streaming query yet");
  }
  const Scope& scope = agg_ ? *agg_->input : *scope_;
  auto c = std::make_shared<CorrelatedSubquery>();
  c->form = e.kind;
  c->negated = e.negated;
  c->scope = scope;
  c->run = subqueries_->later(e.subquery);
  std::vector<bool> used(scope.columns.size(), false);
  Row nulls(scope.columns.size());
  OuterFrame discover;
  discover.scope = &c->scope;
  discover.row = &nulls;
  discover.used = &used;
  TRIB_ASSIGN_OR_RETURN(QueryRows planned, c->run(&discover, /*plan_only=*/true));
  const std::vector<Field>& fields = planned.first;
  auto node = NewExpr(BoundKind::kSubquery, DataType::Boolean(), e.pos);
  for (size_t i = 0; i < used.size(); i++) {
    if (!used[i]) continue;
    const ScopeColumn& sc = scope.columns[i];
    Expr ref;
    ref.kind = ExprKind::kColumn;
    ref.pos = e.pos;
    ref.names = sc.qualifier.empty() ? std::vector<std::string>{sc.name}
                                     : std::vector<std::string>{sc.qualifier, sc.name};
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr arg, Bind(ref));
    node->args.push_back(std::move(arg));
    c->columns.push_back(static_cast<int>(i));
  }
  TRIB_RETURN_NOT_OK(TypeSubquery(e, fields, c.get(), node.get()));
  node->negated = e.negated;
  node->correlated = std::move(c);
  return node;
}

}  // namespace tributary::sql
