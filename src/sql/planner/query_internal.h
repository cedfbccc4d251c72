// What the parts of the query planner share: query.cc binds a query around its FROM clause (one
// table, subquery or system table) into a SelectPlan and builds its operators (BuildSelect),
// plan_rules.cc rewrites SelectPlans (filter pushdown into subqueries, column pruning, the scan a
// plan reads), join_plan.cc plans the joins of a FROM clause, streaming_query.cc builds the
// operators of a streaming SELECT. They open the FROM's inputs, push filters and projections into
// their table scans, and rewrite the bound expressions above them to the columns the scans hand
// out.
// Internal to sql/.
// Thread-safety: stateless functions; a session is used by one thread.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/binder/expression.h"
#include "sql/exec/operators.h"
#include "sql/parser/ast.h"
#include "tributary/table.h"

namespace tributary::sql {
class QueryContext;
struct QueryResult;
}  // namespace tributary::sql

namespace tributary::sql::planner {

struct SelectPlan;  // below: a SELECT planned, not yet built

// Where the rows of one FROM input come from.
struct Source {
  std::vector<Field> fields;
  std::string qualifier;
  std::unique_ptr<Table> table;  // a data table, read through a scan
  // Or a subquery, view or WITH query: planned but not yet built into operators, so the query
  // reading it can still push filters into it (PushIntoSubquery); built by OpenSourceOperator.
  std::shared_ptr<SelectPlan> plan;
  OperatorPtr op;         // or a subquery's operators (UNION, VALUES, ...)
  std::vector<Row> rows;  // otherwise: materialized rows
  std::map<std::string, std::string> dynamic_options;
  std::string name;            // for EXPLAIN
  std::string change_table;    // streaming: `table` read as this change table (audit_log, ...)
  bool computed_view = false;  // a table with computed columns, read through `plan`
  // FOR SYSTEM_TIME AS OF <a column>: the table of a lookup join (PlanJoinInputs checks it).
  const Expr* lookup_time = nullptr;
};

// What a table scan reads: the projection and the filters pushed into it.
struct ScanPlan {
  std::vector<int> projection;
  std::vector<Predicate> filters;
  std::vector<std::string> filter_texts;
  bool all_pushed = true;
  std::optional<int64_t> limit;
  std::optional<int64_t> snapshot_id;
};

// Rows per batch of a scan whose rows stream to the output.
inline constexpr size_t kStreamBatchRows = 65536;

// Opens the input `ref` of a FROM clause: a table (its hints checked), a system table, or a
// subquery.
Result<Source> OpenSource(const QueryContext& session, const TableRef& ref);
// The scan of a table of `fields` reading the columns `used` (none: the scan counts its rows, as
// COUNT(*) reads them) and the conjuncts
// that are simple column predicates (all_pushed: every conjunct was).
ScanPlan PlanScan(const std::vector<Field>& fields, const std::vector<BoundExprPtr>& conjuncts,
                  std::vector<bool> used);
// The session's 'table.local-time-zone'; unset: UTC, so results do not depend on the machine.
std::string SessionTimeZone(const QueryContext& session);
ScanOptions MakeScanOptions(const ScanPlan& plan,
                            const std::map<std::string, std::string>& dynamic_options,
                            const std::string& time_zone);
// The 'scan.snapshot-id' hint of `source`, into plan->snapshot_id.
Status ApplySnapshotHint(const Source& source, const Pos& hints_pos, ScanPlan* plan);
// What EXPLAIN says of a table scan.
std::string DescribeScan(const Source& source, const ScanPlan& scan, const ScanOptions& opts);
// Filter pushdown into a subquery: moves each conjunct of `conjuncts` (over the columns of
// `src`) that `src`'s planned subquery can apply below its select list into that subquery's
// WHERE (its columns replaced by the select-list expressions they name), from where its own
// planning pushes it on into a table scan or a deeper subquery. Taken: conjuncts without
// volatile functions (RAND, NOW, ...) over a subquery without LIMIT, OFFSET or window functions,
// over a grouped subquery only those reading its GROUP BY keys. Nothing happens unless
// `src->plan` is set.
Status PushIntoSubquery(Source* src, std::vector<BoundExprPtr>* conjuncts);
// Column pruning through a planned subquery (nothing unless `src->plan` is set): the select-list
// items whose output column the reader does not use (`used`, by output column) become NULL
// constants, so the subquery's own scan (and, through it, deeper subqueries) reads fewer columns;
// the columns keep their places. Not for DISTINCT or grouped subqueries, nor items its ORDER BY
// sorts by.
Status PruneSubquery(Source* src, const std::vector<bool>& used);
// The operators of an input that is not a table: its planned subquery built, its operators, or
// its rows.
Result<OperatorPtr> OpenSourceOperator(const QueryContext& session, Source* src);
// `q` with its correlated subqueries (EXISTS, IN and scalar aggregates whose WHERE compares
// their columns with the outer query's by equality) rewritten as joins (decorrelate.cc); null
// when it has none. A correlation of another shape is refused as not supported yet.
Result<std::shared_ptr<const SelectStmt>> Decorrelate(const QueryContext& session,
                                                      const SelectStmt& q);
// `q` with window functions over GROUP BY or aggregates, rewritten as the windows over a derived
// table that groups (decorrelate.cc): SELECT k, RANK() OVER (ORDER BY SUM(v)) FROM t GROUP BY k
// is SELECT $g0 AS k, RANK() OVER (ORDER BY $a0) FROM (SELECT k AS $g0, SUM(v) AS $a0 FROM t
// GROUP BY k) AS $grouped; null when `q` has none.
Result<std::shared_ptr<const SelectStmt>> GroupBeforeWindows(const QueryContext& session,
                                                             const SelectStmt& q);
// The conjuncts of `e` (AND flattened).
void FlattenAnd(BoundExprPtr e, std::vector<BoundExprPtr>* out);
// Rewrites the column slots of `e`: slot s becomes slot[s].
void RemapColumns(BoundExpr* e, const std::vector<int>& slot);

// One input of a FROM clause with joins, and how it joins the inputs before it.
struct JoinInput {
  Source source;
  Pos hints_pos;                     // of its OPTIONS hint
  size_t first_slot = 0;             // its first column in the query's scope
  JoinKind kind = JoinKind::kCross;  // unused for the first input
  std::vector<BoundExprPtr> on;  // its ON condition's conjuncts, bound against the query's scope
  std::string on_text;           // the ON condition as written (EXPLAIN)
  Pos pos;                       // its JOIN keyword
  // A lookup join (FOR SYSTEM_TIME AS OF a processing-time column): the positions in `on` of
  // the equalities fixing each key column of this input's table, and those columns (field
  // indexes): the primary key in its order, or, for a prefix lookup (several rows per key), the
  // bucket key then the partition keys.
  bool lookup = false;
  std::vector<size_t> lookup_keys;
  std::vector<int> lookup_columns;
  bool lookup_prefix = false;
};

// How one ORDER BY item is computed: from an output column, or an expression over the row the
// select list is computed from.
struct SortKey {
  int output = -1;
  BoundExprPtr expr;
  bool descending = false;
  bool nulls_first = true;
};

// A SELECT planned (query.cc: inputs opened, expressions bound) but not yet built into
// operators (BuildSelect); the rules of plan_rules.cc rewrite it first. Also what EXPLAIN prints.
struct SelectPlan {
  const SelectStmt* query = nullptr;                  // what was planned
  std::shared_ptr<const SelectStmt> rewritten;        // owns `query` when Decorrelate rewrote it
  std::shared_ptr<const SelectStmt> grouped_rewrite;  // GroupBeforeWindows's query, kept alive
  Source source;
  Scope scope;
  std::vector<BoundExprPtr> conjuncts;
  bool grouped = false;
  AggregateBinding agg;
  std::vector<BoundExprPtr> items;
  std::vector<Field> fields;
  BoundExprPtr having;
  std::vector<SortKey> sort;
  ScanPlan scan;
  // A FROM with joins: its inputs (`source` is then unused), each with its ON condition.
  std::vector<JoinInput> joins;
  // Window function calls: computed after WHERE; the select list and ORDER BY read them as
  // columns after the scope's.
  WindowBinding windows;
  // A top-N: the query reading this one keeps its single ROW_NUMBER() only up to this number
  // (PushIntoSubquery), so the window operator keeps that many rows per partition.
  std::optional<int64_t> top_n;
};

// `q` bound into a SelectPlan (query.cc): its inputs opened, its correlated subqueries first
// rewritten as joins, its filters pushed down.
Result<SelectPlan> PlanSelect(const QueryContext& session, const SelectStmt& q);
// SubqueryRunner::later (sources.cc): `sq` planned (and run) again on demand, as it would be
// planned now: with the statement's WITH queries, the name scope (a view's database), the
// enclosing rows of the subqueries around it, and each table at the snapshot it first had.
// `with_frames`: the enclosing rows present now are kept (false for an uncorrelated subquery,
// which reads none).
std::function<Result<QueryRows>(OuterFrame*, bool)> CorrelatedRunner(
    const QueryContext& session, std::shared_ptr<const SelectStmt> sq, bool with_frames = true);
// The expressions of the window calls that read the input (arguments, partition and order keys).
std::vector<BoundExpr*> WindowExprs(WindowBinding* windows);
// A column reference for each column below `width` that `e` reads (so a planner counts the
// columns `e` reads of its input without rewriting `e`).
void CollectInputReads(const BoundExpr& e, size_t width, std::vector<BoundExprPtr>* out);
// Whether `e` is an integer literal (GROUP BY 1, ORDER BY 2: an output column's position).
bool IsIntegerLiteral(const Expr& e);
// The expression GROUP BY entry `group` of `q` groups by: a position of the select list or an
// alias of it that names no column of `scope` stands for that item's expression.
Result<const Expr*> GroupExpression(const SelectStmt& q, const Expr& group, const Scope& scope);
// A VALUES list evaluated: its rows, each column of the type its values have in common.
Result<QueryResult> ExecuteValues(const SelectStmt& q);
// The session's memory limit `key` (a memory-size session option: kSortMemoryLimitKey,
// kAggregateMemoryLimitKey, ...), in bytes.
Result<int64_t> MemoryLimit(const QueryContext& session, const char* key);
// The session's ORDER BY memory limit ('sql.sort.memory-limit').
Result<int64_t> SortMemoryLimit(const QueryContext& session);
// Where the session's queries spill ('io.tmp.dirs').
SpillOptions Spill(const QueryContext& session);

// While alive, the FROM clauses planned on this thread can name the WITH queries `with` (scopes
// nest: the innermost is searched first). Planning is synchronous: one thread plans one
// statement at a time.
class WithQueriesInScope {
 public:
  explicit WithQueriesInScope(const std::vector<CommonTableExpr>& with);
  ~WithQueriesInScope();
  WithQueriesInScope(const WithQueriesInScope&) = delete;
  WithQueriesInScope& operator=(const WithQueriesInScope&) = delete;

 private:
  bool pushed_;
};
// While alive, the scans planned on this thread also plan their partitions, for EXPLAIN's
// description (other queries plan them when they read).
class ExplainingScope {
 public:
  ExplainingScope();
  ~ExplainingScope();
  ExplainingScope(const ExplainingScope&) = delete;
  ExplainingScope& operator=(const ExplainingScope&) = delete;
};
bool Explaining();
// While alive, queries planned on this thread only plan: their uncorrelated subqueries are not
// run (a correlated subquery planned to learn its shape).
class PlanningOnlyScope {
 public:
  PlanningOnlyScope();
  ~PlanningOnlyScope();
  PlanningOnlyScope(const PlanningOnlyScope&) = delete;
  PlanningOnlyScope& operator=(const PlanningOnlyScope&) = delete;
};
// Whether a plan built now runs its uncorrelated subqueries (not for EXPLAIN, not while only
// planning).
bool ResolvingSubqueries();
// The columns of the set operation `q` over the queries `ops` (as many columns each, else an
// error): each column of the type its queries' types combine into, each query cast to them
// (physical_plan.cc).
Result<std::vector<Field>> CastToCommonTypes(const SelectStmt& q, std::vector<OperatorPtr>* ops);
// The plan's uncorrelated subqueries run (once each) and their values put in their place, as the
// first step of running it; its scan replanned when a filter took a value (plan_rules.cc).
Status ResolvePlanSubqueries(SelectPlan* plan);
// The table column under `e`: a column slot, or a widening cast of one; -1 otherwise.
int SlotUnder(const BoundExpr& e);
// The scan plan.scan reads when its input is a table: the columns InputColumnsRead names, the
// conjuncts that are simple column predicates, the LIMIT when nothing above needs more rows,
// the snapshot hint (plan_rules.cc).
Status PlanTableScan(SelectPlan* plan);
// The columns of its input (FROM, `width` of them) that `plan` reads (plan_rules.cc).
std::vector<bool> InputColumnsRead(SelectPlan* plan, size_t width);

// The operators that read the `inputs` (the query's scope is their columns side by side,
// `width` in all) and join them in FROM order: WHERE conjuncts (`where`) and ON conjuncts that
// read one input are pushed into its scan when that keeps the join's result (join_plan.cc says
// when), equalities between an input and the ones before it become hash-join keys, the rest are
// checked on the joined rows. Only the columns some expression reads are scanned. The conjuncts
// left in `where` and the expressions `others` (select list, grouping, sorting) are rewritten to
// the columns of the returned operator. `whole_inputs` (a grouped query): every input is read a
// split at a time ahead on every core, not only the build sides.
// `positions` (optional): where each of the query's columns lands in the returned operator's
// columns (-1: not read).
Result<OperatorPtr> OpenJoins(const QueryContext& session, std::vector<JoinInput> inputs,
                              size_t width, bool whole_inputs, std::vector<BoundExprPtr>* where,
                              const std::vector<BoundExpr*>& others,
                              std::vector<int>* positions = nullptr);

}  // namespace tributary::sql::planner
