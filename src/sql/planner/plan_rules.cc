// The rules that rewrite a planned SELECT (SelectPlan, query_internal.h) before its operators are
// built: which columns and filters its table scan takes (PlanTableScan), filters moved from a
// query into the subqueries, views and WITH queries it reads (PushIntoSubquery, with Flink's
// top-N pattern), and columns pruned through them (PruneSubquery).
// Internal to sql/.
#include <algorithm>

#include "sql/binder/expression.h"
#include "sql/planner/query_internal.h"

namespace tributary::sql::planner {

// The columns of its input (FROM) that `plan` reads: its WHERE, and then its GROUP BY keys and
// aggregate arguments, or else its select list, ORDER BY and window functions.
std::vector<bool> InputColumnsRead(SelectPlan* plan, size_t width) {
  std::vector<bool> used(width, false);
  for (const auto& c : plan->conjuncts) CollectColumns(*c, &used);
  if (plan->grouped) {
    for (const auto& k : plan->agg.keys) CollectColumns(*k, &used);
    for (const auto& c : plan->agg.calls) {
      if (c.arg) CollectColumns(*c.arg, &used);
    }
  } else {
    for (const auto& it : plan->items) CollectColumns(*it, &used);
    for (const auto& s : plan->sort) {
      if (s.expr) CollectColumns(*s.expr, &used);
    }
    for (BoundExpr* e : WindowExprs(&plan->windows)) CollectColumns(*e, &used);
  }
  used.resize(width);
  return used;
}

Status PlanTableScan(SelectPlan* plan) {
  const SelectStmt& q = *plan->query;
  Source& src = plan->source;
  if (!src.table || !src.change_table.empty() || !plan->joins.empty()) return Status::OK();
  plan->scan = PlanScan(src.fields, plan->conjuncts, InputColumnsRead(plan, src.fields.size()));
  if (q.limit && !plan->grouped && !q.distinct && q.order_by.empty() && plan->scan.all_pushed) {
    plan->scan.limit = *q.limit > INT64_MAX - q.offset ? INT64_MAX : *q.limit + q.offset;
  }
  return ApplySnapshotHint(src, q.from->hints_pos, &plan->scan);
}

Status ResolvePlanSubqueries(SelectPlan* plan) {
  if (!ResolvingSubqueries()) return Status::OK();
  bool filters = false;
  for (auto& c : plan->conjuncts) TRIB_RETURN_NOT_OK(ResolveSubqueries(&c, &filters));
  auto all = [](std::vector<BoundExprPtr>* exprs) -> Status {
    for (auto& e : *exprs) TRIB_RETURN_NOT_OK(ResolveSubqueries(&e));
    return Status::OK();
  };
  TRIB_RETURN_NOT_OK(all(&plan->items));
  TRIB_RETURN_NOT_OK(all(&plan->agg.keys));
  for (auto& c : plan->agg.calls) {
    if (c.arg) TRIB_RETURN_NOT_OK(ResolveSubqueries(&c.arg));
  }
  if (plan->having) TRIB_RETURN_NOT_OK(ResolveSubqueries(&plan->having));
  for (auto& k : plan->sort) {
    if (k.expr) TRIB_RETURN_NOT_OK(ResolveSubqueries(&k.expr));
  }
  for (WindowCall& c : plan->windows.calls) {
    TRIB_RETURN_NOT_OK(all(&c.args));
    if (c.aggregate.arg) TRIB_RETURN_NOT_OK(ResolveSubqueries(&c.aggregate.arg));
    TRIB_RETURN_NOT_OK(all(&c.partition_by));
    TRIB_RETURN_NOT_OK(all(&c.order_by));
  }
  for (JoinInput& j : plan->joins) TRIB_RETURN_NOT_OK(all(&j.on));
  // The subqueries' values may now be pushed into the scan.
  return filters ? PlanTableScan(plan) : Status::OK();
}

namespace {

// `e` with each column slot s replaced by a copy of *with[s].
BoundExprPtr Substitute(const BoundExpr& e, const std::vector<const BoundExpr*>& with) {
  if (e.kind == BoundKind::kColumn) return CloneBound(*with[static_cast<size_t>(e.column)]);
  BoundExprPtr c = CloneBound(e);
  for (size_t i = 0; i < e.args.size(); i++) c->args[i] = Substitute(*e.args[i], with);
  return c;
}

}  // namespace

Status PruneSubquery(Source* src, const std::vector<bool>& used) {
  if (!src->plan) return Status::OK();
  SelectPlan& sub = *src->plan;
  if (sub.query->distinct) return Status::OK();
  std::vector<bool> keep(sub.items.size(), false);
  for (size_t i = 0; i < keep.size(); i++) keep[i] = i < used.size() && used[i];
  for (const auto& k : sub.sort) {
    if (k.output >= 0 && static_cast<size_t>(k.output) < keep.size()) keep[k.output] = true;
  }
  bool changed = false;
  for (size_t i = 0; i < sub.items.size(); i++) {
    if (keep[i] || sub.items[i]->IsConstant()) continue;
    sub.items[i] = MakeConstant(Value::Null(), sub.items[i]->type, sub.items[i]->pos);
    changed = true;
  }
  if (!changed) return Status::OK();
  if (sub.grouped) {
    // The aggregates nothing reads any more become COUNT(*), which reads no column (the group
    // keys stay: they make the groups).
    std::vector<bool> read;
    for (const auto& it : sub.items) CollectColumns(*it, &read);
    if (sub.having) CollectColumns(*sub.having, &read);
    for (const auto& k : sub.sort) {
      if (k.expr) CollectColumns(*k.expr, &read);
    }
    const size_t keys = sub.agg.keys.size();
    read.resize(keys + sub.agg.calls.size(), false);
    for (size_t i = 0; i < sub.agg.calls.size(); i++) {
      AggregateCall& call = sub.agg.calls[i];
      if (read[keys + i] || call.star) continue;
      call.function = "COUNT";
      call.star = true;
      call.distinct = false;
      call.arg.reset();
      call.type = DataType::BigInt().WithNullable(false);
      call.key = "COUNT(*)";
    }
  }
  if (sub.joins.empty()) {
    // What the subquery still reads of its own input, for its scan or a deeper subquery.
    TRIB_RETURN_NOT_OK(
        PruneSubquery(&sub.source, InputColumnsRead(&sub, sub.source.fields.size())));
  }
  return PlanTableScan(&sub);
}

Status PushIntoSubquery(Source* src, std::vector<BoundExprPtr>* conjuncts) {
  if (!src->plan || conjuncts->empty()) return Status::OK();
  SelectPlan& sub = *src->plan;
  const SelectStmt& q = *sub.query;
  if (!q.limit && q.offset == 0 && sub.windows.calls.size() == 1 &&
      sub.windows.calls[0].function == "ROW_NUMBER") {
    // Flink's top-N pattern: WHERE rn <= n over ROW_NUMBER() OVER (...) AS rn. The filter stays
    // (it is exact); the window keeps only n rows per partition.
    const int window_column = static_cast<int>(sub.scope.columns.size());
    for (const auto& c : *conjuncts) {
      if (c->kind != BoundKind::kCompare || c->args.size() != 2) continue;
      const BoundExpr* a = c->args[0].get();
      const BoundExpr* b = c->args[1].get();
      std::string op = c->op;
      if (a->IsConstant()) {
        std::swap(a, b);
        op = op == "<=" ? ">=" : op == "<" ? ">" : op == ">=" ? "<=" : op == ">" ? "<" : op;
      }
      const int out = SlotUnder(*a);
      if (out < 0 || static_cast<size_t>(out) >= sub.items.size() || !b->IsConstant() ||
          !b->constant.is_int()) {
        continue;
      }
      if (SlotUnder(*sub.items[static_cast<size_t>(out)]) != window_column) continue;
      const int64_t v = b->constant.int_value();
      std::optional<int64_t> n;
      if (op == "<=" || op == "=") n = v;
      if (op == "<") n = v - 1;
      if (n) sub.top_n = std::min(sub.top_n.value_or(*n), *n);
    }
  }
  // A filter above LIMIT / OFFSET keeps other rows than one below; window functions see the rows
  // a filter below them would remove; an aggregate without GROUP BY returns its row even for no
  // input (a filter below it, even a constant one, would not remove that row).
  if (q.limit || q.offset > 0 || !sub.windows.calls.empty()) return Status::OK();
  if (sub.grouped && sub.agg.keys.empty()) return Status::OK();
  // What each output column of the subquery is, over its input: its select-list expression, or,
  // grouped, the GROUP BY key it shows (other outputs of a grouped query cannot move below it).
  std::vector<const BoundExpr*> output(sub.items.size(), nullptr);
  for (size_t i = 0; i < sub.items.size(); i++) {
    const BoundExpr& item = *sub.items[i];
    if (!sub.grouped) {
      output[i] = &item;
    } else if (item.kind == BoundKind::kColumn && item.column >= 0 &&
               static_cast<size_t>(item.column) < sub.agg.keys.size()) {
      output[i] = sub.agg.keys[static_cast<size_t>(item.column)].get();
    }
    if (output[i] && IsVolatile(*output[i])) output[i] = nullptr;
  }
  bool taken = false;
  std::vector<BoundExprPtr> kept;
  for (auto& c : *conjuncts) {
    std::vector<bool> used;
    CollectColumns(*c, &used);
    bool movable = !IsVolatile(*c) && used.size() <= output.size();
    for (size_t s = 0; movable && s < used.size(); s++) movable = !used[s] || output[s];
    if (!movable) {
      kept.push_back(std::move(c));
      continue;
    }
    sub.conjuncts.push_back(Substitute(*c, output));
    taken = true;
  }
  *conjuncts = std::move(kept);
  if (!taken) return Status::OK();
  // The subquery's own planning, again with the new filters: on into its input.
  if (sub.joins.empty()) TRIB_RETURN_NOT_OK(PushIntoSubquery(&sub.source, &sub.conjuncts));
  return PlanTableScan(&sub);
}

}  // namespace tributary::sql::planner
