// Streaming jobs: `INSERT INTO sink SELECT ...` in streaming mode runs until Ctrl-C, SIGTERM or
// the idle time-out, writing every change of its sources' streams into the sink and committing
// the sink every 'execution.checkpointing.interval'. Exactly once across crashes: each sink commit
// records, in the snapshot it publishes (Paimon's `properties`, commitUser the job's), how far
// the job has read each source; a restart of the same job (its 'pipeline.name') resumes there.
// The sources' consumer positions ('job-<name>-<n>') follow each commit, so expiration keeps what
// the job will read; the later of the two is where a source resumes (a commit without rows moves
// only the consumer: the changes it passed produced nothing). docs/streaming.md.
#include "sql/planner/stream_job.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>

#include "common/json.h"
#include "meta/consumer.h"
#include "meta/snapshot.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/planner/query.h"
#include "sql/session/session.h"
#include "sql/session/session_internal.h"
#include "tributary/options.h"
#include "tributary/stream_scan.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::sql {

namespace {

constexpr char kJobNameProperty[] = "tributary.job.name";
constexpr char kJobSourcesProperty[] = "tributary.job.sources";
// How far back a restart looks through the sink's snapshots for the job's last commit.
constexpr int64_t kMaxSnapshotsSearched = 100000;

using Position = std::pair<int64_t, int64_t>;  // next snapshot, changes of it delivered

struct RecordedSource {
  std::string table;
  Position position;
};

struct LastCommit {
  int64_t identifier = 0;
  std::vector<RecordedSource> sources;
};

std::string CommitUser(const std::string& job) { return "tributary-job:" + job; }

// The consumer id of the job's `index`-th source (Paimon's consumer ids name files).
std::string ConsumerId(const std::string& job, size_t index) {
  std::string id = "job-";
  for (char c : job) {
    id += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  }
  return id + "-" + std::to_string(index);
}

// The job's last commit into the sink at `path`: the newest snapshot its commit user published
// with the sources' positions.
Result<std::optional<LastCommit>> FindLastCommit(const std::string& path, const std::string& job) {
  meta::SnapshotManager snapshots(path);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return std::optional<LastCommit>();
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestId());
  const int64_t stop = std::max(earliest.value_or(1), *latest - kMaxSnapshotsSearched);
  const std::string user = CommitUser(job);
  for (int64_t id = *latest; id >= stop; id--) {
    auto s = snapshots.Read(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;  // expired meanwhile
      return s.status();
    }
    if ((*s)->commit_user != user) continue;
    auto it = (*s)->properties.find(kJobSourcesProperty);
    if (it == (*s)->properties.end()) continue;
    TRIB_ASSIGN_OR_RETURN(Json j, ParseJson(it->second, "snapshot " + std::to_string(id) + "'s " +
                                                            kJobSourcesProperty));
    LastCommit last;
    last.identifier = (*s)->commit_identifier;
    try {
      for (const auto& e : j) {
        last.sources.push_back(
            {e.at("table").get<std::string>(),
             {e.at("next-snapshot").get<int64_t>(), e.at("offset").get<int64_t>()}});
      }
    } catch (const std::exception& e) {
      return Status::Corruption("snapshot " + std::to_string(id) + "'s " + kJobSourcesProperty +
                                ": " + e.what());
    }
    return std::optional<LastCommit>(std::move(last));
  }
  return std::optional<LastCommit>();
}

std::optional<RowKind> ParseRowKind(const Value& v) {
  if (v.is_null()) return std::nullopt;
  const std::string& s = v.string_value();
  if (s == "+I") return RowKind::kInsert;
  if (s == "-U") return RowKind::kUpdateBefore;
  if (s == "+U") return RowKind::kUpdateAfter;
  if (s == "-D") return RowKind::kDelete;
  return std::nullopt;
}

// The streams the job's query opens: each with the job's consumer id for its place, resumed
// where the job left it.
class JobSources : public planner::StreamJobSources {
 public:
  struct Source {
    std::string table;
    std::string path;
    StreamScan* stream = nullptr;
    bool insert_only = true;
  };

  JobSources(std::string job, std::vector<RecordedSource> recorded)
      : job_(std::move(job)), recorded_(std::move(recorded)) {}

  Status Opening(Table& table, StreamOptions* options) override {
    const size_t index = sources_.size();
    Source src;
    src.table = table.identifier().ToString();
    src.path = table.path();
    if (!options->consumer_id.empty()) {
      return Status::Invalid(
          "a streaming INSERT keeps its sources' positions under consumer ids "
          "of its own; remove the 'consumer-id' hint of " +
          src.table);
    }
    options->consumer_id = ConsumerId(job_, index);
    std::optional<Position> at;
    if (index < recorded_.size()) {
      if (recorded_[index].table != src.table) {
        return Status::Invalid("job '" + job_ + "' last committed reading " +
                               recorded_[index].table + " as its source " +
                               std::to_string(index + 1) + ", but this statement reads " +
                               src.table +
                               " there: give the job another name (SET "
                               "'pipeline.name' = '...')");
      }
      at = recorded_[index].position;
    }
    TRIB_ASSIGN_OR_RETURN(std::optional<meta::ConsumerPosition> consumer,
                          meta::ReadConsumerPosition(src.path, options->consumer_id));
    if (consumer) {
      const Position c{consumer->next_snapshot, consumer->offset};
      if (!at || c > *at) at = c;
    }
    if (at) {
      // The stream resumes at the consumer's position: set it to where the job resumes.
      TRIB_RETURN_NOT_OK(meta::WriteConsumerPosition(
          src.path, options->consumer_id, meta::ConsumerPosition{at->first, at->second}));
      options->consumer_ignore_progress = false;
    }
    sources_.push_back(std::move(src));
    return Status::OK();
  }

  void Opened(Table& table, StreamScan* stream, bool insert_only) override {
    sources_.back().stream = stream;
    sources_.back().insert_only = insert_only;
  }

  const std::vector<Source>& sources() const { return sources_; }

  // The sources' positions as a snapshot property; nullopt while one has none yet (a start-up
  // still reading its first snapshot whole).
  std::optional<std::string> PositionsProperty() const {
    Json j = Json::array();
    for (const Source& s : sources_) {
      std::optional<Position> p = s.stream->position();
      if (!p) return std::nullopt;
      Json e = Json::object();
      e["table"] = s.table;
      e["next-snapshot"] = p->first;
      e["offset"] = p->second;
      j.push_back(std::move(e));
    }
    return j.dump();
  }

 private:
  std::string job_;
  std::vector<RecordedSource> recorded_;
  std::vector<Source> sources_;
};

// Every operator between the sources and the sink passes positions on (PassesPositions), else
// the operator that does not.
const Operator* HoldsState(const Operator& op) {
  if (!op.PassesPositions()) return &op;
  for (const Operator* c : op.children()) {
    if (const Operator* held = HoldsState(*c)) return held;
  }
  return nullptr;
}

}  // namespace

Result<StatementResult> Session::StreamingInsert(const InsertStmt& s) {
  if (s.overwrite) {
    return NotSupportedAt(s.pos,
                          "INSERT OVERWRITE in streaming mode is not supported (as in "
                          "Flink): overwrite in batch mode");
  }
  if (s.has_partition || !s.columns.empty()) {
    return NotSupportedAt(s.pos,
                          "a streaming INSERT with a column list or PARTITION (...) is "
                          "not supported yet: select every column of the sink");
  }
  ResolvedName rn;
  OptionList target_hints = s.hints;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Table> sink,
                        OpenWriteTarget(*this, s.name, &target_hints, &rn, "write to"));
  const auto schema = sink->schema();
  const std::vector<Field>& fields = schema->fields;

  // The job: its name, its commit interval, where its last commit left its sources.
  std::string job = "insert-into_" + rn.id.ToString();
  if (auto it = options_.find("pipeline.name"); it != options_.end() && !it->second.empty()) {
    job = it->second;
  }
  int64_t interval_ms = 1000;
  if (auto it = options_.find("execution.checkpointing.interval");
      it != options_.end() && !it->second.empty()) {
    auto ms = options::ParseDurationMillis(it->second);
    if (!ms.ok() || *ms < 1) {
      return ErrorAt(s.pos, "'execution.checkpointing.interval' = '" + it->second +
                                "' is not a positive duration (e.g. '1 s', '500 ms')");
    }
    interval_ms = *ms;
  }
  auto last = FindLastCommit(sink->path(), job);
  if (!last.ok()) return ErrorAt(s.name.pos, last.status().message());
  JobSources sources(job, *last ? (*last)->sources : std::vector<RecordedSource>{});
  int64_t identifier = *last ? (*last)->identifier : 0;

  std::unique_ptr<Operator> root;
  {
    planner::StreamJobScope in_job(&sources);
    TRIB_ASSIGN_OR_RETURN(root, OpenStreamingQuery(*this, *s.source, stream_idle_timeout_));
  }
  if (const Operator* held = HoldsState(*root)) {
    return NotSupportedAt(s.source->pos,
                          "a streaming INSERT through '" + held->Describe() +
                              "' is not supported yet: a job runs projections, filters, "
                              "functions and lookup joins (exactly once needs every operator "
                              "between its sources and its sink to hold nothing across changes)");
  }
  const std::vector<Field>& in = root->fields();  // op, then the select list
  if (in.size() != fields.size() + 1) {
    return ErrorAt(s.source->pos,
                   "INSERT into " + rn.id.ToString() + " expects " + std::to_string(fields.size()) +
                       " columns but the query returns " + std::to_string(in.size() - 1));
  }
  for (size_t c = 0; c < fields.size(); ++c) {
    if (!CanCast(in[c + 1].type, fields[c].type, CastMode::kAssignment)) {
      return ErrorAt(s.source->pos, "query column " + std::to_string(c + 1) + " ('" +
                                        in[c + 1].name + "', " + TypeName(in[c + 1].type) +
                                        ") cannot be inserted into column '" + fields[c].name +
                                        "' of type " + TypeName(fields[c].type));
    }
  }
  const bool keyed = schema->HasPrimaryKey();
  if (!keyed) {
    for (const auto& src : sources.sources()) {
      if (!src.insert_only) {
        return ErrorAt(s.source->pos,
                       "Table sink '" + rn.id.ToString() +
                           "' doesn't support consuming update and delete changes which is "
                           "produced by the stream of primary-key table " +
                           src.table + " (give the sink a primary key, or read " + src.table +
                           "$audit_log)");
      }
    }
  }
  // What a primary-key sink takes of an update's old row (-U): the deduplicate engine takes it as
  // the removal of the key, so a filter that drops the new row (+U) leaves no stale row behind
  // (an update that keeps the key is merged into its +U in the same commit); aggregation
  // retracts it; 'changelog-producer' = 'input' stores every change. Other engines take upserts
  // only (Paimon's sink asks Flink for no -U there).
  TRIB_ASSIGN_OR_RETURN(options::ChangelogProducer producer,
                        options::Get(*schema, options::kChangelogProducer));
  TRIB_ASSIGN_OR_RETURN(options::MergeEngine engine, options::Get(*schema, options::kMergeEngine));
  const bool keep_update_before = producer == options::ChangelogProducer::kInput ||
                                  engine == options::MergeEngine::kDeduplicate ||
                                  engine == options::MergeEngine::kAggregation;

  WriteOptions options;
  if (!target_hints.empty()) {
    auto hints = NormalizeHints(target_hints, *schema);
    if (!hints.ok()) return ErrorAt(s.hints_pos, hints.status().message());
    options.dynamic_options = std::move(*hints);
  }
  options.commit_user = CommitUser(job);
  options.async_compaction = true;
  auto writer_or = sink->NewWriter(options);
  if (!writer_or.ok()) return ErrorAt(s.pos, writer_or.status().message());
  std::unique_ptr<TableWriter> writer = std::move(*writer_or);

  int64_t rows_in = 0, rows_written = 0, commits = 0, pending = 0;
  auto last_commit = std::chrono::steady_clock::now();
  const bool tty = ::isatty(2);
  // Commits what was written, with the sources' positions, then moves the consumers; nothing
  // while a source has no position yet (its first snapshot still being read whole).
  auto commit = [&]() -> Status {
    std::optional<std::string> positions = sources.PositionsProperty();
    if (!positions) return Status::OK();
    writer->SetNextCommitInfo(++identifier,
                              {{kJobNameProperty, job}, {kJobSourcesProperty, *positions}});
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> snapshot, writer->Commit());
    for (const std::string& w : writer->warnings()) {
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
    if (snapshot) commits++;
    TRIB_RETURN_NOT_OK(root->Checkpoint(std::nullopt));
    pending = 0;
    last_commit = std::chrono::steady_clock::now();
    if (tty) {
      std::fprintf(stderr, "\rjob %s: %lld change(s) read, %lld written, %lld commit(s)\033[K",
                   job.c_str(), static_cast<long long>(rows_in),
                   static_cast<long long>(rows_written), static_cast<long long>(commits));
      std::fflush(stderr);
    }
    return Status::OK();
  };
  auto due = [&] {
    return std::chrono::steady_clock::now() - last_commit >= std::chrono::milliseconds(interval_ms);
  };

  std::optional<InterruptScope> interrupt;
  interrupt.emplace();
  TerminateScope terminate;
  Status failed;
  {
    // While the sources wait for changes, rows written before reach the sink on time.
    planner::StreamJobScope in_job(&sources);
    StreamIdleHookScope idle([&]() -> Status { return due() ? commit() : Status::OK(); });
    ColumnBatch batch;
    while (failed.ok()) {
      auto more = root->Next(&batch);
      if (!more.ok()) {
        failed = more.status();
        break;
      }
      if (!*more) break;
      for (Row& r : BatchRows(batch)) {
        rows_in++;
        std::optional<RowKind> kind = ParseRowKind(r[0]);
        if (!kind) {
          failed = Status::Internal("a streaming INSERT met a change without its kind");
          break;
        }
        if (*kind == RowKind::kUpdateBefore && keyed && !keep_update_before) continue;
        Row out(fields.size());
        for (size_t c = 0; c < fields.size(); ++c) {
          auto v = CastValue(r[c + 1], in[c + 1].type, fields[c].type, CastMode::kAssignment);
          if (!v.ok()) {
            failed = Status::Invalid(v.status().message() + " (column '" + fields[c].name + "')");
            break;
          }
          out[c] = std::move(*v);
        }
        if (!failed.ok()) break;
        failed = writer->Write(*kind, std::move(out));
        rows_written++;
        pending++;
      }
      if (failed.ok() && due()) failed = commit();
    }
    // Stopped (Ctrl-C, SIGTERM, the idle time-out): what was read is committed.
    if (failed.ok()) failed = commit();
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  ConsumeInterrupt();
  if (!failed.ok()) {
    writer->Abort();
    return ErrorAt(s.pos, "job '" + job + "' stopped: " + failed.message() +
                              " (its last commit stands; run it again to resume there)");
  }
  StatementResult out;
  out.message = "Job '" + job + "' stopped: " + std::to_string(rows_written) +
                " change(s) written to " + rn.id.ToString() + " in " + std::to_string(commits) +
                " commit(s)";
  if (!sources.PositionsProperty()) {
    out.message += "; its sources' first snapshots were not read whole, so nothing was committed";
    writer->Abort();
  }
  return out;
}

}  // namespace tributary::sql
