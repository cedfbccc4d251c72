// Streaming SELECTs (SET 'execution.runtime-mode' = 'streaming'): the start-up position of a
// table's stream, the stream source of the FROM table (its changes with an `op` column, the
// changelog rebuilt for tables without a producer), lookup joins and delta joins over streams,
// then the select list and LIMIT. Planned as a batch SELECT is (query.cc), built here.
// Internal to sql/.
#include <algorithm>
#include <string_view>

#include "common/datetime.h"
#include "common/stack_guard.h"
#include "common/strings.h"
#include "common/timezone.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "sql/exec/operators.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"
#include "sql/planner/stream_job.h"
#include "sql/stream/streaming_operators.h"
#include "tributary/options.h"
#include "tributary/stream_scan.h"
#include "tributary/table_scan.h"

namespace tributary::sql {

namespace planner {

namespace {
thread_local StreamJobSources* t_stream_job = nullptr;
thread_local bool t_in_job = false;  // planning a job's query (also for EXPLAIN: no sources)
// The sink of the job whose query is planned, until its top-level SELECT takes it (its branches
// and subqueries see none).
thread_local const TableSchema* t_job_sink = nullptr;
}  // namespace

StreamJobScope::StreamJobScope(StreamJobSources* job, const TableSchema* sink)
    : previous_(t_stream_job), previous_in_job_(t_in_job), previous_sink_(t_job_sink) {
  t_stream_job = job;
  t_in_job = true;
  t_job_sink = sink;
}
StreamJobScope::~StreamJobScope() {
  t_stream_job = previous_;
  t_in_job = previous_in_job_;
  t_job_sink = previous_sink_;
}

Result<std::unique_ptr<StreamScan>> OpenStream(Table& table, StreamOptions* options,
                                               bool insert_only) {
  if (t_stream_job) TRIB_RETURN_NOT_OK(t_stream_job->Opening(table, options));
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<StreamScan> stream, table.NewStreamScan(*options));
  if (t_stream_job) t_stream_job->Opened(table, stream.get(), insert_only);
  return stream;
}

}  // namespace planner

using namespace planner;

namespace {

// Where a streaming read starts, from the table's options and the query's hints (hints win):
// 'scan.startup.mode', or the start implied by 'scan.snapshot-id' / 'scan.timestamp-millis' /
// 'scan.startup.timestamp' (epoch milliseconds, or a date-time in the session time zone).
Status StreamStartup(const QueryContext& session, const TableSchema& schema,
                     const std::map<std::string, std::string>& hints, StreamOptions* o) {
  auto get = [&](const char* key) -> std::optional<std::string> {
    auto it = hints.find(key);
    if (it != hints.end()) return it->second;
    return schema.Option(key);
  };
  for (const char* key : {"scan.tag-name", "scan.watermark"}) {
    if (get(key)) {
      return Status::NotSupported("'" + std::string(key) +
                                  "' in streaming mode is not supported yet");
    }
  }
  std::optional<std::string> mode = get("scan.startup.mode");
  if (auto id = get("scan.snapshot-id")) {
    TRIB_ASSIGN_OR_RETURN(int64_t v, options::ParseInt64(*id));
    o->startup_snapshot_id = v;
    if (!mode) mode = "from-snapshot";
  }
  if (auto ms = get("scan.timestamp-millis")) {
    TRIB_ASSIGN_OR_RETURN(int64_t v, options::ParseInt64(*ms));
    o->startup_timestamp_millis = v;
    if (!mode) mode = "timestamp";
  }
  if (auto text = get("scan.startup.timestamp")) {
    std::string_view v = options::Trim(*text);
    if (AllDigits(v)) {
      TRIB_ASSIGN_OR_RETURN(int64_t millis, options::ParseInt64(std::string(v)));
      o->startup_timestamp_millis = millis;
    } else {
      TRIB_ASSIGN_OR_RETURN(o->startup_timestamp_millis, SessionTimeToUtcMillis(session, v));
    }
    if (!mode) mode = "timestamp";
  }
  // Paimon's values in Fluss's key ('scan.startup.mode' = 'latest-full') mean what they mean in
  // Paimon's.
  if (mode && *mode != "full" && *mode != "earliest" && *mode != "latest" && *mode != "timestamp" &&
      *mode != "from-snapshot") {
    const bool has_id = get("scan.snapshot-id").has_value();
    const bool has_ts =
        get("scan.timestamp-millis").has_value() || get("scan.startup.timestamp").has_value();
    TRIB_ASSIGN_OR_RETURN(mode, options::StartupModeOfScanMode(*mode, has_id, has_ts));
    if (!mode) {
      // 'default': what the other options imply.
      if (has_id) mode = "from-snapshot";
      if (has_ts) mode = "timestamp";
    }
  }
  // Paimon's 'scan.mode' beside Fluss's 'scan.startup.mode': the one set at the more specific
  // level wins (a hint over a table option); set at one level, they must agree.
  if (auto paimon = get("scan.mode")) {
    const bool has_id = get("scan.snapshot-id").has_value();
    const bool has_ts =
        get("scan.timestamp-millis").has_value() || get("scan.startup.timestamp").has_value();
    TRIB_ASSIGN_OR_RETURN(std::optional<std::string> as_mode,
                          options::StartupModeOfScanMode(*paimon, has_id, has_ts));
    auto level = [&](const char* key) { return hints.count(key) ? 2 : schema.Option(key) ? 1 : 0; };
    const int paimon_level = level("scan.mode"), fluss_level = level("scan.startup.mode");
    if (as_mode && fluss_level < paimon_level) {
      mode = as_mode;
    } else if (as_mode && fluss_level == paimon_level && *mode != *as_mode) {
      return Status::Invalid("'scan.mode' = '" + *paimon + "' and 'scan.startup.mode' = '" +
                             *get("scan.startup.mode") +
                             "' start the read at different places; "
                             "set one of them");
    }
  }
  if (mode) o->startup_mode = *mode;
  if (auto consumer = get("consumer-id")) o->consumer_id = *consumer;
  if (auto interval = get("continuous.discovery-interval")) {
    TRIB_ASSIGN_OR_RETURN(int64_t ms, options::ParseDurationMillis(*interval));
    o->discovery_interval = std::chrono::milliseconds(std::max<int64_t>(1, ms));
  }
  if (auto ignore = get("consumer.ignore-progress")) {
    o->consumer_ignore_progress = options::Trim(*ignore) == "true";
  }
  return Status::OK();
}

}  // namespace

namespace {
Result<OperatorPtr> FinishStreamingQuery(OperatorPtr op, SelectPlan plan, const SelectStmt& q);
}  // namespace

namespace {

// Whether a job selecting `items` (over `source`'s columns) from `source` alone, with no filter,
// into `sink` may take the source's changes as written (StreamOptions::upserts) instead of
// normalised: both tables deduplicate, neither orders by a 'sequence.field', the sink keeps no
// changelog of its own ('changelog-producer' = 'none'), no key moves between partitions of the
// source, and the sink's primary key is the source's, column for column, type for type. Then
// every normalised change (-U old / +U new of a key, -D, +I) does to the sink what the change as
// written does (an upsert or removal of that key), and what normalising drops (an unchanged row,
// the removal of a key never seen) changes no sink row.
// `items[c]`: the source column sink column c takes as it is (-1: computed).
bool UpsertsReachSink(const TableSchema& sink, const TableSchema& source,
                      const std::vector<int>& items) {
  if (!source.HasPrimaryKey() || !sink.HasPrimaryKey() || items.size() != sink.fields.size()) {
    return false;
  }
  for (const TableSchema* t : {&sink, &source}) {
    auto engine = options::Get(*t, options::kMergeEngine);
    auto producer = options::Get(*t, options::kChangelogProducer);
    if (!engine.ok() || *engine != options::MergeEngine::kDeduplicate || !producer.ok() ||
        *producer != options::ChangelogProducer::kNone ||
        options::IsSet(*t, options::kSequenceField)) {
      return false;
    }
  }
  // Every partition key in the source's primary key: a key stays in its partition.
  for (const auto& p : source.partition_keys) {
    if (std::find(source.primary_keys.begin(), source.primary_keys.end(), p) ==
        source.primary_keys.end()) {
      return false;
    }
  }
  if (sink.primary_keys.size() != source.primary_keys.size()) return false;
  std::vector<int> seen;
  for (const auto& k : sink.primary_keys) {
    const int c = sink.FieldIndex(k);
    if (c < 0) return false;
    const int f = items[c];
    if (f < 0 || f >= static_cast<int>(source.fields.size()) ||
        std::find(source.primary_keys.begin(), source.primary_keys.end(), source.fields[f].name) ==
            source.primary_keys.end() ||
        !(source.fields[f].type == sink.fields[c].type) ||
        std::find(seen.begin(), seen.end(), f) != seen.end()) {
      return false;
    }
    seen.push_back(f);
  }
  return true;
}

// A streaming operator's op column (column 0 of `op`), then `items` (taken) as `fields`.
OperatorPtr ProjectWithOp(OperatorPtr op, std::vector<BoundExprPtr>* items,
                          const std::vector<Field>& item_fields) {
  std::vector<BoundExprPtr> exprs;
  std::vector<Field> fields;
  auto op_ref = std::make_unique<BoundExpr>();
  op_ref->kind = BoundKind::kColumn;
  op_ref->column = 0;
  op_ref->type = DataType::String().NotNull();
  exprs.push_back(std::move(op_ref));
  fields.push_back(Field{0, "op", DataType::String().NotNull(), ""});
  for (size_t i = 0; i < items->size(); i++) {
    exprs.push_back(std::move((*items)[i]));
    Field f = item_fields[i];
    f.id = static_cast<int32_t>(fields.size());
    fields.push_back(std::move(f));
  }
  return MakeProject(std::move(op), std::move(exprs), std::move(fields));
}

// The stream of input `src` of a streaming query: a table, or a table with computed columns read
// through the SELECT computing them. Column 0 of the returned operator is the op; `slot[f]` is
// the column holding field f of `src` (-1: not read). `scan`: what a plain table's stream reads
// (projection and filters).
Result<OperatorPtr> OpenStreamInput(const QueryContext& session, Source* src, const ScanPlan& scan,
                                    const TableRef& ref,
                                    std::optional<std::chrono::milliseconds> idle_timeout,
                                    std::vector<int>* slot, bool upserts = false) {
  if (src->computed_view && src->plan && src->plan->source.table) {
    SelectPlan& inner = *src->plan;
    std::vector<int> inner_slot;
    TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenStreamInput(session, &inner.source, inner.scan, ref,
                                                          idle_timeout, &inner_slot, upserts));
    for (auto& c : inner.conjuncts) RemapColumns(c.get(), inner_slot);
    for (auto& it : inner.items) RemapColumns(it.get(), inner_slot);
    op = MakeFilter(std::move(op), std::move(inner.conjuncts));
    // The op column, then every column of the table (computed ones computed).
    slot->assign(src->fields.size(), -1);
    for (size_t f = 0; f < src->fields.size(); f++) (*slot)[f] = static_cast<int>(f) + 1;
    return ProjectWithOp(std::move(op), &inner.items, inner.fields);
  }
  if (!src->table) {
    return NotSupportedAt(ref.pos, "reading '" + src->name +
                                       "' in streaming mode (execution."
                                       "runtime-mode = 'streaming') is not supported yet");
  }
  StreamOptions opts;
  opts.projection = scan.projection;
  opts.filters = scan.filters;
  opts.time_zone = SessionTimeZone(session);
  opts.upserts = upserts;
  Status st = StreamStartup(session, *src->table->schema(), src->dynamic_options, &opts);
  if (!st.ok()) return ErrorAt(ref.hints_pos, st.message());
  auto stream = OpenStream(*src->table, &opts, src->table->schema()->primary_keys.empty());
  if (!stream.ok()) return ErrorAt(ref.name.pos, stream.status().message());
  // Expressions over the table read the streamed columns, after the op column.
  slot->assign(src->fields.size(), -1);
  for (size_t i = 0; i < scan.projection.size(); i++) {
    (*slot)[scan.projection[i]] = static_cast<int>(i) + 1;
  }
  TRIB_ASSIGN_OR_RETURN(options::ChangelogProducer producer,
                        options::Get(*src->table->schema(), options::kChangelogProducer));
  std::string describe = "StreamScan: " + src->name + " from '" + opts.startup_mode + "'";
  if (!src->table->schema()->primary_keys.empty()) {
    describe += producer == options::ChangelogProducer::kNone
                    ? (upserts ? ", new files of each commit as upserts (no ChangelogNormalize: "
                                 "the sink's primary key is the source's, its rows deduplicated)"
                               : ", new files of each commit normalised into a changelog "
                                 "(ChangelogNormalize: one row per key held)")
                    : ", changelog files ('changelog-producer' = '" +
                          std::string(options::ChangelogProducerName(producer)) + "')";
  }
  describe += ", columns [";
  for (size_t i = 0; i < scan.projection.size(); i++) {
    describe += (i ? ", " : "") + src->fields[scan.projection[i]].name;
  }
  describe += "]";
  for (const auto& f : scan.filter_texts) describe += ", filter " + f;
  return MakeStreamSource(std::move(src->table), std::move(*stream), idle_timeout, describe);
}

// The stream of `plan`'s single input (OpenStreamInput) with its WHERE applied: the conjuncts
// remapped to the stream's columns (`slot`) and checked on every change, also those pushed into
// the stream.
Result<OperatorPtr> OpenFilteredStream(const QueryContext& session, SelectPlan* plan,
                                       const TableRef& ref,
                                       std::optional<std::chrono::milliseconds> idle_timeout,
                                       std::vector<int>* slot, bool upserts = false) {
  const bool pushed = plan->source.table && plan->scan.all_pushed && !plan->scan.filters.empty();
  TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenStreamInput(session, &plan->source, plan->scan, ref,
                                                        idle_timeout, slot, upserts));
  for (auto& c : plan->conjuncts) RemapColumns(c.get(), *slot);
  return MakeFilter(std::move(op), std::move(plan->conjuncts),
                    pushed ? " (all pushed into the stream, checked again)" : "");
}

// A streaming query over lookup joins: the first input streamed, each change joined with the
// dimension tables' rows current when it arrives (MakeLookupJoin), then WHERE.
Result<OperatorPtr> OpenStreamingLookupJoins(
    const QueryContext& session, SelectPlan plan, const SelectStmt& q,
    std::optional<std::chrono::milliseconds> idle_timeout) {
  std::vector<JoinInput>& inputs = plan.joins;
  const size_t width = plan.scope.columns.size();
  // The first input, every column.
  ScanPlan scan;
  for (size_t f = 0; f < inputs[0].source.fields.size(); f++) {
    scan.projection.push_back(static_cast<int>(f));
  }
  std::vector<int> slot;
  TRIB_ASSIGN_OR_RETURN(OperatorPtr op, OpenStreamInput(session, &inputs[0].source, scan, *q.from,
                                                        idle_timeout, &slot));
  std::vector<int> position(width, -1);  // query slot -> operator column
  for (size_t f = 0; f < slot.size(); f++) position[inputs[0].first_slot + f] = slot[f];
  for (size_t j = 1; j < inputs.size(); j++) {
    JoinInput& in = inputs[j];
    Source& dim = in.source;
    if (!dim.table) {
      return NotSupportedAt(q.joins[j - 1].pos,
                            "in streaming mode a lookup join reads a table "
                            "without computed columns; '" +
                                dim.name + "' has some (not supported yet)");
    }
    // The key: the other side of each primary-key equality, in primary-key order, as the key
    // column's type.
    const auto& schema = *dim.table->schema();
    std::vector<BoundExprPtr> keys;
    for (size_t k = 0; k < in.lookup_keys.size(); k++) {
      BoundExpr& eq = *in.on[in.lookup_keys[k]];
      std::vector<bool> used;
      CollectColumns(*eq.args[0], &used);
      bool left_is_outer = true;
      for (size_t s = in.first_slot; s < used.size(); s++)
        left_is_outer = left_is_outer && !used[s];
      BoundExprPtr outer = CloneBound(*eq.args[left_is_outer ? 0 : 1]);
      RemapColumns(outer.get(), position);
      const Field& field = schema.fields[in.lookup_columns[k]];
      TRIB_ASSIGN_OR_RETURN(outer, CastTo(std::move(outer), field.type.WithNullable(true), 0));
      keys.push_back(std::move(outer));
    }
    const int before = static_cast<int>(op->fields().size());
    for (size_t f = 0; f < dim.fields.size(); f++) {
      position[in.first_slot + f] = before + static_cast<int>(f);
    }
    // Every ON conjunct is checked on the joined row, the key equalities too: the key was
    // converted to the key columns' types, which may lose what the equality compares.
    std::vector<BoundExprPtr> residual;
    for (size_t c = 0; c < in.on.size(); c++) {
      RemapColumns(in.on[c].get(), position);
      residual.push_back(std::move(in.on[c]));
    }
    // The cache: the dimension table's options, its hints over them.
    std::map<std::string, std::string> dim_options = schema.options;
    for (const auto& [k, v] : dim.dynamic_options) dim_options[k] = v;
    auto cache = ParseLookupCacheOptions(dim_options);
    if (!cache.ok()) return ErrorAt(q.joins[j - 1].pos, cache.status().message());
    if (auto it = session.options().find("table.exec.async-lookup.buffer-capacity");
        it != session.options().end() && cache->async_threads > 1) {
      // Flink's bound on asynchronous lookups in flight.
      TRIB_ASSIGN_OR_RETURN(int64_t n, options::ParseInt64(it->second));
      if (n > 0 && (cache->max_keys == 0 || n < cache->max_keys)) cache->max_keys = n;
    }
    std::string describe =
        std::string("LookupJoin: ") + (in.kind == JoinKind::kLeft ? "LEFT" : "INNER") + " ON " +
        in.on_text +
        (cache->mode == LookupCacheOptions::Mode::kFull
             ? "; each change finds its key in " + dim.name + "'s rows"
             : "; each change looks its key up in " + dim.name + "'s latest snapshot") +
        (in.lookup_prefix ? " (a prefix lookup by the bucket key: every row "
                            "of the key)"
                          : "") +
        DescribeLookupCache(*cache);
    op = MakeLookupJoin(std::move(op), std::move(dim.table), std::move(keys), in.lookup_columns,
                        in.lookup_prefix, std::move(residual), in.kind == JoinKind::kLeft, *cache,
                        std::move(describe));
  }
  for (auto& c : plan.conjuncts) RemapColumns(c.get(), position);
  for (auto& it : plan.items) RemapColumns(it.get(), position);
  op = MakeFilter(std::move(op), std::move(plan.conjuncts));
  return FinishStreamingQuery(std::move(op), std::move(plan), q);
}

// A streaming INNER join of two tables, as a delta join (MakeDeltaJoin) when it qualifies: both
// inputs primary-key tables read from 'full' or 'latest', joined by column equalities that
// contain each side's bucket key and partition keys (so a change's matches sit in one bucket of
// the other side). 'table.optimizer.delta-join.strategy': AUTO and FORCE plan it when it
// qualifies and say why not otherwise (FORCE as an error, AUTO as not supported yet: there is no
// other streaming join); NONE refuses it.
Result<OperatorPtr> OpenStreamingDeltaJoin(const QueryContext& session, SelectPlan plan,
                                           const SelectStmt& q,
                                           std::optional<std::chrono::milliseconds> idle_timeout) {
  const JoinClause& jc = q.joins[0];
  std::string strategy = "AUTO";
  if (auto it = session.options().find("table.optimizer.delta-join.strategy");
      it != session.options().end()) {
    strategy = it->second;  // SET stores enum values in their canonical spelling
  }
  if (strategy == "NONE") {
    return NotSupportedAt(jc.pos,
                          "a regular join in streaming mode (execution.runtime-mode = "
                          "'streaming') is not supported yet, and "
                          "'table.optimizer.delta-join.strategy' = 'NONE' rules out a "
                          "delta join");
  }
  auto refuse = [&](const std::string& why) -> Status {
    if (strategy == "FORCE") {
      return ErrorAt(jc.pos,
                     "'table.optimizer.delta-join.strategy' = 'FORCE', but this join "
                     "cannot be a delta join: " +
                         why);
    }
    return NotSupportedAt(jc.pos,
                          "a regular join in streaming mode (execution.runtime-mode = "
                          "'streaming') is not supported yet, and this one cannot be a "
                          "delta join: " +
                              why);
  };
  JoinInput& a = plan.joins[0];
  JoinInput& b = plan.joins[1];
  if (b.kind != JoinKind::kInner) return refuse("a delta join is an INNER join");
  for (const JoinInput* in : {&a, &b}) {
    if (!in->source.table || !in->source.change_table.empty()) {
      return refuse("'" + in->source.name + "' is not a table without computed columns");
    }
    if (in->source.table->schema()->primary_keys.empty()) {
      return refuse("'" + in->source.name + "' has no primary key");
    }
  }
  // The equalities between a column of each side.
  const int na = static_cast<int>(a.source.fields.size());
  std::vector<int> a_keys, b_keys;
  std::string pairs;
  for (const auto& c : b.on) {
    if (c->kind != BoundKind::kCompare || c->op != "=" || c->args.size() != 2) continue;
    int x = SlotUnder(*c->args[0]), y = SlotUnder(*c->args[1]);
    if (x < 0 || y < 0) continue;
    if (x >= na) std::swap(x, y);
    if (x >= na || y < na) continue;
    a_keys.push_back(x);
    b_keys.push_back(y - na);
    pairs += (pairs.empty() ? "" : ", ") + a.source.qualifier + "." + a.source.fields[x].name +
             " = " + b.source.qualifier + "." + b.source.fields[y - na].name;
  }
  for (const auto& [in, keys] :
       {std::pair<const JoinInput*, const std::vector<int>*>{&a, &a_keys}, {&b, &b_keys}}) {
    const TableSchema& schema = *in->source.table->schema();
    std::vector<std::string> needed = schema.BucketKeys();
    for (const auto& p : schema.partition_keys) needed.push_back(p);
    std::string missing;
    for (const std::string& n : needed) {
      const int f = schema.FieldIndex(n);
      if (std::find(keys->begin(), keys->end(), f) == keys->end()) {
        missing += (missing.empty() ? "" : ", ") + n;
      }
    }
    if (!missing.empty()) {
      return refuse("its equalities do not contain the bucket key and partition keys of '" +
                    in->source.name + "' (missing: " + missing + ")");
    }
  }
  // Flink's delta join cache: on by default, 10000 join keys of each side.
  bool cache_enabled = true;
  int64_t cache_sizes[2] = {10000, 10000};
  if (auto it = session.options().find("table.exec.delta-join.cache-enabled");
      it != session.options().end()) {
    options::ParseBool(it->second, &cache_enabled);
  }
  const char* size_keys[2] = {"table.exec.delta-join.left.cache-size",
                              "table.exec.delta-join.right.cache-size"};
  for (int s = 0; s < 2; s++) {
    auto it = session.options().find(size_keys[s]);
    if (it == session.options().end()) continue;
    TRIB_ASSIGN_OR_RETURN(cache_sizes[s], options::ParseInt64(it->second));
    if (cache_enabled && cache_sizes[s] <= 0) {
      return ErrorAt(jc.pos, std::string("'") + size_keys[s] +
                                 "' must be positive while "
                                 "'table.exec.delta-join.cache-enabled' is true (it is " +
                                 it->second + ")");
    }
  }
  // Both sides streamed with their log metadata (a start-up row has none).
  DeltaJoinSide sides[2];
  const TableRef* refs[2] = {&*q.from, &jc.table};
  JoinInput* inputs[2] = {&a, &b};
  std::string starts, caching, lookups;
  for (int s = 0; s < 2; s++) {
    Source& src = inputs[s]->source;
    StreamOptions opts;
    opts.with_change_metadata = true;
    opts.time_zone = SessionTimeZone(session);
    Status st = StreamStartup(session, *src.table->schema(), src.dynamic_options, &opts);
    if (!st.ok()) return ErrorAt(refs[s]->hints_pos, st.message());
    if (opts.startup_mode != "full" && opts.startup_mode != "latest") {
      return NotSupportedAt(refs[s]->pos, "a delta join reading '" + src.name + "' from '" +
                                              opts.startup_mode +
                                              "' is not supported yet (it "
                                              "reads from 'full' or 'latest')");
    }
    auto stream = OpenStream(*src.table, &opts, /*insert_only=*/false);
    if (!stream.ok()) return ErrorAt(refs[s]->name.pos, stream.status().message());
    starts += (s ? ", " : "") + src.name + " from '" + opts.startup_mode + "'";
    sides[s].table = std::move(src.table);
    sides[s].stream = std::move(*stream);
    sides[s].key_columns = s == 0 ? a_keys : b_keys;
    // A side's cached rows follow its changes, so those must be its merged rows, each change in
    // the snapshot that made it: changelogs of 'none' (normalised) and 'lookup' are; 'input'
    // hands out the written records, 'full-compaction' a later snapshot's, and a 'lookup' that
    // drops updates of some fields leaves them out.
    const TableSchema& schema = *sides[s].table->schema();
    TRIB_ASSIGN_OR_RETURN(options::ChangelogProducer producer,
                          options::Get(schema, options::kChangelogProducer));
    TRIB_ASSIGN_OR_RETURN(std::string ignore_fields,
                          options::Get(schema, options::kChangelogRowDeduplicateIgnoreFields));
    std::string why_not;
    if (producer != options::ChangelogProducer::kNone &&
        producer != options::ChangelogProducer::kLookup) {
      why_not = "its 'changelog-producer' = '" +
                std::string(options::ChangelogProducerName(producer)) +
                "' does not hand out each change's merged row in its snapshot";
    } else if (!ignore_fields.empty()) {
      why_not = "'changelog-producer.row-deduplicate-ignore-fields' drops some of its updates";
    }
    sides[s].cache_size = cache_enabled && why_not.empty() ? cache_sizes[s] : 0;
    // How many keys one lookup into this side asks for at most: the table's (or its hint's)
    // 'client.lookup.queue-size', the session's 'table.exec.async-lookup.buffer-capacity'.
    const std::map<std::string, std::string>* option_maps[] = {&src.dynamic_options,
                                                               &session.options()};
    for (const auto* opts : option_maps) {
      for (const char* key :
           {"client.lookup.queue-size", "table.exec.async-lookup.buffer-capacity"}) {
        auto it = opts->find(key);
        std::optional<std::string> v;
        if (it != opts->end()) {
          v = it->second;
        } else if (opts == &src.dynamic_options && std::string(key)[0] == 'c') {
          v = schema.Option(key);
        }
        if (!v) continue;
        TRIB_ASSIGN_OR_RETURN(int64_t n, options::ParseInt64(*v));
        if (n > 0 && (sides[s].lookup_batch == 0 || n < sides[s].lookup_batch)) {
          sides[s].lookup_batch = n;
        }
      }
    }
    if (sides[s].lookup_batch > 0) {
      lookups += "; lookups into " + src.name + " at most " +
                 std::to_string(sides[s].lookup_batch) + " keys a scan";
    }
    if (cache_enabled) {
      caching += std::string(s ? "; " : "") +
                 (why_not.empty() ? "the rows of up to " + std::to_string(cache_sizes[s]) +
                                        " join keys of " + src.name + " cached"
                                  : src.name + " not cached: " + why_not);
    }
  }
  std::string describe = "DeltaJoin: INNER ON " + b.on_text + "; keys " + pairs + "; " + starts +
                         "; each change looks up the other side's rows at its last processed "
                         "snapshot (no join state); " +
                         (cache_enabled ? caching : std::string("no cache")) + lookups;
  OperatorPtr op = MakeDeltaJoin(std::move(sides[0]), std::move(sides[1]), std::move(b.on),
                                 idle_timeout, std::move(describe));
  std::vector<int> position(plan.scope.columns.size());
  for (size_t i = 0; i < position.size(); i++) position[i] = static_cast<int>(i) + 1;
  for (auto& c : plan.conjuncts) RemapColumns(c.get(), position);
  for (auto& it : plan.items) RemapColumns(it.get(), position);
  op = MakeFilter(std::move(op), std::move(plan.conjuncts));
  return FinishStreamingQuery(std::move(op), std::move(plan), q);
}

// Flink's top-N / deduplication pattern over a stream: `SELECT ... FROM (SELECT ...,
// ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn FROM t [WHERE ...]) WHERE rn <= N`
// (or rn = N, rn < N): the table streamed, its changes ranked per partition
// (MakeStreamingTopN), the inner select list, then the outer WHERE and select list.
Result<OperatorPtr> OpenStreamingTopN(const QueryContext& session, const SelectStmt& q,
                                      std::optional<std::chrono::milliseconds> idle_timeout) {
  const std::string pattern =
      "in streaming mode a subquery in FROM is Flink's top-N pattern (SELECT ... FROM (SELECT "
      "..., ROW_NUMBER() OVER (PARTITION BY ... ORDER BY ...) AS rn FROM t) WHERE rn <= N) only";
  TRIB_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(session, q));
  if (plan.grouped || !plan.windows.calls.empty() || !plan.source.plan) {
    return NotSupportedAt(q.from->pos, pattern + "; this query is not (not supported yet)");
  }
  TRIB_RETURN_NOT_OK(ResolvePlanSubqueries(&plan));
  SelectPlan& sub = *plan.source.plan;
  TRIB_RETURN_NOT_OK(ResolvePlanSubqueries(&sub));
  const SelectStmt& sq = *sub.query;
  std::string why;
  if (!sub.joins.empty() || sub.grouped || sub.having || !sq.order_by.empty() || sq.limit ||
      sq.offset > 0 || sq.distinct || !sq.with.empty() || !sq.set_operands.empty()) {
    why = "its subquery has joins, grouping, ORDER BY, LIMIT, DISTINCT or WITH";
  } else if (sub.windows.calls.size() != 1 || sub.windows.calls[0].function != "ROW_NUMBER" ||
             sub.windows.calls[0].order_by.empty()) {
    why = "its subquery's window functions are not one ROW_NUMBER() with ORDER BY";
  } else if (!sub.top_n) {
    why = "no WHERE condition keeps the numbers at most N (rn <= N, rn < N or rn = N)";
  } else if (!sub.source.table && !sub.source.computed_view) {
    why = "its subquery does not read a table";
  } else if (!sub.source.change_table.empty()) {
    why = "its subquery reads a change table";
  }
  if (!why.empty())
    return NotSupportedAt(q.from->pos, pattern + "; " + why + " (not supported yet)");
  if (!sq.from) return NotSupportedAt(q.from->pos, pattern);
  std::vector<int> slot;
  TRIB_ASSIGN_OR_RETURN(OperatorPtr op,
                        OpenFilteredStream(session, &sub, *sq.from, idle_timeout, &slot));
  WindowCall& call = sub.windows.calls[0];
  std::string describe = "StreamingTopN: ROW_NUMBER() per partition (";
  auto name = [&](const BoundExpr& e) {
    return e.kind == BoundKind::kColumn ? op->fields()[e.column].name : std::string("expr");
  };
  for (size_t i = 0; i < call.partition_by.size(); i++) {
    RemapColumns(call.partition_by[i].get(), slot);
    describe += (i ? ", " : "") + name(*call.partition_by[i]);
  }
  describe += ") ordered by ";
  for (size_t i = 0; i < call.order_by.size(); i++) {
    RemapColumns(call.order_by[i].get(), slot);
    describe += (i ? ", " : "") + name(*call.order_by[i]) + (call.descending[i] ? " DESC" : "");
  }
  // In a job, ties rank by the rows' values, not by arrival: what the top-N holds is then the
  // input's current rows alone, which a restart rebuilds from a snapshot (session/stream_job.cc).
  const bool in_job = t_in_job;
  describe += std::string(in_job ? " (ties by the rows' values)" : "") + ", the first " +
              std::to_string(*sub.top_n) +
              " rows kept and their changes emitted; every current row of the input held";
  const int rn_column = static_cast<int>(op->fields().size());
  op = MakeStreamingTopN(std::move(op), std::move(call.partition_by), std::move(call.order_by),
                         call.descending, call.nulls_first, *sub.top_n, in_job, describe);
  // The subquery's select list over [op, its input's columns, rn], then the outer query.
  std::vector<int> sub_slot = slot;
  sub_slot.resize(sub.scope.columns.size(), -1);
  sub_slot.push_back(rn_column);
  for (auto& it : sub.items) RemapColumns(it.get(), sub_slot);
  op = ProjectWithOp(std::move(op), &sub.items, sub.fields);
  std::vector<int> outer_slot(sub.fields.size());
  for (size_t f = 0; f < outer_slot.size(); f++) outer_slot[f] = static_cast<int>(f) + 1;
  for (auto& c : plan.conjuncts) RemapColumns(c.get(), outer_slot);
  for (auto& it : plan.items) RemapColumns(it.get(), outer_slot);
  op = MakeFilter(std::move(op), std::move(plan.conjuncts));
  return FinishStreamingQuery(std::move(op), std::move(plan), q);
}

// Whether every operator of `op`'s tree passes positions on (holds nothing across changes).
bool PassesPositionsThroughout(const Operator& op) {
  if (!op.PassesPositions()) return false;
  for (const Operator* c : op.children()) {
    if (!PassesPositionsThroughout(*c)) return false;
  }
  return true;
}

// UNION ALL of streaming queries: each planned as a streaming SELECT, their changes handed out
// as they come.
Result<OperatorPtr> OpenStreamingUnion(const QueryContext& session, const SelectStmt& q,
                                       std::optional<std::chrono::milliseconds> idle_timeout) {
  for (size_t i = 1; i < q.set_operands.size(); i++) {
    const SetOperand& o = q.set_operands[i];
    if (o.kind != SetOpKind::kUnion || !o.all) {
      return NotSupportedAt(o.pos,
                            "UNION without ALL, INTERSECT and EXCEPT in streaming mode are not "
                            "supported yet (UNION ALL is)");
    }
  }
  if (!q.order_by.empty() || q.limit || q.offset > 0 || !q.with.empty()) {
    return NotSupportedAt(q.pos,
                          "ORDER BY, LIMIT, OFFSET or WITH around a streaming UNION ALL is not "
                          "supported yet");
  }
  std::vector<OperatorPtr> inputs;
  for (const SetOperand& operand : q.set_operands) {
    TRIB_ASSIGN_OR_RETURN(OperatorPtr op,
                          OpenStreamingQuery(session, *operand.query, idle_timeout));
    if (!PassesPositionsThroughout(*op)) {
      return NotSupportedAt(operand.pos,
                            "a top-N inside a streaming UNION ALL is not supported yet");
    }
    if (!inputs.empty() && op->fields().size() != inputs[0]->fields().size()) {
      return ErrorAt(operand.pos,
                     "the queries of a set operation return different numbers of "
                     "columns (" +
                         std::to_string(inputs[0]->fields().size() - 1) + " and " +
                         std::to_string(op->fields().size() - 1) + ")");
    }
    inputs.push_back(std::move(op));
  }
  TRIB_ASSIGN_OR_RETURN(std::vector<Field> fields, CastToCommonTypes(q, &inputs));
  return MakeStreamingUnion(std::move(inputs), std::move(fields), idle_timeout);
}

}  // namespace

Result<OperatorPtr> OpenStreamingQuery(const QueryContext& session, const SelectStmt& q,
                                       std::optional<std::chrono::milliseconds> idle_timeout) {
  if (Status st = CheckStackDepth("query"); !st.ok()) return ErrorAt(q.pos, st.message());
  // A job's sink belongs to its top-level SELECT only.
  struct TakeSink {
    const TableSchema* sink = std::exchange(t_job_sink, nullptr);
    ~TakeSink() { t_job_sink = sink; }
  } job_sink;
  auto unsupported = [&](const std::string& what) {
    return NotSupportedAt(q.pos, what +
                                     " in streaming mode (execution.runtime-mode = "
                                     "'streaming') is not supported yet");
  };
  if (!q.set_operands.empty()) return OpenStreamingUnion(session, q, idle_timeout);
  if (!q.with.empty()) return unsupported("WITH");
  for (const auto& item : q.items) {
    if (ContainsWindow(*item.expr)) return unsupported("a window function (OVER)");
    if (ContainsSubquery(*item.expr)) return unsupported("a subquery in an expression");
  }
  if (q.where && ContainsSubquery(*q.where)) return unsupported("a subquery in an expression");
  if (!q.values.empty() || !q.from) return unsupported("a SELECT without a table");
  if (q.from->subquery) {
    if (!q.joins.empty() || !q.order_by.empty() || q.distinct || q.offset > 0) {
      return unsupported("a subquery in FROM with joins, ORDER BY, DISTINCT or OFFSET");
    }
    return OpenStreamingTopN(session, q, idle_timeout);
  }
  bool lookup_joins = !q.joins.empty();
  for (const JoinClause& jc : q.joins) {
    lookup_joins =
        lookup_joins && jc.table.system_time && jc.table.system_time->kind != ExprKind::kLiteral;
  }
  // Without FOR SYSTEM_TIME a join of two tables may be a delta join.
  if (!q.joins.empty() && !lookup_joins && q.joins.size() > 1) {
    return unsupported("a join of more than two tables (other than lookup joins)");
  }
  if (q.from->system_time) return unsupported("FOR SYSTEM_TIME AS OF");
  if (!q.order_by.empty()) return unsupported("ORDER BY");
  if (q.distinct) return unsupported("SELECT DISTINCT");
  if (q.offset > 0) return unsupported("OFFSET");
  TRIB_ASSIGN_OR_RETURN(SelectPlan plan, PlanSelect(session, q));
  if (plan.grouped) return unsupported("GROUP BY and aggregates");
  TRIB_RETURN_NOT_OK(ResolvePlanSubqueries(&plan));
  if (!plan.joins.empty() && lookup_joins) {
    return OpenStreamingLookupJoins(session, std::move(plan), q, idle_timeout);
  }
  if (!plan.joins.empty()) return OpenStreamingDeltaJoin(session, std::move(plan), q, idle_timeout);
  Source& src = plan.source;
  if (!src.table && !src.computed_view) return unsupported("reading a system table");
  if (!src.change_table.empty()) {
    // A change table: every change of the table is a row of it (op +I), its kind a column.
    StreamOptions opts;
    opts.with_change_metadata = true;
    opts.time_zone = SessionTimeZone(session);
    Status st = StreamStartup(session, *src.table->schema(), src.dynamic_options, &opts);
    if (!st.ok()) return ErrorAt(q.from->hints_pos, st.message());
    // On $changelog and $binlog a full start-up reads the log from its start.
    if (opts.startup_mode == "full" && src.change_table != "audit_log") {
      opts.startup_mode = "earliest";
    }
    auto stream = OpenStream(*src.table, &opts, /*insert_only=*/true);
    if (!stream.ok()) return ErrorAt(q.from->name.pos, stream.status().message());
    std::string describe =
        "StreamScan: " + src.name + "$" + src.change_table + " from '" + opts.startup_mode + "'";
    OperatorPtr op = MakeChangeTableSource(std::move(src.table), std::move(*stream),
                                           src.change_table, idle_timeout, describe);
    std::vector<int> slot(src.fields.size());
    for (size_t i = 0; i < slot.size(); i++) slot[i] = static_cast<int>(i) + 1;
    for (auto& c : plan.conjuncts) RemapColumns(c.get(), slot);
    for (auto& it : plan.items) RemapColumns(it.get(), slot);
    op = MakeFilter(std::move(op), std::move(plan.conjuncts));
    return FinishStreamingQuery(std::move(op), std::move(plan), q);
  }
  bool upserts = false;
  if (job_sink.sink && plan.conjuncts.empty() && !q.limit) {
    // Each select item's table column when it is one as it is (through computed columns' view).
    const SelectPlan* view = src.computed_view ? src.plan.get() : nullptr;
    const Table* table = view ? view->source.table.get() : src.table.get();
    std::vector<int> items;
    for (const auto& e : plan.items) {
      int f = e && e->kind == BoundKind::kColumn ? e->column : -1;
      if (view && f >= 0) {
        const BoundExpr* inner =
            static_cast<size_t>(f) < view->items.size() && view->conjuncts.empty()
                ? view->items[f].get()
                : nullptr;
        f = inner && inner->kind == BoundKind::kColumn ? inner->column : -1;
      }
      items.push_back(f);
    }
    upserts = table && UpsertsReachSink(*job_sink.sink, *table->schema(), items);
  }
  std::vector<int> slot;
  TRIB_ASSIGN_OR_RETURN(OperatorPtr op,
                        OpenFilteredStream(session, &plan, *q.from, idle_timeout, &slot, upserts));
  for (auto& it : plan.items) RemapColumns(it.get(), slot);
  return FinishStreamingQuery(std::move(op), std::move(plan), q);
}

namespace {

// The op column, then the select list, then the LIMIT.
Result<OperatorPtr> FinishStreamingQuery(OperatorPtr op, SelectPlan plan, const SelectStmt& q) {
  op = ProjectWithOp(std::move(op), &plan.items, plan.fields);
  return MakeLimit(std::move(op), 0, q.limit);
}

}  // namespace

}  // namespace tributary::sql
