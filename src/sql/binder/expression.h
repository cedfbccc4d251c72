// Bound expressions: names resolved to column slots, types checked and implicit casts made
// explicit, constants folded. The binder turns an ast Expr into a BoundExpr; Evaluate computes it
// over one row.
// Thread-safety: a bound expression is immutable after binding and may be evaluated concurrently.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sql/parser/ast.h"
#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::sql {

// A column visible to expressions: its slot in the row is its index in Scope::columns.
struct ScopeColumn {
  std::string name;
  std::string qualifier;  // table name or alias; empty for derived rows
  DataType type;
  // JOIN ... USING / NATURAL JOIN merge each pair of joined columns into one: the copy an
  // unqualified name or `*` does not see is `hidden` (a qualified name still reads it); after a
  // FULL join the one it sees reads COALESCE(itself, column `coalesce_with`).
  bool hidden = false;
  int coalesce_with = -1;
};

struct Scope {
  std::vector<ScopeColumn> columns;
  // The columns an unqualified `*` expands to, in order (the merged USING columns first, as SQL
  // says); empty: every column not hidden, in order.
  std::vector<int> star_order;
  // Index of the column `names` ([qualifier.]column) refers to.
  Result<int> Resolve(const std::vector<std::string>& names, const Pos& pos) const;
};

enum class BoundKind {
  kConstant,
  kColumn,
  kNegate,
  kNot,
  kArithmetic,  // op: + - * / %
  kCompare,     // op: = <> < <= > >=
  kAnd,
  kOr,
  kConcat,
  kFunction,  // op: UPPER, LOWER, LENGTH, SUBSTRING, COALESCE, ...; ARRAY, MAP, ROW
              // constructors; ITEM (x[i]); FIELD (x.f: `column` = field index)
  kCase,      // args: (when, then)... [else]; has_else
  kCast,
  kIn,    // args[0] IN args[1..]
  kLike,  // args[0] LIKE args[1] [ESCAPE args[2]]
  kIsNull,
  kSubquery,  // a correlated subquery, run per row: args = the outer columns it reads, then
              // (IN) the left operand; `correlated` runs it
};

struct BoundExpr;
struct RandomState;         // functions.cc
struct CorrelatedSubquery;  // evaluate.cc
using BoundExprPtr = std::unique_ptr<BoundExpr>;

struct BoundExpr {
  BoundKind kind = BoundKind::kConstant;
  DataType type;
  bool null_literal = false;  // the untyped NULL literal (its type adapts to the context)
  Pos pos;
  Value constant;
  int column = -1;
  std::string op;
  std::vector<BoundExprPtr> args;
  bool negated = false;  // NOT IN, NOT LIKE, IS NOT NULL; a kCast: TRY_CAST (NULL on failure)
  bool has_else = false;
  int cast_mode = 0;  // CastMode of a kCast

  // kIn over a subquery's values: their byte encodings (AppendKey), and whether one was NULL.
  std::shared_ptr<const std::unordered_set<std::string>> in_set;
  bool in_set_has_null = false;
  // RAND(seed) / RAND_INTEGER(seed, n): the call's own sequence, seeded at its first row.
  mutable std::shared_ptr<RandomState> random_state;
  // kSubquery: the subquery, its form (EXISTS, IN, scalar) and its results by outer values.
  std::shared_ptr<CorrelatedSubquery> correlated;

  bool IsConstant() const { return kind == BoundKind::kConstant; }
};

struct OuterFrame;

// The rows a query computed: its columns and every row.
using QueryRows = std::pair<std::vector<Field>, std::vector<Row>>;

// How the binder runs the subqueries of expressions (query.cc provides them).
struct SubqueryRunner {
  // Runs an uncorrelated subquery now: its results become constants. Used only while a row of an
  // enclosing query is present (a correlated subquery being run); otherwise an uncorrelated
  // subquery is planned now and run when the statement runs (`deferred`).
  std::function<Result<QueryRows>(const SelectStmt&)> run;
  // As `later`, for a subquery that reads no enclosing row: it is planned now (plan_only) and
  // run once when the statement runs (ResolveSubqueries).
  std::function<std::function<Result<QueryRows>(OuterFrame* frame, bool plan_only)>(
      std::shared_ptr<const SelectStmt> sq)>
      deferred;
  // Whether a correlated subquery may run per row here (not in a streaming query).
  bool per_row = false;
  // A function that plans (and unless plan_only, runs) `sq` later, as often as asked, with the
  // statement's WITH queries and name scope, the enclosing rows present now and then `frame`,
  // every table at the snapshot it had when first opened by it.
  std::function<std::function<Result<QueryRows>(OuterFrame* frame, bool plan_only)>(
      std::shared_ptr<const SelectStmt> sq)>
      later;
};

// A row of an enclosing query, which the names of a correlated subquery may read: binding a
// name that the subquery's own columns do not have tries the frames, innermost first.
struct OuterFrame {
  const Scope* scope = nullptr;
  // The values of the enclosing row, by scope column; null: a probe, where reading a column
  // fails the binding (and sets `hit`): the subquery is correlated.
  const Row* row = nullptr;
  std::vector<bool>* used = nullptr;  // the scope columns read, marked (optional)
  bool hit = false;
};
// Makes `frame` the innermost while it lives (per thread, as planning is).
class OuterFrameScope {
 public:
  explicit OuterFrameScope(OuterFrame* frame);
  ~OuterFrameScope();
  OuterFrameScope(const OuterFrameScope&) = delete;
  OuterFrameScope& operator=(const OuterFrameScope&) = delete;
};
// Whether `names` ([qualifier.]column) resolves in one of the enclosing rows (a constant of the
// query being planned).
bool ResolvesInOuterFrame(const std::vector<std::string>& names, const Pos& pos);
// The frames present (a runner installs them again around a later run).
std::vector<OuterFrame*> CurrentOuterFrames();
// Whether every enclosing row present is a probe (no row): nothing is being run per row, so an
// uncorrelated subquery bound now can wait until the statement runs.
bool OnlyProbeFrames();

// One aggregate call of a grouped query. Its argument is bound against the input scope.
struct AggregateCall {
  std::string function;         // COUNT, SUM, MIN, MAX, AVG, variances, LISTAGG
  std::string separator = ",";  // LISTAGG's
  bool distinct = false;
  bool star = false;
  BoundExprPtr arg;
  DataType type;    // result type
  std::string key;  // canonical text: equal calls are computed once
};

// How expressions above a GROUP BY see the row: [group key values..., aggregate values...].
struct AggregateBinding {
  const Scope* input = nullptr;
  std::vector<BoundExprPtr> keys;      // bound against `input`
  std::vector<std::string> key_texts;  // canonical text of each GROUP BY expression
  std::vector<int> key_columns;        // input column of a plain column key, else -1
  std::vector<AggregateCall> calls;
};

// One window function call of a query (f(...) OVER (...)), computed by the window operator
// over the query's input rows; expressions bound against the input.
struct WindowCall {
  // ROW_NUMBER, RANK, DENSE_RANK, LAG, LEAD, FIRST_VALUE, LAST_VALUE, or an aggregate
  // (COUNT, SUM, MIN, MAX, AVG; `aggregate` holds it).
  std::string function;
  std::vector<BoundExprPtr> args;
  AggregateCall aggregate;
  std::vector<BoundExprPtr> partition_by;
  std::string partition_key;  // canonical text of partition_by: equal partitionings are equal
  std::vector<BoundExprPtr> order_by;
  std::vector<bool> descending, nulls_first;
  // The frame: as written, or the default (with ORDER BY: the partition's rows up to the current
  // row and its peers; without: the whole partition).
  bool has_frame = false;
  bool rows = false;
  FrameBound start, end;
  DataType type;
  std::string key;  // canonical text: equal calls are computed once
};

// How expressions of a query with window functions see the row: the input's columns, then one
// column per call.
struct WindowBinding {
  const Scope* input = nullptr;
  std::vector<WindowCall> calls;
};

// True when `e` contains a window function call (f(...) OVER (...)).
bool ContainsWindow(const Expr& e);
// True when `e` contains a subquery (IN (SELECT ...), EXISTS, a scalar subquery).
bool ContainsSubquery(const Expr& e);

// True when `e` contains an aggregate function call.
bool ContainsAggregate(const Expr& e);
bool IsAggregateFunction(const std::string& upper_name);
// STDDEV_POP, STDDEV_SAMP (STDDEV), VAR_POP, VAR_SAMP (VARIANCE).
bool IsVarianceFunction(const std::string& upper_name);

class Binder {
 public:
  // Binds against `scope`; with `aggregates`, binds expressions computed after grouping (select
  // list, HAVING, ORDER BY of a grouped query), adding the aggregate calls it meets.
  explicit Binder(const Scope* scope, AggregateBinding* aggregates = nullptr)
      : scope_(scope), agg_(aggregates) {}

  Result<BoundExprPtr> Bind(const Expr& e);
  // Window function calls met are added to `windows` and bound as its columns; without, a
  // window function is an error.
  void set_windows(WindowBinding* windows) { windows_ = windows; }
  // Subqueries in expressions (IN (SELECT ...), EXISTS, scalar) are planned by `runner` while
  // binding and run when the statement runs (ResolveSubqueries makes their results constants);
  // without, a subquery is an error.
  void set_subqueries(const SubqueryRunner* runner) { subqueries_ = runner; }
  // Binds a predicate (WHERE, HAVING, ON): must be BOOLEAN.
  Result<BoundExprPtr> BindPredicate(const Expr& e, const char* clause);

 private:
  Result<BoundExprPtr> BindInner(const Expr& e);
  Result<BoundExprPtr> BindLiteral(const Expr& e);
  Result<BoundExprPtr> BindBinary(const Expr& e);
  Result<BoundExprPtr> BindFunction(const Expr& e);
  Result<BoundExprPtr> BindAggregate(const Expr& e);
  Result<BoundExprPtr> BindWindow(const Expr& e);
  Result<BoundExprPtr> BindSubquery(const Expr& e);
  Result<BoundExprPtr> BindCorrelated(const Expr& e);
  Result<BoundExprPtr> BindDeferred(const Expr& e,
                                    std::function<Result<QueryRows>(OuterFrame*, bool)> run,
                                    const std::vector<Field>& fields);
  Status TypeSubquery(const Expr& e, const std::vector<Field>& fields, CorrelatedSubquery* c,
                      BoundExpr* node);
  Result<BoundExprPtr> BindInLeft(const Expr& e, const DataType& values, DataType* common);
  // A name the scope does not have, read from an enclosing row; nullptr when none has it.
  Result<BoundExprPtr> BindOuterColumn(const Expr& e);
  Result<BoundExprPtr> BindIntervalArithmetic(const Expr& e);
  Result<BoundExprPtr> BindCase(const Expr& e);
  Result<BoundExprPtr> BindNested(const Expr& e, std::vector<BoundExprPtr> args);
  Result<BoundExprPtr> BindFieldAccess(BoundExprPtr base, const std::string& name, const Pos& pos);

  static constexpr int64_t kMaxBinds = 1'000'000;
  const Scope* scope_;
  AggregateBinding* agg_;
  WindowBinding* windows_ = nullptr;
  const SubqueryRunner* subqueries_ = nullptr;
  int64_t binds_ = 0;  // Bind calls so far
};

// While alive, records the type each NULL literal at one of `positions` takes from its context
// when the binder converts it (CastTo: the operand it is compared with, the column it is
// assigned or inserted to, the other operand of its arithmetic, an IN list's type, ...): how a
// prepared statement's parameters are typed before it runs (sql/session/prepared.h
// DescribeStatement plans it with a NULL for each). Per thread; scopes nest (the innermost
// records).
class ParameterTypeScope {
 public:
  explicit ParameterTypeScope(std::vector<Pos> positions);
  ~ParameterTypeScope();
  ParameterTypeScope(const ParameterTypeScope&) = delete;
  ParameterTypeScope& operator=(const ParameterTypeScope&) = delete;
  // Per position: the first type recorded for it, or nullopt.
  const std::vector<std::optional<DataType>>& types() const { return types_; }
  // Records `type` for the literal at `pos` when it is one of the positions not yet typed.
  void Record(const Pos& pos, const DataType& type);
  static ParameterTypeScope* Current();

 private:
  std::vector<Pos> positions_;
  std::vector<std::optional<DataType>> types_;
  ParameterTypeScope* previous_;
};

// Wraps `e` in a cast to `to` (no-op when the type already matches). Constants are converted now,
// so a bad literal is reported at bind time with its position.
Result<BoundExprPtr> CastTo(BoundExprPtr e, const DataType& to, int cast_mode);
// A comparison `a op b` with both sides converted to their comparison type.
Result<BoundExprPtr> MakeComparison(const std::string& op, BoundExprPtr a, BoundExprPtr b,
                                    const Pos& pos);
BoundExprPtr MakeConstant(Value v, const DataType& type, const Pos& pos);

Result<Value> Evaluate(const BoundExpr& e, const Row& row);
// Evaluates a predicate: true only when the result is TRUE (not FALSE, not NULL).
Result<bool> EvaluatePredicate(const BoundExpr& e, const Row& row);

// The code points of UTF-8 text (a malformed byte counts as one).
std::vector<uint32_t> CodePoints(const std::string& s);

// `s` LIKE `pattern` (% and _; no escape character).
bool SqlLike(std::string_view s, std::string_view pattern);

// Calls f(column) for every column slot the expression reads.
void CollectColumns(const BoundExpr& e, std::vector<bool>* used);

// For EXPLAIN: "; a correlated subquery run per row (by sc.id)" for each in `exprs` (and for
// a subquery not yet run, "; a subquery run once when the query starts"), or "".
std::string DescribeCorrelated(const std::vector<BoundExprPtr>& exprs);
// Runs the uncorrelated subqueries in `*e` that binding planned (BindDeferred) and puts their
// results in their place as constants (an IN's values as its hash set); each runs once however
// many copies of it the plan holds. Sets *changed when one was replaced.
Status ResolveSubqueries(BoundExprPtr* e, bool* changed = nullptr);
// Whether `e` holds a subquery that has not run yet.
bool HasDeferredSubquery(const BoundExpr& e);

// A deep copy of `e` (a RAND(seed) call gets a sequence of its own, started afresh).
BoundExprPtr CloneBound(const BoundExpr& e);
// True when `e` calls a function whose value is not fixed by its arguments (RAND, UUID, NOW,
// ...): moving it to another place in a plan could change the result.
bool IsVolatile(const BoundExpr& e);

}  // namespace tributary::sql
