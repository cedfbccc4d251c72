// The physical operators of a query (DuckDB's physical plan generator): a planned SELECT
// (query.cc binds and plans it, plan_rules.cc pushes filters and prunes columns) built into
// operators over column batches (operators.h): scan, filter, project, aggregate, window, sort,
// limit; UNION / INTERSECT / EXCEPT; and the entry points that run or EXPLAIN a query.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>

#include "common/check_value.h"
#include "common/datetime.h"
#include "common/memory_budget.h"
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
#include "sql/exec/spill.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"
#include "table/system_tables.h"
#include "tributary/options.h"
#include "tributary/stream_scan.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

namespace planner {

Result<int64_t> MemoryLimit(const QueryContext& session, const char* key) {
  const OptionDef* def = FindOption(OptionScope::kSession, key);
  auto it = session.options().find(key);
  if (it != session.options().end()) return options::ParseMemorySize(it->second);
  TRIB_ASSIGN_OR_RETURN(int64_t limit, options::ParseMemorySize(def->default_value));
  // Unset, the operators that spill (ORDER BY, GROUP BY) take at most a quarter of the
  // process's memory budget (TRIBUTARY_MEMORY_MB, docs/memory.md).
  if (std::string_view(key) == kSortMemoryLimitKey ||
      std::string_view(key) == kAggregateMemoryLimitKey) {
    limit = std::min(limit, MemoryBudget::Instance().total() / 4);
  }
  return limit;
}

Result<int64_t> SortMemoryLimit(const QueryContext& session) {
  return MemoryLimit(session, kSortMemoryLimitKey);
}

SpillOptions Spill(const QueryContext& session) {
  auto it = session.options().find(kSpillDirsKey);
  return SpillOptions{SpillDirs(it != session.options().end() ? it->second : "")};
}

}  // namespace planner

using namespace planner;

Result<OperatorPtr> OpenSetOperation(const QueryContext& session, const SelectStmt& q);
Result<OperatorPtr> OpenSelect(const QueryContext& session, const SelectStmt& q);
Result<OperatorPtr> BuildSelect(const QueryContext& session, planner::SelectPlan plan);

namespace {

// `op` sorted by `sort` (when it has keys; the first `output_columns` columns are kept), then
// the query's OFFSET and LIMIT.
Result<OperatorPtr> SortAndLimit(const QueryContext& session, const SelectStmt& q, OperatorPtr op,
                                 SortOptions sort, size_t output_columns) {
  if (!sort.keys.empty()) {
    sort.limit = q.limit ? std::optional<int64_t>(
                               *q.limit > INT64_MAX - q.offset ? INT64_MAX : *q.limit + q.offset)
                         : std::nullopt;
    sort.output_columns = output_columns;
    TRIB_ASSIGN_OR_RETURN(sort.memory_limit, SortMemoryLimit(session));
    sort.memory_limit_key = kSortMemoryLimitKey;
    sort.spill = Spill(session);
    op = MakeSort(std::move(op), std::move(sort));
  }
  return MakeLimit(std::move(op), q.offset, q.limit);
}

}  // namespace

Result<OperatorPtr> OpenQuery(const QueryContext& session, const SelectStmt& q) {
  if (Status st = CheckStackDepth("query"); !st.ok()) return ErrorAt(q.pos, st.message());
  WithQueriesInScope with(q.with);
  return q.set_operands.empty() ? OpenSelect(session, q) : OpenSetOperation(session, q);
}

// UNION / INTERSECT / EXCEPT: each query planned, its columns converted to the types they have in
// common, the rows combined left to right, then the ORDER BY (output columns by name or
// position) and LIMIT of the whole.
namespace planner {

Result<std::vector<Field>> CastToCommonTypes(const SelectStmt& q, std::vector<OperatorPtr>* ops) {
  const size_t width = (*ops)[0]->fields().size();
  std::vector<Field> fields = (*ops)[0]->fields();
  for (size_t c = 0; c < width; c++) {
    std::vector<DataType> types;
    for (const auto& op : *ops) types.push_back(op->fields()[c].type);
    auto common = CommonType(types);
    if (!common) {
      std::string names;
      for (const auto& t : types) names += (names.empty() ? "" : ", ") + TypeName(t);
      return ErrorAt(q.set_operands[1].pos, "column " + std::to_string(c + 1) +
                                                " of the set "
                                                "operation has types that do not combine: " +
                                                names);
    }
    fields[c].type = *common;
  }
  // Each query's columns as the common types.
  for (auto& op : *ops) {
    bool same = true;
    for (size_t c = 0; c < width; c++) same = same && op->fields()[c].type == fields[c].type;
    if (same) continue;
    std::vector<BoundExprPtr> exprs;
    for (size_t c = 0; c < width; c++) {
      auto col = std::make_unique<BoundExpr>();
      col->kind = BoundKind::kColumn;
      col->column = static_cast<int>(c);
      col->type = op->fields()[c].type;
      col->pos = q.pos;
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr cast, CastTo(std::move(col), fields[c].type,
                                                      static_cast<int>(CastMode::kExplicit)));
      exprs.push_back(std::move(cast));
    }
    op = MakeProject(std::move(op), std::move(exprs), fields);
  }
  return fields;
}

}  // namespace planner

Result<OperatorPtr> OpenSetOperation(const QueryContext& session, const SelectStmt& q) {
  std::vector<OperatorPtr> ops;
  for (const SetOperand& operand : q.set_operands) {
    TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenQuery(session, *operand.query));
    if (!ops.empty() && op->fields().size() != ops[0]->fields().size()) {
      return ErrorAt(operand.pos,
                     "the queries of a set operation return different numbers of "
                     "columns (" +
                         std::to_string(ops[0]->fields().size()) + " and " +
                         std::to_string(op->fields().size()) + ")");
    }
    ops.push_back(std::move(op));
  }
  const size_t width = ops[0]->fields().size();
  TRIB_ASSIGN_OR_RETURN(std::vector<Field> fields, CastToCommonTypes(q, &ops));
  OperatorPtr out = std::move(ops[0]);
  // UNION's DISTINCT and the hash tables of INTERSECT and EXCEPT are hash aggregations.
  TRIB_ASSIGN_OR_RETURN(const int64_t limit, MemoryLimit(session, kAggregateMemoryLimitKey));
  for (size_t i = 1; i < ops.size(); i++) {
    const SetOperand& operand = q.set_operands[i];
    switch (operand.kind) {
      case SetOpKind::kUnion:
        out = MakeUnionAll(std::move(out), std::move(ops[i]));
        if (!operand.all) {
          out = MakeDistinct(std::move(out), limit, kAggregateMemoryLimitKey, Spill(session));
        }
        break;
      case SetOpKind::kIntersect:
      case SetOpKind::kExcept:
        out = MakeSetDifference(std::move(out), std::move(ops[i]),
                                operand.kind == SetOpKind::kIntersect, operand.all, limit,
                                kAggregateMemoryLimitKey, Spill(session));
        break;
    }
  }
  // ORDER BY of the whole: output columns by position or name.
  SortOptions sort;
  for (const auto& o : q.order_by) {
    const Expr& e = *o.expr;
    SortKeySpec spec;
    spec.descending = o.descending;
    spec.nulls_first = o.nulls_first.value_or(!o.descending);
    spec.column = -1;
    if (IsIntegerLiteral(e)) {
      int64_t n = e.text.size() > 9 ? -1 : std::stoll(e.text);
      if (n >= 1 && n <= static_cast<int64_t>(width)) spec.column = static_cast<int>(n - 1);
    } else if (e.kind == ExprKind::kColumn && e.names.size() == 1) {
      for (size_t c = 0; c < width; c++) {
        if (fields[c].name == e.names[0]) spec.column = static_cast<int>(c);
      }
    }
    if (spec.column < 0) {
      return ErrorAt(
          e.pos,
          "ORDER BY of a set operation takes an output column's name or "
          "position; available columns: " +
              [&] {
                std::string names;
                for (const auto& f : fields) names += (names.empty() ? "" : ", ") + f.name;
                return names;
              }());
    }
    sort.keys.push_back(spec);
  }
  return SortAndLimit(session, q, std::move(out), std::move(sort), width);
}

Result<OperatorPtr> OpenSelect(const QueryContext& session, const SelectStmt& q) {
  if (!q.values.empty()) {
    TRIB_ASSIGN_OR_RETURN(QueryResult v, ExecuteValues(q));
    return MakeRows(std::move(v.fields), std::move(v.rows), "VALUES");
  }
  TRIB_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(session, q));
  return BuildSelect(session, std::move(plan));
}

namespace planner {

Result<OperatorPtr> OpenSourceOperator(const QueryContext& session, Source* src) {
  if (src->plan) {
    SelectPlan plan = std::move(*src->plan);
    src->plan.reset();
    return BuildSelect(session, std::move(plan));
  }
  if (src->op) return std::move(src->op);
  return MakeRows(src->fields, std::move(src->rows), src->name);
}

}  // namespace planner

// The operators of a planned SELECT.
Result<OperatorPtr> BuildSelect(const QueryContext& session, SelectPlan plan) {
  const SelectStmt& q = *plan.query;
  Source& src = plan.source;
  // Running the plan starts with its uncorrelated subqueries: their values are its constants.
  TRIB_RETURN_NOT_OK(ResolvePlanSubqueries(&plan));

  // SELECT COUNT(*) FROM t alone is answered from file metadata when that is exact.
  std::optional<int64_t> metadata_count;
  if (src.table && plan.grouped && plan.agg.keys.empty() && plan.agg.calls.size() == 1 &&
      plan.agg.calls[0].function == "COUNT" && plan.agg.calls[0].star &&
      !plan.agg.calls[0].distinct && plan.conjuncts.empty() && !plan.having &&
      !options::IsSet(src.dynamic_options, options::kScanTimestampMillis) &&
      !options::IsSet(src.dynamic_options, options::kScanTagName) &&
      !options::IsSet(*src.table->schema(), options::kScanSnapshotId) &&
      !options::IsSet(*src.table->schema(), options::kScanTimestampMillis) &&
      !options::IsSet(*src.table->schema(), options::kScanTagName) &&
      !options::IsSet(src.dynamic_options, options::kScanFallbackBranch) &&
      !options::IsSet(src.dynamic_options, options::kDeletionVectorsMergeOnRead)) {
    auto n = src.table->CountFromMetadata(plan.scan.snapshot_id);
    if (!n.ok()) return ErrorAt(q.pos, n.status().message());
    metadata_count = *n;
  }

  // The rows the select list is computed from: the source's, filtered by the whole WHERE (a
  // scan's pushed filters are exact, but cheap to recheck), or one row per group.
  OperatorPtr op;
  const bool from_table = src.table != nullptr;
  if (metadata_count) {
    std::vector<Field> fields = {Field{0, "$agg0", DataType::BigInt(), ""}};
    op = MakeRows(std::move(fields), {Row{Value::Int(*metadata_count)}},
                  "COUNT(*) of " + src.name + " from file metadata");
  } else {
    if (!plan.joins.empty()) {
      // Expressions over the joined rows read the columns the joins hand out.
      std::vector<BoundExpr*> others;
      if (plan.grouped) {
        for (auto& k : plan.agg.keys) others.push_back(k.get());
        for (auto& c : plan.agg.calls) {
          if (c.arg) others.push_back(c.arg.get());
        }
      } else if (plan.windows.calls.empty()) {
        for (auto& it : plan.items) others.push_back(it.get());
        for (auto& k : plan.sort) {
          if (k.expr) others.push_back(k.expr.get());
        }
      } else {
        // The select list reads window columns too: remapped below, once the joins' columns are
        // known. Here the columns it reads of the inputs count.
        for (BoundExpr* e : WindowExprs(&plan.windows)) others.push_back(e);
      }
      const size_t width = plan.scope.columns.size();
      std::vector<int> positions;
      std::vector<BoundExprPtr> read_only;  // copies for the column count, never evaluated
      if (!plan.windows.calls.empty()) {
        for (auto& it : plan.items) CollectInputReads(*it, width, &read_only);
        for (auto& k : plan.sort) {
          if (k.expr) CollectInputReads(*k.expr, width, &read_only);
        }
        for (auto& e : read_only) others.push_back(e.get());
      }
      TRIB_ASSIGN_OR_RETURN(op, OpenJoins(session, std::move(plan.joins), width, plan.grouped,
                                          &plan.conjuncts, others, &positions));
      if (!plan.windows.calls.empty()) {
        const int joined = static_cast<int>(op->fields().size());
        positions.resize(width + plan.windows.calls.size());
        for (size_t i = 0; i < plan.windows.calls.size(); i++) {
          positions[width + i] = joined + static_cast<int>(i);
        }
        for (auto& it : plan.items) RemapColumns(it.get(), positions);
        for (auto& k : plan.sort) {
          if (k.expr) RemapColumns(k.expr.get(), positions);
        }
      }
    } else if (src.table) {
      // Expressions over the table read the scanned columns.
      std::vector<int> slot(src.fields.size(), -1);
      for (size_t i = 0; i < plan.scan.projection.size(); i++) slot[plan.scan.projection[i]] = i;
      for (auto& c : plan.conjuncts) RemapColumns(c.get(), slot);
      for (BoundExpr* e : WindowExprs(&plan.windows)) RemapColumns(e, slot);
      // Window columns follow the scanned ones.
      for (size_t i = 0; i < plan.windows.calls.size(); i++) {
        slot.push_back(static_cast<int>(plan.scan.projection.size() + i));
      }
      if (plan.grouped) {
        for (auto& k : plan.agg.keys) RemapColumns(k.get(), slot);
        for (auto& c : plan.agg.calls) {
          if (c.arg) RemapColumns(c.arg.get(), slot);
        }
      } else {
        for (auto& it : plan.items) RemapColumns(it.get(), slot);
        for (auto& k : plan.sort) {
          if (k.expr) RemapColumns(k.expr.get(), slot);
        }
      }
      ScanOptions opts = MakeScanOptions(plan.scan, src.dynamic_options, SessionTimeZone(session));
      opts.spill_dirs = Spill(session).dirs;  // merges past 'sort-spill-threshold'
      // Rows are read a slice at a time (they stream to the output, or into a sort that keeps
      // what it must); aggregates, which fold every row at once, read whole splits ahead on
      // every core.
      if (!plan.grouped) opts.max_batch_rows = kStreamBatchRows;
      TRIB_ASSIGN_OR_RETURN(std::unique_ptr<TableScan> scan, src.table->NewScan(opts));
      std::string description = DescribeScan(src, plan.scan, opts);  // before the table moves
      op = MakeScan(std::move(src.table), std::move(scan), std::move(description));
    } else {
      if (src.plan) {
        // The subquery computes only the columns this query reads.
        TRIB_RETURN_NOT_OK(PruneSubquery(&src, InputColumnsRead(&plan, src.fields.size())));
      }
      TRIB_ASSIGN_OR_RETURN(op, OpenSourceOperator(session, &src));
    }
    const bool pushed = from_table && plan.scan.all_pushed && !plan.scan.filters.empty();
    op = MakeFilter(std::move(op), std::move(plan.conjuncts),
                    pushed ? " (all pushed into the scan, checked again)" : "");
    if (plan.grouped) {
      TRIB_ASSIGN_OR_RETURN(const int64_t limit, MemoryLimit(session, kAggregateMemoryLimitKey));
      op = MakeAggregate(std::move(op), std::move(plan.agg), limit, kAggregateMemoryLimitKey,
                         Spill(session));
    }
    if (!plan.windows.calls.empty()) {
      TRIB_ASSIGN_OR_RETURN(const int64_t limit, SortMemoryLimit(session));
      op = MakeWindow(std::move(op), std::move(plan.windows), limit, kSortMemoryLimitKey,
                      plan.top_n, Spill(session));
    }
  }
  if (plan.having) {
    std::vector<BoundExprPtr> having;
    having.push_back(std::move(plan.having));
    op = MakeFilter(std::move(op), std::move(having));
  }

  // The select list, then the ORDER BY keys that are not in it (dropped after the sort).
  std::vector<BoundExprPtr> exprs = std::move(plan.items);
  std::vector<Field> fields = plan.fields;
  const size_t num_output = exprs.size();
  SortOptions sort;
  for (auto& k : plan.sort) {
    SortKeySpec spec;
    spec.descending = k.descending;
    spec.nulls_first = k.nulls_first;
    if (k.output >= 0) {
      spec.column = k.output;
    } else {
      spec.column = static_cast<int>(exprs.size());
      fields.push_back(Field{static_cast<int32_t>(fields.size()), "$sort", k.expr->type, ""});
      exprs.push_back(std::move(k.expr));
    }
    sort.keys.push_back(spec);
  }
  op = MakeProject(std::move(op), std::move(exprs), std::move(fields));
  if (q.distinct) {
    TRIB_ASSIGN_OR_RETURN(const int64_t limit, MemoryLimit(session, kAggregateMemoryLimitKey));
    op = MakeDistinct(std::move(op), limit, kAggregateMemoryLimitKey, Spill(session));
  }
  return SortAndLimit(session, q, std::move(op), std::move(sort), num_output);
}

Result<QueryResult> ExecuteQuery(const QueryContext& session, const SelectStmt& q) {
  TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenQuery(session, q));
  QueryResult out;
  out.fields = op->fields();
  TRIB_ASSIGN_OR_RETURN(out.rows, CollectRows(*op));
  return out;
}

Result<std::string> ExplainQuery(const QueryContext& session, const SelectStmt& q) {
  // The operators the query would run (nothing is read: scans plan on their first batch; a
  // partitioned table's scan plans its partitions for the description).
  auto op = [&] {
    ExplainingScope explaining;
    return session.streaming() ? OpenStreamingQuery(session, q, std::nullopt)
                               : OpenQuery(session, q);
  }();
  if (!op.ok()) return op.status();
  return ExplainTree(**op);
}

}  // namespace tributary::sql
