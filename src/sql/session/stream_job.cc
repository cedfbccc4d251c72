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
#include <cstring>
#include <thread>
#include <utility>

#include "common/json.h"
#include "common/path_names.h"
#include "io/file_system.h"
#include "meta/consumer.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/planner/query.h"
#include "sql/session/job_lock.h"
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
  // The job read the source's changes as written (StreamOptions::upserts), not normalised: the
  // offset inside a snapshot counts those.
  bool upserts = false;
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

// The consumer that keeps the snapshot a job's top-N is rebuilt from (the one before the job's
// position in its `index`-th source) from expiring.
std::string StateConsumerId(const std::string& job, size_t index) {
  return ConsumerId(job, index) + "-state";
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
             {e.at("next-snapshot").get<int64_t>(), e.at("offset").get<int64_t>()},
             e.value("upserts", false)});
      }
    } catch (const std::exception& e) {
      return Status::Corruption("snapshot " + std::to_string(id) + "'s " + kJobSourcesProperty +
                                ": " + e.what());
    }
    return std::optional<LastCommit>(std::move(last));
  }
  return std::optional<LastCommit>();
}

// A job's name ('pipeline.name', else Flink's default) and commit interval.
struct JobSettings {
  std::string name;
  int64_t interval_ms = 0;
};
// The session's value of option `key`, else the option table's default.
std::string SessionOption(const std::map<std::string, std::string>& options, const char* key) {
  if (auto it = options.find(key); it != options.end()) return it->second;
  const OptionDef* def = FindOption(OptionScope::kSession, key);
  return def ? def->default_value : std::string();
}
Result<JobSettings> ReadJobSettings(const std::map<std::string, std::string>& options,
                                    const Identifier& sink, const Pos& pos) {
  JobSettings out;
  out.name = SessionOption(options, "pipeline.name");
  if (out.name.empty()) out.name = "insert-into_" + sink.ToString();
  // The name becomes consumer ids and a lock file's name: checked as consumer ids are, in
  // their longest form (a top-N's state consumer).
  if (Status st = CheckConsumerId(StateConsumerId(out.name, 0)); !st.ok()) {
    return ErrorAt(pos, "'pipeline.name' = '" + out.name + "' cannot name a job: " + st.message());
  }
  const std::string interval = SessionOption(options, "execution.checkpointing.interval");
  auto ms = options::ParseDurationMillis(interval);
  if (!ms.ok() || *ms < 1) {
    return ErrorAt(pos, "'execution.checkpointing.interval' = '" + interval +
                            "' is not a positive duration (e.g. '1 s', '500 ms')");
  }
  out.interval_ms = *ms;
  return out;
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
    bool upserts = false;  // StreamOptions::upserts
    // Resuming a job whose top-N is rebuilt: the stream reads the snapshot before the job's
    // position whole first; the changes it returns until it has a position are that rebuild.
    bool rebuilding = false;
  };

  // `rebuilds_state`: the job's query holds state that its sources' rows rebuild (a top-N):
  // a source resumed at snapshot S is read from snapshot S - 1 whole, and snapshot S - 1 kept
  // from expiring by a consumer of its own.
  JobSources(std::string job, std::vector<RecordedSource> recorded, bool rebuilds_state)
      : job_(std::move(job)), recorded_(std::move(recorded)), rebuilds_state_(rebuilds_state) {}

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
      if (at->second != 0 && recorded_[index].upserts != options->upserts) {
        // The offset counts changes of the other kind: it cannot be placed in this reading.
        return Status::NotSupported(
            "job '" + job_ + "' stopped inside snapshot " + std::to_string(at->first) + " of " +
            src.table + " reading its changes " +
            (recorded_[index].upserts ? "as upserts" : "normalised") + ", and now reads them " +
            (options->upserts ? "as upserts" : "normalised") +
            " (the sink's or the source's options changed): resuming there is not supported "
            "yet; restore the options until the job has passed that snapshot, or give the job "
            "another name (SET 'pipeline.name' = '...')");
      }
    }
    TRIB_ASSIGN_OR_RETURN(std::optional<meta::ConsumerPosition> consumer,
                          meta::ReadConsumerPosition(src.path, options->consumer_id));
    if (consumer) {
      const Position c{consumer->next_snapshot, consumer->offset};
      if (!at || c > *at) at = c;
    }
    if (rebuilds_state_ && options->startup_mode != "full" &&
        options->startup_mode != "from-snapshot-full" &&
        options->startup_mode != "compacted-full") {
      return Status::NotSupported(
          "a streaming INSERT through a top-N reads its source from a snapshot whole first "
          "('scan.startup.mode' = 'full', the default, or 'scan.mode' = 'from-snapshot-full' / "
          "'compacted-full'), not from '" +
          options->startup_mode + "' (" + src.table +
          "): a restart rebuilds the top-N from the source's rows (not supported yet)");
    }
    if (at && rebuilds_state_ && at->first > 1) {
      // The top-N is rebuilt from the rows of the snapshot before the position (its rows count
      // as delivered: the job writes nothing for them), then the stream goes on from there.
      if (at->second != 0) {
        return Status::NotSupported("job '" + job_ + "' stopped inside snapshot " +
                                    std::to_string(at->first) + " of " + src.table +
                                    ": its top-N cannot be rebuilt there (not supported yet)");
      }
      const int64_t from = at->first - 1;
      TRIB_ASSIGN_OR_RETURN(bool exists,
                            io::LocalFs().FileExists(meta::SnapshotPath(src.path, from)));
      if (!exists) {
        return Status::Invalid("job '" + job_ + "' resumes " + src.table + " at snapshot " +
                               std::to_string(at->first) + ", but snapshot " +
                               std::to_string(from) +
                               ", whose rows rebuild its top-N, has expired; give the job "
                               "another name (SET 'pipeline.name' = '...') to start over");
      }
      TRIB_RETURN_NOT_OK(meta::WriteConsumerPosition(
          src.path, options->consumer_id, meta::ConsumerPosition{at->first, at->second}));
      options->startup_mode = "from-snapshot-full";
      options->startup_snapshot_id = from;
      options->startup_timestamp_millis.reset();
      options->consumer_ignore_progress = true;
      src.rebuilding = true;
    } else if (at) {
      // The stream resumes at the consumer's position: set it to where the job resumes.
      TRIB_RETURN_NOT_OK(meta::WriteConsumerPosition(
          src.path, options->consumer_id, meta::ConsumerPosition{at->first, at->second}));
      options->consumer_ignore_progress = false;
    }
    src.upserts = options->upserts;
    sources_.push_back(std::move(src));
    return Status::OK();
  }

  void Opened(Table& table, StreamScan* stream, bool insert_only) override {
    sources_.back().stream = stream;
    sources_.back().insert_only = insert_only;
  }

  const std::vector<Source>& sources() const { return sources_; }

  // Whether the changes read so far are a rebuild's (a source still reading the snapshot its
  // top-N is rebuilt from): what they produce is not written.
  bool Rebuilding() {
    bool any = false;
    for (Source& s : sources_) {
      if (s.rebuilding && !s.stream->position()) {
        any = true;
      } else {
        s.rebuilding = false;
      }
    }
    return any;
  }

  // After a commit (every change returned so far written): each source's consumer moves to its
  // stream's position; a job that rebuilds state keeps the snapshot before it too.
  Status Checkpoint() const {
    for (const Source& s : sources_) TRIB_RETURN_NOT_OK(s.stream->Checkpoint());
    if (!rebuilds_state_) return Status::OK();
    for (size_t i = 0; i < sources_.size(); i++) {
      const std::optional<Position> p = sources_[i].stream->position();
      if (!p || p->first <= 1) continue;
      TRIB_RETURN_NOT_OK(meta::WriteConsumerPosition(sources_[i].path, StateConsumerId(job_, i),
                                                     meta::ConsumerPosition{p->first - 1, 0}));
    }
    return Status::OK();
  }

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
      if (s.upserts) e["upserts"] = true;
      j.push_back(std::move(e));
    }
    return j.dump();
  }

 private:
  std::string job_;
  std::vector<RecordedSource> recorded_;
  bool rebuilds_state_;
  std::vector<Source> sources_;
};

// The operators between the sources and the sink that do not pass positions on
// (PassesPositions): they hold state.
void StateHolders(const Operator& op, std::vector<const Operator*>* out) {
  if (!op.PassesPositions()) out->push_back(&op);
  for (const Operator* c : op.children()) StateHolders(*c, out);
}

// Whether `q` is Flink's top-N pattern (a subquery in FROM: the only one a streaming query
// plans, streaming_query.cc), whose state a restarted job rebuilds from its source's rows.
bool IsTopNPattern(const SelectStmt& q) {
  return q.set_operands.empty() && q.from && q.from->subquery;
}

}  // namespace

// A job planned: its sink and writer, its query's operators over its sources' streams, what it
// writes of each change.
struct StreamJob {
  std::string name;
  int64_t interval_ms = 0;  // from JobSettings
  std::string sink_name;
  std::unique_ptr<Table> sink;
  std::unique_ptr<JobLock> lock;
  std::unique_ptr<JobSources> sources;
  std::unique_ptr<Operator> root;  // op, then the select list
  std::unique_ptr<TableWriter> writer;
  bool keyed = false;
  bool keep_update_before = false;
  int64_t identifier = 0;  // of its last commit
  Pos pos;
};

Result<std::unique_ptr<StreamJob>> Session::PrepareJob(const InsertStmt& s,
                                                       const std::string& name_suffix) {
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
  auto j = std::make_unique<StreamJob>();
  j->pos = s.pos;
  ResolvedName rn;
  OptionList target_hints = s.hints;
  TRIB_ASSIGN_OR_RETURN(j->sink, OpenWriteTarget(*this, s.name, &target_hints, &rn, "write to"));
  j->sink_name = rn.id.ToString();
  const auto schema = j->sink->schema();
  const std::vector<Field>& fields = schema->fields;

  // The job: its name, its commit interval, where its last commit left its sources.
  TRIB_ASSIGN_OR_RETURN(JobSettings settings, ReadJobSettings(options_, rn.id, s.pos));
  j->name = settings.name + name_suffix;
  j->interval_ms = settings.interval_ms;
  auto lock = JobLock::Acquire(j->sink->path(), j->name, j->interval_ms);
  if (!lock.ok()) return ErrorAt(s.pos, lock.status().message());
  j->lock = std::move(*lock);
  auto last = FindLastCommit(j->sink->path(), j->name);
  if (!last.ok()) return ErrorAt(s.name.pos, last.status().message());
  j->sources = std::make_unique<JobSources>(
      j->name, *last ? (*last)->sources : std::vector<RecordedSource>{}, IsTopNPattern(*s.source));
  j->identifier = *last ? (*last)->identifier : 0;
  {
    planner::StreamJobScope in_job(j->sources.get(), schema.get());
    TRIB_ASSIGN_OR_RETURN(j->root, OpenStreamingQuery(*this, *s.source, stream_idle_timeout_));
  }
  // Exactly once needs every operator between the sources and the sink to hold nothing across
  // changes, or only what the sources' rows at the job's position rebuild (a top-N).
  std::vector<const Operator*> held;
  StateHolders(*j->root, &held);
  if (held.size() > 1 ||
      (held.size() == 1 && (!held[0]->StateFromInputRows() || j->sources->sources().size() != 1))) {
    const Operator* bad = held[0]->StateFromInputRows() && held.size() > 1 ? held[1] : held[0];
    return NotSupportedAt(s.source->pos,
                          "a streaming INSERT through '" + bad->Describe() +
                              "' is not supported yet: a job runs projections, filters, "
                              "functions, lookup joins, delta joins and the top-N pattern "
                              "(exactly once needs every other operator between its sources and "
                              "its sink to hold nothing across changes)");
  }
  const std::vector<Field>& in = j->root->fields();
  if (in.size() != fields.size() + 1) {
    return ErrorAt(s.source->pos,
                   "INSERT into " + j->sink_name + " expects " + std::to_string(fields.size()) +
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
  j->keyed = schema->HasPrimaryKey();
  if (!j->keyed) {
    for (const auto& src : j->sources->sources()) {
      if (!src.insert_only) {
        return ErrorAt(s.source->pos,
                       "Table sink '" + j->sink_name +
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
  j->keep_update_before = producer == options::ChangelogProducer::kInput ||
                          engine == options::MergeEngine::kDeduplicate ||
                          engine == options::MergeEngine::kAggregation;

  WriteOptions options;
  if (!target_hints.empty()) {
    auto hints = NormalizeHints(target_hints, *schema);
    if (!hints.ok()) return ErrorAt(s.hints_pos, hints.status().message());
    options.dynamic_options = std::move(*hints);
  }
  options.commit_user = CommitUser(j->name);
  options.async_compaction = true;
  {  // where 'write-buffer-spillable' spills: the session's 'io.tmp.dirs'
    auto tmp = this->options().find(kSpillDirsKey);
    options.spill_dirs = datafile::SpillDirs(tmp != this->options().end() ? tmp->second : "");
  }
  auto writer = j->sink->NewWriter(options);
  if (!writer.ok()) return ErrorAt(s.pos, writer.status().message());
  j->writer = std::move(*writer);
  return j;
}

namespace {

// Runs `j` until its sources end (Ctrl-C, SIGTERM, the idle time-out, `control`'s stop flag):
// what it says when it stops, or why it failed (its last commit stands).
Result<std::string> RunJob(StreamJob& j, JobControl* control) {
  const std::vector<Field>& fields = j.sink->schema()->fields;
  const std::vector<Field>& in = j.root->fields();
  int64_t rows_in = 0, rows_written = 0, commits = 0;
  auto last_commit = std::chrono::steady_clock::now();
  const bool tty = !control && ::isatty(2);
  // Commits what was written, with the sources' positions, then moves the consumers; nothing
  // while a source has no position yet (its first snapshot still being read whole).
  // `ends`: the job stops (Ctrl-C, SIGTERM, the idle time-out), so its input ends: the commit
  // waits for the sink's background compactions, as a statement's does.
  auto commit = [&](bool ends = false) -> Status {
    // A lease lost to another process: no commit after it.
    TRIB_RETURN_NOT_OK(j.lock->Keep());
    std::optional<std::string> positions = j.sources->PositionsProperty();
    if (!positions) return Status::OK();
    // The interval runs from one commit's start to the next's: a change waits at most about
    // the interval plus one commit.
    last_commit = std::chrono::steady_clock::now();
    j.writer->SetNextCommitInfo(++j.identifier,
                                {{kJobNameProperty, j.name}, {kJobSourcesProperty, *positions}});
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> snapshot,
                          ends ? j.writer->CommitAndWaitForCompaction() : j.writer->Commit());
    for (const std::string& w : j.writer->warnings()) {
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
    if (snapshot) commits++;
    // Every change the sources returned has been written: their consumers move to their
    // positions (directly: a top-N does not pass Checkpoint on).
    TRIB_RETURN_NOT_OK(j.sources->Checkpoint());
    if (control) {
      std::lock_guard<std::mutex> lock(control->mu);
      control->rows_read = rows_in;
      control->rows_written = rows_written;
      control->commits = commits;
      control->positions.clear();
      for (const auto& src : j.sources->sources()) {
        const auto p = src.stream->position();
        control->positions.emplace_back(src.table, p->first, p->second);
      }
    }
    if (tty) {
      // How far behind each source it is: the snapshots committed that it has not read, and
      // how long ago the oldest of them was committed.
      std::string lag;
      const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
      for (const auto& src : j.sources->sources()) {
        meta::SnapshotManager snapshots(src.path);
        auto latest = snapshots.LatestId();
        const auto p = src.stream->position();
        if (!latest.ok() || !*latest || !p) continue;
        const int64_t behind = std::max<int64_t>(0, **latest - p->first + 1);
        lag += ", " + src.table + " " + std::to_string(behind) + " snapshot(s)";
        auto oldest = behind > 0 ? snapshots.Read(p->first)
                                 : Result<std::shared_ptr<const meta::Snapshot>>(nullptr);
        if (oldest.ok() && *oldest) {
          char secs[32];
          std::snprintf(secs, sizeof(secs), " / %.1f s",
                        std::max<int64_t>(0, now_ms - (*oldest)->time_millis) / 1000.0);
          lag += secs;
        }
        lag += " behind";
      }
      std::fprintf(stderr, "\rjob %s: %lld change(s) read, %lld written, %lld commit(s)%s\033[K",
                   j.name.c_str(), static_cast<long long>(rows_in),
                   static_cast<long long>(rows_written), static_cast<long long>(commits),
                   lag.c_str());
      std::fflush(stderr);
    }
    return Status::OK();
  };
  auto due = [&] {
    return std::chrono::steady_clock::now() - last_commit >=
           std::chrono::milliseconds(j.interval_ms);
  };
  std::vector<bool> same_type(fields.size());
  for (size_t c = 0; c < fields.size(); ++c) same_type[c] = in[c + 1].type == fields[c].type;
  // Writes one change (op, then the select list) into the sink.
  auto write = [&](Row& r) -> Status {
    rows_in++;
    std::optional<RowKind> kind = ParseRowKind(r[0]);
    if (!kind) return Status::Internal("a streaming INSERT met a change without its kind");
    if (*kind == RowKind::kUpdateBefore && j.keyed && !j.keep_update_before) return Status::OK();
    Row out(fields.size());
    for (size_t c = 0; c < fields.size(); ++c) {
      if (same_type[c]) {  // nothing to cast or check: the value is the column's already
        out[c] = std::move(r[c + 1]);
        continue;
      }
      auto v = CastValue(r[c + 1], in[c + 1].type, fields[c].type, CastMode::kAssignment);
      if (!v.ok()) {
        return Status::Invalid(v.status().message() + " (column '" + fields[c].name + "')");
      }
      out[c] = std::move(*v);
    }
    rows_written++;
    return j.writer->Write(*kind, std::move(out));
  };

  std::optional<StopFlagScope> stop;
  if (control) {
    stop.emplace(&control->stop);
    std::lock_guard<std::mutex> lock(control->mu);
    control->name = j.name;
  }
  Status failed;
  {
    // While the sources wait for changes, rows written before reach the sink on time.
    planner::StreamJobScope in_job(j.sources.get());
    // A source waiting for changes wakes when the next commit falls due.
    StreamIdleHookScope idle(
        [&]() -> Status { return due() ? commit() : j.lock->Keep(); },
        [&] { return last_commit + std::chrono::milliseconds(j.interval_ms); });
    ColumnBatch batch;
    while (failed.ok()) {
      auto more = j.root->Next(&batch);
      if (!more.ok()) {
        failed = more.status();
        break;
      }
      if (!*more) break;
      failed = j.lock->Keep();
      if (!failed.ok()) break;
      // A top-N being rebuilt from the snapshot before the job's position: its changes were
      // written before the restart.
      if (j.sources->Rebuilding()) continue;
      for (Row& r : BatchRows(batch)) {
        failed = write(r);
        if (!failed.ok()) break;
      }
      if (failed.ok() && due()) failed = commit();
    }
    // Stopped (Ctrl-C, SIGTERM, the idle time-out): what was read is committed.
    if (failed.ok()) failed = commit(/*ends=*/true);
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  if (!failed.ok()) {
    j.writer->Abort();
    return Status(failed.code(), "job '" + j.name + "' stopped: " + failed.message() +
                                     " (its last commit stands; run it again to resume there)");
  }
  std::string said = "Job '" + j.name + "' stopped: " + std::to_string(rows_written) +
                     " change(s) written to " + j.sink_name + " in " + std::to_string(commits) +
                     " commit(s)";
  if (!j.sources->PositionsProperty()) {
    said += "; its sources' first snapshots were not read whole, so nothing was committed";
    j.writer->Abort();
  }
  return said;
}

}  // namespace

Result<StatementResult> Session::StreamingInsert(const InsertStmt& s) {
  JobControl* control = std::exchange(job_control_, nullptr);  // a library job's
  if (!control && refuse_unmanaged_jobs_) {
    return NotSupportedAt(s.pos,
                          "this streaming INSERT cannot run here: the server starts it as a job "
                          "when it is sent in streaming mode as a statement of its own");
  }
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<StreamJob> job, PrepareJob(s, ""));
  // The CLI's job stops on Ctrl-C and SIGTERM; a library job by its control's flag.
  std::optional<InterruptScope> interrupt;
  std::optional<TerminateScope> terminate;
  if (!control) {
    interrupt.emplace();
    terminate.emplace();
  }
  Result<std::string> said = RunJob(*job, control);
  if (!control) ConsumeInterrupt();
  if (!said.ok()) return Locate(said.status(), s.pos);
  StatementResult out;
  out.message = *said;
  return out;
}

Result<StatementResult> Session::StreamingStatementSet(
    const std::vector<const InsertStmt*>& inserts) {
  if (refuse_unmanaged_jobs_ && !inserts.empty()) {
    return NotSupportedAt(inserts[0]->pos,
                          "a streaming statement set cannot run here: the server runs one job "
                          "per INSERT INTO ... SELECT");
  }
  // One job of several parts: part k is '<name>#k', with its own sink commits and sources'
  // positions; all planned first (a refusal starts none), then run side by side.
  std::vector<std::unique_ptr<StreamJob>> jobs;
  for (size_t k = 0; k < inserts.size(); k++) {
    TRIB_ASSIGN_OR_RETURN(auto job, PrepareJob(*inserts[k], "#" + std::to_string(k + 1)));
    jobs.push_back(std::move(job));
  }
  InterruptScope interrupt;
  TerminateScope terminate;
  std::vector<Result<std::string>> said(jobs.size(), Status::OK());
  {
    std::vector<std::thread> threads;
    for (size_t k = 1; k < jobs.size(); k++) {
      threads.emplace_back([&, k] { said[k] = RunJob(*jobs[k], nullptr); });
    }
    said[0] = RunJob(*jobs[0], nullptr);
    for (auto& t : threads) t.join();
  }
  ConsumeInterrupt();
  std::string message;
  for (size_t k = 0; k < jobs.size(); k++) {
    if (!said[k].ok()) return Locate(said[k].status(), inserts[k]->pos);
    message += (message.empty() ? "" : "\n") + *said[k];
  }
  StatementResult out;
  out.message = message;
  return out;
}

Result<StatementResult> Session::ExplainStreamingInsert(const InsertStmt& s) {
  ResolvedName rn;
  OptionList target_hints = s.hints;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<Table> sink,
                        OpenWriteTarget(*this, s.name, &target_hints, &rn, "write to"));
  TRIB_ASSIGN_OR_RETURN(JobSettings settings, ReadJobSettings(options_, rn.id, s.pos));
  auto last = FindLastCommit(sink->path(), settings.name);
  if (!last.ok()) return ErrorAt(s.name.pos, last.status().message());
  std::string plan = "StreamingInsert: job '" + settings.name + "' into " + rn.id.ToString() +
                     ", a commit every " + std::to_string(settings.interval_ms) +
                     " ms (commitUser '" + CommitUser(settings.name) + "')";
  if (*last) {
    for (size_t i = 0; i < (*last)->sources.size(); i++) {
      const RecordedSource& r = (*last)->sources[i];
      plan +=
          "\n  source " + std::to_string(i + 1) + ": " + r.table + " resumes at snapshot " +
          std::to_string(r.position.first) +
          (r.position.second ? " (after " + std::to_string(r.position.second) + " of its changes)"
                             : std::string()) +
          " (the job's commit " + std::to_string((*last)->identifier) +
          ", or its consumer's position if later)" +
          (IsTopNPattern(*s.source) && r.position.first > 1
               ? "; its top-N is rebuilt first from the rows of the snapshot before (" +
                     std::to_string(r.position.first - 1) +
                     " if still so), nothing written for them"
               : std::string());
    }
  } else {
    plan += "\n  first run: each source starts at its start-up mode";
  }
  std::string query;
  {
    planner::StreamJobScope as_job(nullptr, sink->schema().get());
    TRIB_ASSIGN_OR_RETURN(query, ExplainQuery(*this, *s.source));
  }
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('\n', start);
    if (end == std::string::npos) end = query.size();
    plan += "\n  " + query.substr(start, end - start);
    start = end + 1;
  }
  return Rows({StringField("plan")}, {{Value::String(plan)}});
}

}  // namespace tributary::sql
