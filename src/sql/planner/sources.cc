// The inputs of a query (planner/query.h): tables, system and change tables, views, WITH queries
// and subqueries of FROM opened as Sources, with the scan options and snapshot hints they read
// at; the planning state of the statement being planned (its WITH queries, the snapshots a
// correlated subquery's tables are pinned to).
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
#include "sql/planner/information_schema.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"
#include "sql/stream/streaming_operators.h"
#include "table/system_tables.h"
#include "tributary/options.h"
#include "tributary/stream_scan.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

namespace planner {

// The session's 'table.local-time-zone'; unset: UTC, so results do not depend on the machine.
std::string SessionTimeZone(const QueryContext& session) {
  auto it = session.options().find("table.local-time-zone");
  return it == session.options().end() ? "" : it->second;
}

ScanOptions MakeScanOptions(const ScanPlan& plan,
                            const std::map<std::string, std::string>& dynamic_options,
                            const std::string& time_zone) {
  ScanOptions opts;
  opts.time_zone = time_zone;
  opts.projection = plan.projection;
  opts.filters = plan.filters;
  opts.limit = plan.limit;
  opts.snapshot_id = plan.snapshot_id;
  opts.dynamic_options = dynamic_options;
  return opts;
}

Status ApplySnapshotHint(const Source& source, const Pos& hints_pos, ScanPlan* plan) {
  auto it = source.dynamic_options.find(options::kScanSnapshotId.key);
  if (it == source.dynamic_options.end()) return Status::OK();
  try {
    plan->snapshot_id = std::stoll(it->second);
  } catch (...) {
    return ErrorAt(hints_pos, "'scan.snapshot-id' must be a number");
  }
  return Status::OK();
}

// `owner` (optional): holds `q`, kept alive with the plan.
Status OpenSubquery(const QueryContext& session, const SelectStmt& q, Source* src,
                    std::shared_ptr<const SelectStmt> owner = nullptr);

namespace {

// The WITH queries of the statements being planned, innermost last, and those being expanded
// (planning is synchronous and one thread plans one statement at a time).
thread_local std::vector<const std::vector<CommonTableExpr>*> t_with_scopes;
thread_local std::vector<const CommonTableExpr*> t_with_expanding;
thread_local bool t_explaining = false;  // ExplainingScope
// While a correlated subquery is planned or run (SubqueryRunner::later): the snapshot each table
// (by path) is read at, taken when the table is first opened.
using SnapshotPins = std::map<std::string, std::optional<int64_t>>;
thread_local std::shared_ptr<SnapshotPins> t_snapshot_pins;

const CommonTableExpr* FindWithQuery(const std::string& name) {
  for (auto scope = t_with_scopes.rbegin(); scope != t_with_scopes.rend(); ++scope) {
    for (const CommonTableExpr& cte : **scope) {
      if (cte.name == name) return &cte;
    }
  }
  return nullptr;
}

// The input `ref` names WITH query `cte`: its query planned here (each reference plans it anew).
Result<Source> OpenWithQuery(const QueryContext& session, const TableRef& ref,
                             const CommonTableExpr& cte, const std::string& what = "WITH query") {
  if (std::find(t_with_expanding.begin(), t_with_expanding.end(), &cte) != t_with_expanding.end()) {
    return NotSupportedAt(ref.pos, what + " '" + cte.name +
                                       "' reads itself; recursive queries are not supported yet");
  }
  if (!ref.hints.empty()) {
    return ErrorAt(ref.hints_pos,
                   "OPTIONS hints apply to tables, not to " + what + " '" + cte.name + "'");
  }
  if (!ref.partition.empty()) {
    return ErrorAt(ref.pos,
                   "PARTITION (...) applies to tables, not to " + what + " '" + cte.name + "'");
  }
  t_with_expanding.push_back(&cte);
  Source src;
  Status opened = OpenSubquery(session, *cte.query, &src);
  t_with_expanding.pop_back();
  TRIB_RETURN_NOT_OK(opened);
  if (!cte.columns.empty()) {
    if (cte.columns.size() != src.fields.size()) {
      return ErrorAt(cte.pos, what + " '" + cte.name + "' names " +
                                  std::to_string(cte.columns.size()) + " columns but returns " +
                                  std::to_string(src.fields.size()));
    }
    for (size_t i = 0; i < cte.columns.size(); i++) src.fields[i].name = cte.columns[i];
  }
  src.qualifier = ref.alias.empty() ? cte.name : ref.alias;
  src.name = what + " " + cte.name;
  return src;
}

}  // namespace

WithQueriesInScope::WithQueriesInScope(const std::vector<CommonTableExpr>& with)
    : pushed_(!with.empty()) {
  if (pushed_) t_with_scopes.push_back(&with);
}
WithQueriesInScope::~WithQueriesInScope() {
  if (pushed_) t_with_scopes.pop_back();
}
ExplainingScope::ExplainingScope() { t_explaining = true; }
ExplainingScope::~ExplainingScope() { t_explaining = false; }
bool Explaining() { return t_explaining; }
namespace {
thread_local int t_planning_only = 0;
}  // namespace
PlanningOnlyScope::PlanningOnlyScope() { t_planning_only++; }
PlanningOnlyScope::~PlanningOnlyScope() { t_planning_only--; }
bool ResolvingSubqueries() { return !t_explaining && t_planning_only == 0; }

// SubqueryRunner::later's runner (query_internal.h).

// SubqueryRunner::later: `sq` planned (and run) again on demand, as it would be planned now:
// with the statement's WITH queries, the name scope (a view's database), the enclosing rows of
// the subqueries around it, and each table at the snapshot it first had.
std::function<Result<QueryRows>(OuterFrame*, bool)> CorrelatedRunner(
    const QueryContext& session, std::shared_ptr<const SelectStmt> sq, bool with_frames) {
  std::vector<std::vector<CommonTableExpr>> with;
  for (const auto* scope : t_with_scopes) with.push_back(*scope);
  std::shared_ptr<SnapshotPins> pins =
      t_snapshot_pins ? t_snapshot_pins : std::make_shared<SnapshotPins>();
  return
      [&session, sq = std::move(sq), with = std::move(with), pins,
       frames = with_frames ? CurrentOuterFrames() : std::vector<OuterFrame*>{},
       names = session.ResolvingIn()](OuterFrame* innermost, bool plan_only) -> Result<QueryRows> {
        QueryContext::NameScope name_scope(session, names.first, names.second);
        std::vector<const std::vector<CommonTableExpr>*> scopes;
        for (const auto& w : with) scopes.push_back(&w);
        scopes.swap(t_with_scopes);
        std::shared_ptr<SnapshotPins> outer_pins = std::exchange(t_snapshot_pins, pins);
        std::vector<std::unique_ptr<OuterFrameScope>> in;
        for (OuterFrame* f : frames) in.push_back(std::make_unique<OuterFrameScope>(f));
        in.push_back(std::make_unique<OuterFrameScope>(innermost));
        auto ran = [&]() -> Result<QueryRows> {
          std::optional<PlanningOnlyScope> planning;
          if (plan_only) planning.emplace();
          TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenQuery(session, *sq));
          std::vector<Field> fields = op->fields();
          if (plan_only) return std::make_pair(std::move(fields), std::vector<Row>());
          TRIB_ASSIGN_OR_RETURN(std::vector<Row> rows, CollectRows(*op));
          return std::make_pair(std::move(fields), std::move(rows));
        }();
        while (!in.empty()) in.pop_back();
        t_snapshot_pins = std::move(outer_pins);
        scopes.swap(t_with_scopes);
        return ran;
      };
}

Result<Source> OpenSourceAs(const QueryContext& session, const TableRef& ref);

Result<Source> OpenSource(const QueryContext& session, const TableRef& ref) {
  TRIB_ASSIGN_OR_RETURN(Source src, OpenSourceAs(session, ref));
  if (ref.system_time && ((!src.table && !src.computed_view) || !src.change_table.empty())) {
    return ErrorAt(ref.system_time->pos,
                   "FOR SYSTEM_TIME AS OF applies to tables, not to '" + src.name + "'");
  }
  if (ref.column_aliases.empty()) return src;
  // FROM ... AS x (a, b): the input's columns renamed (a table's in the scope only; its scan
  // still reads the table's own columns).
  if (ref.column_aliases.size() != src.fields.size()) {
    return ErrorAt(ref.pos, "'" + src.qualifier + "' has " + std::to_string(src.fields.size()) +
                                " columns but " + std::to_string(ref.column_aliases.size()) +
                                " names were given");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < src.fields.size(); i++) {
    if (!seen.insert(ref.column_aliases[i]).second) {
      return ErrorAt(ref.pos, "column name '" + ref.column_aliases[i] + "' is given twice");
    }
    src.fields[i].name = ref.column_aliases[i];
  }
  return src;
}

Result<Source> OpenSourceAs(const QueryContext& session, const TableRef& ref) {
  Source src;
  if (!ref.subquery && ref.name.parts.size() == 1) {
    if (const CommonTableExpr* cte = FindWithQuery(ref.name.parts[0])) {
      return OpenWithQuery(session, ref, *cte);
    }
  }
  if (!ref.subquery) {
    if (const QueryContext::TemporaryView* view = session.FindTemporaryView(ref.name)) {
      // The view's body sees neither the statement's WITH queries nor its current database:
      // it reads what it read where it was created.
      QueryContext::NameScope names(session, view->catalog, view->database);
      std::vector<const std::vector<CommonTableExpr>*> outer_with;
      outer_with.swap(t_with_scopes);
      auto src = OpenWithQuery(session, ref, view->query, "view");
      outer_with.swap(t_with_scopes);
      return src;
    }
  }
  if (ref.subquery) {
    TRIB_RETURN_NOT_OK(OpenSubquery(session, *ref.subquery, &src));
    src.qualifier = ref.alias;
    src.name = "subquery";
    return src;
  }
  TRIB_ASSIGN_OR_RETURN(ResolvedName rn, session.ResolveTable(ref.name));
  if (IsInformationSchema(rn.id.database) && rn.id.system_table.empty() &&
      ref.name.parts.size() >= 2) {
    // information_schema.<table>: computed from the catalog (information_schema.h).
    if (!ref.hints.empty()) {
      return NotSupportedAt(ref.hints_pos,
                            "OPTIONS hints on information_schema tables are "
                            "not supported");
    }
    auto data = ReadInformationSchema(*rn.catalog, rn.catalog_name, rn.id.table);
    if (!data.ok()) return ErrorAt(ref.name.pos, data.status().message());
    src.qualifier = ref.alias.empty() ? rn.id.table : ref.alias;
    src.name = "information_schema." + rn.id.table;
    src.fields = std::move(data->fields);
    src.rows = std::move(data->rows);
    return src;
  }
  OptionList hints = ref.hints;
  TRIB_RETURN_NOT_OK(TakeBranchHint(&hints, &rn.id));
  src.qualifier = ref.alias.empty() ? rn.id.table : ref.alias;
  src.name = rn.id.ToString();
  if (!rn.id.system_table.empty() && session.streaming() &&
      table::IsChangeTable(rn.id.system_table)) {
    // A streaming read of a change table follows its table (OpenStreamingQuery).
    Identifier base = rn.id;
    base.system_table.clear();
    auto table = rn.catalog->GetTable(base);
    if (!table.ok()) return ErrorAt(ref.name.pos, table.status().message());
    src.table = std::move(*table);
    src.change_table = rn.id.system_table;
    src.fields = table::ChangeTableFields(src.change_table, *src.table->schema());
    if (!hints.empty()) {
      auto opts = NormalizeHints(hints, *src.table->schema());
      if (!opts.ok()) return ErrorAt(ref.hints_pos, opts.status().message());
      src.dynamic_options = std::move(*opts);
    }
    return src;
  }
  if (!rn.id.system_table.empty()) {
    std::map<std::string, std::string> options;
    if (!hints.empty()) {
      // Checked as the table's options are (did-you-mean), then by the system table: each one
      // it takes no meaning from is refused by name.
      Identifier base = rn.id;
      base.system_table.clear();
      auto table = rn.catalog->GetTable(base);
      if (!table.ok()) return ErrorAt(ref.name.pos, table.status().message());
      auto opts = NormalizeHints(hints, *(*table)->schema());
      if (!opts.ok()) return ErrorAt(ref.hints_pos, opts.status().message());
      options = std::move(*opts);
    }
    auto data = rn.catalog->ReadSystemTable(rn.id, options);
    if (!data.ok() && !options.empty() && data.status().code() == StatusCode::kNotSupported) {
      return NotSupportedAt(ref.hints_pos, data.status().message());
    }
    if (!data.ok()) return ErrorAt(ref.name.pos, data.status().message());
    src.fields = std::move(data->fields);
    src.rows = std::move(data->rows);
    return src;
  }
  auto table = rn.catalog->GetTable(rn.id);
  if (!table.ok()) return ErrorAt(ref.name.pos, table.status().message());
  src.table = std::move(*table);
  src.fields = src.table->schema()->fields;
  if (ref.system_time && ref.system_time->kind != ExprKind::kLiteral) {
    // FOR SYSTEM_TIME AS OF a column: a lookup join reads the table as of that processing time,
    // i.e. its latest snapshot (PlanJoinInputs checks the rest).
    // Its hints say how it is looked up ('lookup.*'); any other would read it otherwise than
    // as its latest snapshot.
    for (const auto& h : hints) {
      if (h.key.rfind("lookup.", 0) != 0 && h.key != "client.lookup.queue-size") {
        return NotSupportedAt(ref.hints_pos,
                              "OPTIONS hints on the table of a lookup join take "
                              "'lookup.*' options (and "
                              "'client.lookup.queue-size') only; '" +
                                  h.key + "' is not supported there");
      }
    }
    src.lookup_time = ref.system_time.get();
  } else if (ref.system_time) {
    // FOR SYSTEM_TIME AS OF TIMESTAMP '...': time travel, as 'scan.timestamp'.
    const Expr& e = *ref.system_time;
    const bool literal =
        e.literal_kind == LiteralKind::kTimestamp || e.literal_kind == LiteralKind::kString;
    if (!literal) {
      return ErrorAt(e.pos,
                     "FOR SYSTEM_TIME AS OF takes TIMESTAMP 'YYYY-MM-DD HH:MM:SS' (time "
                     "travel) or a processing-time column (a lookup join)");
    }
    if (!hints.empty()) {
      return ErrorAt(e.pos,
                     "FOR SYSTEM_TIME AS OF and OPTIONS hints together are not supported; "
                     "use one of them");
    }
    auto millis = SessionTimeToUtcMillis(session, e.text);
    if (!millis.ok()) return ErrorAt(e.pos, "FOR SYSTEM_TIME AS OF: " + millis.status().message());
    src.dynamic_options["scan.timestamp-millis"] = std::to_string(*millis);
  }
  if (!hints.empty()) {
    auto opts = NormalizeHints(hints, *src.table->schema());
    if (!opts.ok()) return ErrorAt(ref.hints_pos, opts.status().message());
    src.dynamic_options = std::move(*opts);
    // 'scan.timestamp' is 'scan.timestamp-millis' written as a time of the session's zone.
    auto ts = src.dynamic_options.find(options::kScanTimestamp.key);
    if (ts != src.dynamic_options.end()) {
      if (options::IsSet(src.dynamic_options, options::kScanTimestampMillis)) {
        return ErrorAt(ref.hints_pos, "set one of 'scan.timestamp' and 'scan.timestamp-millis'");
      }
      auto millis = SessionTimeToUtcMillis(session, ts->second);
      if (!millis.ok())
        return ErrorAt(ref.hints_pos, "'scan.timestamp': " + millis.status().message());
      src.dynamic_options["scan.timestamp-millis"] = std::to_string(*millis);
      src.dynamic_options.erase("scan.timestamp");
    }
  }
  if (t_snapshot_pins && hints.empty() && !ref.system_time) {
    // A correlated subquery run per row reads each table at one snapshot: the one it had when
    // the statement was planned.
    auto [pin, fresh] = t_snapshot_pins->try_emplace(src.table->path());
    if (fresh) {
      auto latest = src.table->LatestSnapshotId();
      if (!latest.ok()) return ErrorAt(ref.name.pos, latest.status().message());
      pin->second = *latest;
    }
    if (pin->second) src.dynamic_options["scan.snapshot-id"] = std::to_string(*pin->second);
  }
  if (!ref.raw) {
    // Computed columns: the table is read through the SELECT that computes them (filters on its
    // stored columns still reach the scan through PushIntoSubquery).
    auto computed = ComputedColumnsOf(src.table->schema()->options);
    if (!computed.ok()) return ErrorAt(ref.name.pos, computed.status().message());
    if (!computed->empty()) {
      auto view = ComputedColumnsQuery(ref, src.table->schema()->fields, *computed);
      if (!view.ok()) return ErrorAt(ref.name.pos, view.status().message());
      Source out;
      TRIB_RETURN_NOT_OK(OpenSubquery(session, **view, &out, *view));
      out.qualifier = src.qualifier;
      out.name = src.name;
      out.computed_view = true;
      out.lookup_time = src.lookup_time;
      return out;
    }
  }
  return src;
}

// A subquery of FROM (a view's, a WITH query's): a plain SELECT is planned and left unbuilt
// (src->plan), so the query reading it can push its filters in; UNION and VALUES are opened.
Status OpenSubquery(const QueryContext& session, const SelectStmt& q, Source* src,
                    std::shared_ptr<const SelectStmt> owner) {
  if (!q.set_operands.empty() || !q.values.empty()) {
    TRIB_ASSIGN_OR_RETURN(src->op, OpenQuery(session, q));
    src->fields = src->op->fields();
    return Status::OK();
  }
  if (Status st = CheckStackDepth("query"); !st.ok()) return ErrorAt(q.pos, st.message());
  auto plan = [&] {
    WithQueriesInScope with(q.with);
    return PlanSelect(session, q);
  }();
  if (!plan.ok()) return plan.status();
  src->plan = std::make_shared<SelectPlan>(std::move(*plan));
  src->fields = src->plan->fields;
  if (owner && !src->plan->rewritten) src->plan->rewritten = std::move(owner);
  return Status::OK();
}

}  // namespace planner

}  // namespace tributary::sql
