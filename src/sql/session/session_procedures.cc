// Session: CALL and its procedures (compact, expiration, rescale, orphan files, tags, branches,
// rollback).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <thread>

#include "commit/orphan_files.h"
#include "commit/rollback.h"
#include "commit/snapshot_expire.h"
#include "common/datetime.h"
#include "common/parallel.h"
#include "common/strings.h"
#include "common/timezone.h"
#include "io/file_system.h"
#include "meta/branches.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/tags.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/binder/computed.h"
#include "sql/binder/functions.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/parser/parser.h"
#include "sql/planner/query.h"
#include "sql/planner/query_internal.h"
#include "sql/session/session.h"
#include "sql/session/session_internal.h"
#include "tributary/maintenance.h"
#include "tributary/options.h"
#include "tributary/table.h"
#include "tributary/table_scan.h"
#include "tributary/table_writer.h"

namespace tributary::sql {

namespace {

// Paimon's list of partitions 'k=v,k2=v2;k=v3' (partitions by ';', their columns by ','): each
// partition's text and its column -> value; false, with the partition's text in *bad, when a
// piece is not key=value.
bool ParsePartitionList(
    const std::string& text,
    std::vector<std::pair<std::string, std::map<std::string, std::string>>>* out,
    std::string* bad) {
  for (size_t b = 0; b <= text.size();) {
    size_t end = text.find(';', b);
    if (end == std::string::npos) end = text.size();
    if (end > b) {
      const std::string one = text.substr(b, end - b);
      std::map<std::string, std::string> spec;
      for (const std::string& kv : SplitCommaList(one)) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) {
          *bad = one;
          return false;
        }
        spec[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
      out->emplace_back(one, std::move(spec));
    }
    b = end + 1;
  }
  return true;
}

}  // namespace

Result<StatementResult> Session::Call(const CallStmt& s) {
  const auto& p = s.procedure.parts;
  bool is_sys = p.size() >= 2 && p[p.size() - 2] == "sys";
  std::string name = s.procedure.ToString();
  if (!is_sys) {
    return ErrorAt(s.procedure.pos, "unknown procedure '" + name + "'; procedures are sys.<name>");
  }
  if (p.back() == "expire_snapshots") return ExpireSnapshots(s);
  if (p.back() == "remove_orphan_files") return RemoveOrphanFiles(s);
  if (p.back() == "expire_changelogs") return ExpireChangelogs(s);
  if (p.back() == "create_tag" || p.back() == "delete_tag") {
    return Tags(s, p.back() == "create_tag");
  }
  if (p.back() == "create_branch" || p.back() == "delete_branch" || p.back() == "fast_forward" ||
      p.back() == "rename_branch") {
    return Branches(s, p.back());
  }
  if (p.back() == "rollback_to") return RollbackTo(s);
  if (p.back() == "maintain_partitions") return MaintainPartitions(s);
  if (p.back() == "expire_partitions") return ExpirePartitionsCall(s);
  if (p.back() == "rescale") return Rescale(s);
  if (p.back() != "compact") {
    // Paimon's procedures not implemented yet; any other name is a typo or unknown.
    static const std::vector<std::string> kPaimon = {"compact_database",
                                                     "rollback_to_timestamp",
                                                     "merge_into",
                                                     "reset_consumer",
                                                     "clear_consumers",
                                                     "mark_partition_done",
                                                     "migrate_table",
                                                     "migrate_file",
                                                     "repair",
                                                     "create_tag_from_timestamp",
                                                     "expire_tags",
                                                     "replace_tag",
                                                     "rewrite_file_index",
                                                     "purge_files",
                                                     "trigger_tag_automatic_creation",
                                                     "query_service"};
    static const std::vector<std::string> kImplemented = {
        "compact",           "expire_snapshots", "expire_changelogs", "remove_orphan_files",
        "create_tag",        "delete_tag",       "rollback_to",       "maintain_partitions",
        "expire_partitions", "rescale",          "create_branch",     "delete_branch",
        "fast_forward",      "rename_branch"};
    if (std::find(kPaimon.begin(), kPaimon.end(), p.back()) != kPaimon.end()) {
      return NotSupportedAt(s.procedure.pos, "procedure " + name + " is not supported yet");
    }
    std::vector<std::string> all = kImplemented;
    all.insert(all.end(), kPaimon.begin(), kPaimon.end());
    const std::string hint = options::DidYouMean(p.back(), all);
    return ErrorAt(s.procedure.pos, "unknown procedure '" + name + "'" +
                                        (hint.empty() ? "" : "; did you mean 'sys." + hint + "'?"));
  }
  std::string table_name;
  // order_strategy / order_by: Paimon's sort compaction.
  CompactOptions options;
  Pos sort_pos;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const CallArg& a = s.args[i];
    static const char* kPositions[] = {"table", "partitions", "order_strategy", "order_by"};
    const std::string name = a.name.empty() ? (i < 4 ? kPositions[i] : "") : a.name;
    if (name != "table" && name != "partitions" && name != "order_strategy" && name != "order_by") {
      return NotSupportedAt(a.value->pos, "argument '" +
                                              (a.name.empty() ? std::to_string(i + 1) : a.name) +
                                              "' of sys.compact is not supported yet");
    }
    if (a.value->kind != ExprKind::kLiteral || a.value->literal_kind != LiteralKind::kString) {
      return ErrorAt(a.value->pos,
                     name == "table" ? "sys.compact expects the table as a string, e.g. 'db.t'"
                     : name == "partitions" ? "sys.compact expects partitions as a string, e.g. "
                                              "'dt=2024-01-01,hh=00;dt=2024-01-02'"
                                            : "sys.compact expects " + name + " as a string");
    }
    if (name == "table") {
      table_name = a.value->text;
      continue;
    }
    if (name == "order_strategy") {
      options.sort_strategy = AsciiLower(a.value->text);
      sort_pos = a.value->pos;
      continue;
    }
    if (name == "order_by") {
      for (const std::string& c : SplitCommaList(a.value->text)) {
        if (!c.empty()) options.sort_columns.push_back(c);
      }
      continue;
    }
    // Paimon's `partitions`: 'k=v,k2=v2;k=v3' (partitions separated by ';', their keys by ',').
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> listed;
    std::string bad;
    if (!ParsePartitionList(a.value->text, &listed, &bad)) {
      return ErrorAt(a.value->pos, "partitions: '" + bad +
                                       "' is not key=value (write "
                                       "'k=v,k2=v2;k=v3')");
    }
    for (auto& [text, spec] : listed) options.partitions.push_back(std::move(spec));
  }
  if (options.sort_strategy == "none") options.sort_strategy.clear();
  if (table_name.empty())
    return ErrorAt(s.pos, "sys.compact needs a table: CALL sys.compact('db.t')");
  auto id = Identifier::Parse(table_name, current_database_);
  if (!id.ok()) return ErrorAt(s.args[0].value->pos, id.status().message());
  Catalog* catalog = current_catalog();
  auto table = catalog->GetTable(*id);
  if (!table.ok()) return ErrorAt(s.args[0].value->pos, table.status().message());
  const bool sorting = !options.sort_strategy.empty() || !options.sort_columns.empty();
  if (sorting) {
    TRIB_ASSIGN_OR_RETURN(options.sort_memory_limit, planner::SortMemoryLimit(*this));
  }
  options.spill_dirs = planner::Spill(*this).dirs;  // also merges past 'sort-spill-threshold'
  // Long compactions show their progress when stderr is a terminal.
  const bool tty = ::isatty(2);
  if (tty) {
    options.sort_progress = [](const std::string& line) {
      std::fprintf(stderr, "\r%s", line.c_str());
      std::fflush(stderr);
    };
    options.progress = [&](int64_t done, int64_t total) {
      std::fprintf(stderr, "\rcompacting %s: bucket %lld of %lld", id->ToString().c_str(),
                   static_cast<long long>(std::min(done + 1, total)),
                   static_cast<long long>(total));
      std::fflush(stderr);
    };
  }
  auto compacted = Compact(**table, options);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!compacted.ok()) {
    return Locate(compacted.status(), options.sort_strategy.empty() ? s.pos : sort_pos);
  }
  for (const std::string& w : compacted->warnings) {
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  }
  if (!compacted->snapshot) return Message("Nothing to compact in " + id->ToString());
  const std::string snapshot = " (snapshot " + std::to_string(*compacted->snapshot) + ")";
  if (!sorting) return Message("Compacted " + id->ToString() + snapshot);
  std::string by;
  for (const std::string& c : options.sort_columns) by += (by.empty() ? "" : ", ") + c;
  return Message("Compacted " + id->ToString() + ", rows sorted (" + options.sort_strategy +
                 ") by " + by + snapshot);
}

namespace {

// A procedure's arguments, by Paimon's names or in the order of `names`, each a literal. Unknown
// names and extra arguments are errors naming the procedure and its arguments.
Result<std::map<std::string, const Expr*>> ProcedureArgs(const CallStmt& s, const std::string& proc,
                                                         const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  std::map<std::string, const Expr*> args;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const CallArg& a = s.args[i];
    std::string name = a.name;
    if (name.empty()) {
      if (i >= names.size()) {
        return ErrorAt(a.value->pos, proc + " takes " + std::to_string(names.size()) +
                                         " arguments (" + list + ")");
      }
      name = names[i];
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      return ErrorAt(a.value->pos,
                     "unknown argument '" + name + "' of " + proc + " (" + list + ")");
    }
    if (a.value->kind != ExprKind::kLiteral) {
      return ErrorAt(a.value->pos, "argument '" + name + "' must be a literal");
    }
    args[name] = a.value.get();
  }
  return args;
}

// A procedure's `snapshot_id` argument: a positive integer literal.
Result<int64_t> SnapshotIdArg(const Expr* e) {
  auto v = options::ParseInt64(e->text);
  if (e->literal_kind != LiteralKind::kInteger || !v.ok() || *v < 1) {
    return ErrorAt(e->pos, "'snapshot_id' must be a positive integer");
  }
  return *v;
}

// The retention arguments of sys.expire_snapshots / sys.expire_changelogs: positive counts
// into *max, *min and *deletes (when given), max >= min checked; `older_than` a time of the
// session zone.
Status RetentionArgs(const Session& session, const CallStmt& s,
                     std::map<std::string, const Expr*>& args, int64_t* max, int64_t* min,
                     int64_t* deletes, std::optional<int64_t>* older_than) {
  for (const char* key : {"retain_max", "retain_min", "max_deletes"}) {
    if (!args.count(key)) continue;
    const Expr* e = args[key];
    auto v = options::ParseInt64(e->text);
    if (e->literal_kind != LiteralKind::kInteger || !v.ok() || *v < 1) {
      return ErrorAt(e->pos, std::string("'") + key + "' must be a positive integer");
    }
    *(std::string(key) == "retain_max"   ? max
      : std::string(key) == "retain_min" ? min
                                         : deletes) = *v;
  }
  if (*max < *min) {
    return ErrorAt(s.pos, "retain_max (" + std::to_string(*max) +
                              ") must be at least "
                              "retain_min (" +
                              std::to_string(*min) + ")");
  }
  if (args.count("older_than")) {
    const Expr* e = args["older_than"];
    auto millis = SessionTimeToUtcMillis(session, e->text);
    if (!millis.ok()) return ErrorAt(e->pos, "older_than: " + millis.status().message());
    *older_than = *millis;
  }
  return Status::OK();
}

}  // namespace

Result<Identifier> Session::ProcedureTableId(const Expr* table) const {
  auto id = Identifier::Parse(table->text, current_database_);
  if (!id.ok()) return ErrorAt(table->pos, id.status().message());
  return *id;
}

Result<std::unique_ptr<Table>> Session::ProcedureTable(const Expr* table, Identifier* id) const {
  TRIB_ASSIGN_OR_RETURN(*id, ProcedureTableId(table));
  auto opened = current_catalog()->GetTable(*id);
  if (!opened.ok()) return ErrorAt(table->pos, opened.status().message());
  return std::move(*opened);
}

Result<StatementResult> Session::ExpireSnapshots(const CallStmt& s) {
  TRIB_ASSIGN_OR_RETURN(
      auto args, ProcedureArgs(s, "sys.expire_snapshots",
                               {"table", "retain_max", "retain_min", "older_than", "max_deletes"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos,
                   "sys.expire_snapshots needs a table: CALL sys.expire_snapshots("
                   "`table` => 'db.t', retain_max => 5)");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  // The table's retention with the arguments over it (checked together: retain_max against the
  // table's retain_min, say).
  auto own = commit::ExpireOptions::From(*(*table)->schema());
  if (!own.ok()) return ErrorAt(t->pos, own.status().message());
  TRIB_RETURN_NOT_OK(RetentionArgs(*this, s, args, &own->retain_max, &own->retain_min,
                                   &own->max_deletes, &own->older_than_millis));
  ExpireSnapshotsOptions options;
  options.retain_max = own->retain_max;
  options.retain_min = own->retain_min;
  options.max_deletes = own->max_deletes;
  options.older_than_millis = own->older_than_millis;
  auto r = ::tributary::ExpireSnapshots(**table, options);
  if (!r.ok()) return Locate(r.status(), s.pos);
  return Message("Expired " + std::to_string(r->snapshots) + " snapshot(s) of " + id.ToString() +
                 " (removed " + std::to_string(r->data_files) + " data, " +
                 std::to_string(r->changelog_files) + " changelog, " +
                 std::to_string(r->index_files) + " index and " +
                 std::to_string(r->manifest_files) + " manifest file(s))");
}

Result<StatementResult> Session::MaintainPartitions(const CallStmt& s) {
  const std::string proc = "sys.maintain_partitions";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "('db.t')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  auto done = MaintainAutoPartitions(**table);
  if (!done.ok()) return Locate(done.status(), t->pos);
  return Message("Automatic partitions of " + id.ToString() + ": " +
                 (done->empty() ? "nothing to do" : *done));
}

Result<StatementResult> Session::ExpirePartitionsCall(const CallStmt& s) {
  const std::string proc = "sys.expire_partitions";
  TRIB_ASSIGN_OR_RETURN(auto args,
                        ProcedureArgs(s, proc,
                                      {"table", "expiration_time", "timestamp_formatter",
                                       "timestamp_pattern", "expire_strategy", "max_expires"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc +
                              "(`table` => 'db.t', "
                              "expiration_time => '1 d')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  // The arguments stand for the table's options of the same meaning.
  ExpirePartitionsOptions options;
  auto text = [&](const char* arg) -> std::optional<std::string> {
    if (!args.count(arg)) return std::nullopt;
    return args[arg]->text;
  };
  options.expiration_time = text("expiration_time");
  options.timestamp_formatter = text("timestamp_formatter");
  options.timestamp_pattern = text("timestamp_pattern");
  options.strategy = text("expire_strategy");
  if (args.count("max_expires")) {
    const Expr* e = args["max_expires"];
    auto n = options::ParseInt64(e->text);
    if (!n.ok() || *n < 1) {
      return ErrorAt(e->pos, "max_expires '" + e->text + "' is not a positive integer");
    }
    options.max_expires = *n;
  }
  if (options.strategy && *options.strategy != "values-time" &&
      *options.strategy != "update-time") {
    return ErrorAt(args["expire_strategy"]->pos, "expire_strategy '" + *options.strategy +
                                                     "' is not 'values-time' or 'update-time'");
  }
  auto expired = ExpirePartitions(**table, options);
  if (!expired.ok()) return Locate(expired.status(), s.pos);
  if (expired->empty()) return Message("No expired partitions of " + id.ToString());
  std::string names;
  for (const auto& n : *expired) names += (names.empty() ? "" : ", ") + n;
  return Message("Expired partition(s) " + names + " of " + id.ToString());
}

Result<StatementResult> Session::Rescale(const CallStmt& s) {
  const std::string proc = "sys.rescale";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc,
                                                 {"table", "bucket_num", "partition",
                                                  "scan_parallelism", "sink_parallelism"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc +
                              "(`table` => 'db.t', "
                              "bucket_num => 8, `partition` => 'dt=...')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto opened = ProcedureTable(t, &id);
  if (!opened.ok()) return opened.status();
  Table& table = **opened;
  const auto schema = table.schema();
  TRIB_ASSIGN_OR_RETURN(const int64_t current, options::Get(*schema, options::kBucket));
  if (current <= 0) {
    return ErrorAt(t->pos, proc + " rescales fixed-bucket tables; " + id.ToString() +
                               " has 'bucket' = " + std::to_string(current));
  }
  int32_t buckets = static_cast<int32_t>(current);
  if (args.count("bucket_num")) {
    const std::string& v = args["bucket_num"]->text;
    if (v.empty() || v.size() > 6 || !std::all_of(v.begin(), v.end(), ::isdigit) ||
        std::stoi(v) < 1) {
      return ErrorAt(args["bucket_num"]->pos, "bucket_num '" + v + "' is not a positive integer");
    }
    buckets = std::stoi(v);
  }
  // How many threads read the rows and write them (Paimon's scan_parallelism and
  // sink_parallelism); unset: every core. Fewer leave cores to the writers that keep writing.
  int scan_threads = DefaultParallelism(), sink_threads = DefaultParallelism();
  for (auto [name, out] : {std::pair<const char*, int*>{"scan_parallelism", &scan_threads},
                           std::pair<const char*, int*>{"sink_parallelism", &sink_threads}}) {
    if (!args.count(name)) continue;
    const std::string& v = args[name]->text;
    if (v.empty() || v.size() > 4 || !std::all_of(v.begin(), v.end(), ::isdigit) ||
        std::stoi(v) < 1) {
      return ErrorAt(args[name]->pos, std::string(name) + " '" + v + "' is not a positive integer");
    }
    *out = std::stoi(v);
  }
  // The partitions ('k=v,k2=v2', several separated by ';'); none: every partition.
  std::vector<std::map<std::string, std::string>> specs;
  if (args.count("partition")) {
    const Expr* e = args["partition"];
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> listed;
    std::string bad;
    auto not_columns = [&](const std::string& one) {
      return ErrorAt(e->pos, "partition '" + one +
                                 "' is not 'key=value,...' of the partition "
                                 "columns of " +
                                 id.ToString());
    };
    if (!ParsePartitionList(e->text, &listed, &bad)) return not_columns(bad);
    for (auto& [one, spec] : listed) {
      for (const auto& [k, v] : spec) {
        if (std::find(schema->partition_keys.begin(), schema->partition_keys.end(), k) ==
            schema->partition_keys.end()) {
          return not_columns(one);
        }
      }
      if (spec.size() != schema->partition_keys.size()) {
        return ErrorAt(e->pos, "partition '" + one + "' needs a value for every partition column");
      }
      specs.push_back(std::move(spec));
    }
  }
  RescaleOptions request;
  request.buckets = buckets;
  request.partitions = std::move(specs);
  request.scan_threads = scan_threads;
  request.sink_threads = sink_threads;
  const bool tty = ::isatty(2);
  if (tty) {
    request.progress = [&](int64_t rows) {
      std::fprintf(stderr, "\rrescaling %s: %lld rows", id.ToString().c_str(),
                   static_cast<long long>(rows));
      std::fflush(stderr);
    };
  }
  auto rescaled = ::tributary::Rescale(table, request);
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!rescaled.ok()) return Locate(rescaled.status(), s.pos);
  for (const std::string& w : rescaled->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (!rescaled->snapshot) return Message("Nothing to rescale in " + id.ToString());
  return Message("Rescaled " + id.ToString() + " to " + std::to_string(buckets) +
                 " bucket(s) (snapshot " + std::to_string(*rescaled->snapshot) + ")");
}

Result<StatementResult> Session::ExpireChangelogs(const CallStmt& s) {
  const std::string proc = "sys.expire_changelogs";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc,
                                                 {"table", "retain_max", "retain_min", "older_than",
                                                  "max_deletes", "delete_all"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc + "(`table` => 'db.t', ...)");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  auto own = commit::ExpireOptions::From(*(*table)->schema());
  if (!own.ok()) return ErrorAt(t->pos, own.status().message());
  TRIB_RETURN_NOT_OK(RetentionArgs(*this, s, args, &own->changelog_retain_max,
                                   &own->changelog_retain_min, &own->max_deletes,
                                   &own->changelog_older_than_millis));
  ExpireChangelogsOptions options;
  options.retain_max = own->changelog_retain_max;
  options.retain_min = own->changelog_retain_min;
  options.max_deletes = own->max_deletes;
  options.older_than_millis = own->changelog_older_than_millis;
  if (args.count("delete_all")) {
    const Expr* e = args["delete_all"];
    if (e->literal_kind != LiteralKind::kBool)
      return ErrorAt(e->pos, "'delete_all' must be TRUE or FALSE");
    // Every changelog kept beyond the snapshots goes.
    options.delete_all = e->text == "true" || e->text == "TRUE";
  }
  auto r = ::tributary::ExpireChangelogs(**table, options);
  if (!r.ok()) return Locate(r.status(), s.pos);
  return Message("Expired " + std::to_string(*r) + " changelog(s) of " + id.ToString());
}

Result<StatementResult> Session::RemoveOrphanFiles(const CallStmt& s) {
  const std::string proc = "sys.remove_orphan_files";
  TRIB_ASSIGN_OR_RETURN(
      auto args, ProcedureArgs(s, proc, {"table", "older_than", "dry_run", "parallelism", "mode"}));
  if (!args.count("table")) {
    return ErrorAt(s.pos, proc + " needs a table: CALL " + proc +
                              "('db.t'[, older_than, "
                              "dry_run]), or 'db.*' for every table of a database");
  }
  if (args.count("parallelism")) {
    return NotSupportedAt(args["parallelism"]->pos,
                          "argument 'parallelism' of " + proc + " is not supported yet");
  }
  if (args.count("mode")) {
    // Paimon's modes choose where the work runs (a Flink job or the client); here it is always
    // this process, so both do the same.
    const Expr* m = args["mode"];
    std::string mode = m->text;
    std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
    if (mode != "LOCAL" && mode != "DISTRIBUTED") {
      return ErrorAt(m->pos, "unknown mode '" + m->text +
                                 "'; only 'DISTRIBUTED' and 'LOCAL' "
                                 "are supported");
    }
  }
  bool dry_run = false;
  if (args.count("dry_run")) {
    const Expr* e = args["dry_run"];
    if (e->literal_kind != LiteralKind::kBool) {
      return ErrorAt(e->pos, "'dry_run' must be TRUE or FALSE");
    }
    dry_run = e->text == "true" || e->text == "TRUE";
  }
  // Paimon's default: files younger than a day may belong to a commit in flight.
  int64_t older_than = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count() -
                       24LL * 3600 * 1000;
  if (args.count("older_than")) {
    const Expr* e = args["older_than"];
    auto millis = SessionTimeToUtcMillis(*this, e->text);
    if (!millis.ok()) return ErrorAt(e->pos, "older_than: " + millis.status().message());
    older_than = *millis;
  }
  const Expr* t = args["table"];
  std::vector<Identifier> ids;
  Catalog* catalog = current_catalog();
  if (t->text.size() > 2 && t->text.compare(t->text.size() - 2, 2, ".*") == 0) {
    const std::string db = t->text.substr(0, t->text.size() - 2);
    auto tables = catalog->ListTables(db);
    if (!tables.ok()) return ErrorAt(t->pos, tables.status().message());
    for (const auto& name : *tables) ids.push_back(Identifier{db, name, ""});
  } else {
    auto id = Identifier::Parse(t->text, current_database_);
    if (!id.ok()) return ErrorAt(t->pos, id.status().message());
    ids.push_back(*id);
  }
  std::vector<Row> rows;
  int64_t files = 0, bytes = 0;
  std::string listed;
  for (const auto& id : ids) {
    auto table = catalog->GetTable(id);
    if (!table.ok()) return ErrorAt(t->pos, table.status().message());
    // Listing a table's folders shows its progress when stderr is a terminal.
    std::function<void(int64_t, int64_t)> progress;
    if (::isatty(2)) {
      progress = [&id](int64_t done, int64_t total) {
        std::fprintf(stderr, "\rlooking for orphan files of %s: folder %lld of %lld\033[K",
                     id.ToString().c_str(), static_cast<long long>(done),
                     static_cast<long long>(total));
        std::fflush(stderr);
      };
    }
    auto r = ::tributary::RemoveOrphanFiles(**table, older_than, dry_run, progress);
    if (progress) std::fprintf(stderr, "\r\033[K");
    if (!r.ok()) return Locate(r.status().WithContext(id.ToString()), s.pos);
    rows.push_back({Value::String(id.ToString()), Value::Int(r->files), Value::Int(r->bytes)});
    files += r->files;
    bytes += r->bytes;
    // A dry run names every file it found (on stderr, after the counts).
    if (dry_run) {
      for (const auto& p : r->paths) listed += "\n  " + id.ToString() + ": " + p;
    }
  }
  StatementResult out = Rows({{0, "table_name", DataType::String(), ""},
                              {0, "deleted_file_count", DataType::BigInt(), ""},
                              {0, "deleted_file_total_len_in_bytes", DataType::BigInt(), ""}},
                             std::move(rows));
  out.message = (dry_run ? "Found " : "Removed ") + std::to_string(files) + " orphan file(s), " +
                std::to_string(bytes) + " bytes" + (dry_run ? " (dry run: nothing removed)" : "") +
                listed;
  return out;
}

Result<StatementResult> Session::Tags(const CallStmt& s, bool create) {
  // Paimon's arguments, by name or in this order.
  const std::string proc = create ? "sys.create_tag" : "sys.delete_tag";
  const std::vector<std::string> names =
      create ? std::vector<std::string>{"table", "tag", "snapshot_id", "time_retained"}
             : std::vector<std::string>{"table", "tag"};
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, names));
  if (args.count("time_retained")) {
    return NotSupportedAt(args["time_retained"]->pos,
                          "sys.create_tag's time_retained is not supported yet: a tag is kept "
                          "until sys.delete_tag removes it");
  }
  if (!args.count("table") || !args.count("tag")) {
    return ErrorAt(s.pos, proc + " needs a table and a tag: CALL " + proc + "('db.t', 'tag'" +
                              (create ? "[, snapshot_id])" : ")"));
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  const Expr* tag = args["tag"];
  if (!create) {
    // Several tags: 'a,b'. Every one is checked before any goes, so a failing call changes
    // nothing.
    std::vector<std::string> tags;
    for (const auto& part : SplitCommaList(tag->text)) {
      if (std::find(tags.begin(), tags.end(), part) == tags.end()) tags.push_back(part);
    }
    Status st = ::tributary::DeleteTags(**table, tags);
    if (!st.ok()) return ErrorAt(tag->pos, st.message());
    return Message("Deleted tag(s) " + tag->text + " of " + id.ToString());
  }
  std::optional<int64_t> snapshot_id;
  if (args.count("snapshot_id")) {
    TRIB_ASSIGN_OR_RETURN(snapshot_id, SnapshotIdArg(args["snapshot_id"]));
  }
  auto tagged = ::tributary::CreateTag(**table, tag->text, snapshot_id);
  if (!tagged.ok()) {
    // Where the statement went wrong: no snapshot to tag (the table), one that does not exist
    // (the call), a tag name taken or invalid (the tag).
    const Status& st = tagged.status();
    if (st.message().find("has no snapshot to tag") != std::string::npos) {
      return ErrorAt(t->pos, st.message());
    }
    if (st.IsNotFound()) return ErrorAt(s.pos, st.message());
    return ErrorAt(tag->pos, st.message());
  }
  snapshot_id = *tagged;
  return Message("Created tag " + tag->text + " of " + id.ToString() + " at snapshot " +
                 std::to_string(*snapshot_id));
}

namespace {
// Main's 'scan.fallback-branch' (a branch carries main's options as they were when it was made).
Result<std::optional<std::string>> MainFallbackBranch(const std::string& table_path) {
  TRIB_ASSIGN_OR_RETURN(auto main, meta::SchemaManager(meta::DataRoot(table_path)).Latest());
  return options::IsSet(*main, options::kScanFallbackBranch);
}
}  // namespace

Result<StatementResult> Session::Branches(const CallStmt& s, const std::string& procedure) {
  // Paimon's arguments, by name or in this order.
  const std::string proc = "sys." + procedure;
  const bool create = procedure == "create_branch";
  if (procedure == "rename_branch") {
    // Paimon 2.0's arguments: table, from_branch, to_branch.
    TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "from_branch", "to_branch"}));
    if (!args.count("table") || !args.count("from_branch") || !args.count("to_branch")) {
      return ErrorAt(s.pos, proc + " needs a table, from_branch and to_branch: CALL " + proc +
                                "('db.t', 'old', 'new')");
    }
    Identifier id;
    auto table = ProcedureTable(args["table"], &id);
    if (!table.ok()) return table.status();
    const std::string from = args["from_branch"]->text, to = args["to_branch"]->text;
    TRIB_ASSIGN_OR_RETURN(auto fallback, MainFallbackBranch((*table)->path()));
    if (fallback && *fallback == from) {
      return ErrorAt(args["from_branch"]->pos,
                     "branch '" + from +
                         "' is the table's "
                         "'scan.fallback-branch'; reset that option first");
    }
    Status st = meta::RenameBranch(meta::DataRoot((*table)->path()), from, to);
    if (!st.ok()) {
      const bool taken = st.code() == StatusCode::kAlreadyExists;
      return ErrorAt((taken ? args["to_branch"] : args["from_branch"])->pos, st.message());
    }
    return Message("Renamed branch " + from + " of " + id.database + "." + id.table + " to " + to);
  }
  std::vector<std::string> names = {"table", "branch"};
  if (create) names.push_back("tag");
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, names));
  if (!args.count("table") || !args.count("branch")) {
    return ErrorAt(s.pos, proc + " needs a table and a branch: CALL " + proc + "('db.t', 'b'" +
                              (create ? "[, 'tag'])" : ")"));
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  // On a branch (t$branch_x): create_branch starts from its schemas and tags and fast_forward
  // replaces that branch's history (as Paimon's procedures on a branch table); delete and
  // rename act on the table's branches as on the table.
  const Expr* branch = args["branch"];
  if (procedure == "delete_branch") {
    // Several branches: 'a,b'. One that main reads as its fallback stays. Every one is checked
    // before any goes, so a failing call changes nothing.
    std::vector<std::string> names;
    for (const auto& name : SplitCommaList(branch->text)) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    Status st = ::tributary::DeleteBranches(**table, names);
    if (!st.ok()) return ErrorAt(branch->pos, st.message());
    return Message("Deleted branch(es) " + branch->text + " of " + id.ToString());
  }
  if (procedure == "fast_forward") {
    auto latest = ::tributary::FastForward(**table, branch->text);
    if (!latest.ok()) return ErrorAt(branch->pos, latest.status().message());
    return Message("Fast-forwarded " + id.ToString() + " to branch " + branch->text +
                   " (latest snapshot " + std::to_string(*latest) + ")");
  }
  std::optional<std::string> tag;
  if (args.count("tag") && !args["tag"]->text.empty()) tag = args["tag"]->text;
  Status st = ::tributary::CreateBranch(**table, branch->text, tag);
  if (!st.ok()) {
    const Expr* at = st.IsNotFound() && tag ? args["tag"] : branch;
    return ErrorAt(at->pos, st.message());
  }
  return Message("Created branch " + branch->text + " of " + id.ToString() +
                 (tag ? " from tag " + *tag : std::string(" (empty, with the table's schema)")));
}

Result<StatementResult> Session::RollbackTo(const CallStmt& s) {
  // Paimon's arguments: table, tag, snapshot_id (a positional second argument that is a number
  // is the snapshot id, as older Paimon versions take it).
  const std::string proc = "sys.rollback_to";
  TRIB_ASSIGN_OR_RETURN(auto args, ProcedureArgs(s, proc, {"table", "tag", "snapshot_id"}));
  if (args.count("tag") && args["tag"]->literal_kind == LiteralKind::kInteger &&
      !args.count("snapshot_id") && s.args.size() > 1 && s.args[1].name.empty()) {
    args["snapshot_id"] = args["tag"];
    args.erase("tag");
  }
  if (!args.count("table") || args.count("tag") == args.count("snapshot_id")) {
    return ErrorAt(s.pos, proc + " needs a table and either a tag or a snapshot_id: CALL " + proc +
                              "(`table` => 'db.t', snapshot_id => 3) or (`table` => 'db.t', "
                              "tag => 'name')");
  }
  const Expr* t = args["table"];
  Identifier id;
  auto table = ProcedureTable(t, &id);
  if (!table.ok()) return table.status();
  std::optional<int64_t> snapshot_id;
  std::string tag;
  if (args.count("snapshot_id")) {
    TRIB_ASSIGN_OR_RETURN(snapshot_id, SnapshotIdArg(args["snapshot_id"]));
  } else {
    const Expr* e = args["tag"];
    if (e->literal_kind != LiteralKind::kString || e->text.empty()) {
      return ErrorAt(e->pos, "'tag' must be a tag name string");
    }
    tag = e->text;
  }
  auto r = ::tributary::RollbackTo(**table, snapshot_id, tag);
  if (!r.ok())
    return ErrorAt(s.pos, "cannot roll back " + id.ToString() + ": " + r.status().message());
  StatementResult out;
  out.has_rows = true;
  out.rows.fields = {Field{0, "previous_snapshot_id", DataType::BigInt(), ""},
                     Field{1, "current_snapshot_id", DataType::BigInt(), ""}};
  out.rows.rows.push_back({Value::Int(r->previous_snapshot), Value::Int(r->current_snapshot)});
  out.message = "Rolled " + id.ToString() + " back to snapshot " +
                std::to_string(r->current_snapshot) + " (" + std::to_string(r->snapshots_removed) +
                " later snapshot(s) and " + std::to_string(r->tags_removed) +
                " later tag(s) removed; their files go with CALL sys.remove_orphan_files)";
  return out;
}

}  // namespace tributary::sql
