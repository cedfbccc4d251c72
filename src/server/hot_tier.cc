#include "server/hot_tier.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "common/check_value.h"
#include "common/path_names.h"
#include "io/file_system.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "read/pending.h"
#include "server/connection.h"
#include "server/hot_tier_log.h"
#include "server/jobs.h"
#include "server/table_writers.h"
#include "tributary/catalog.h"
#include "tributary/schema.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::server {

namespace {

namespace fs = std::filesystem;

// How many snapshots back recovery looks for the last one tiering made.
constexpr int64_t kSnapshotsSearched = 100000;
// Pending rows of one table past which it is tiered without waiting for its interval
// (1,000,000; a test may lower it: $TRIBUTARY_TEST_HOT_TIER_ROWS).
int64_t TierRows() {
  static const int64_t rows = [] {
    const char* v = std::getenv("TRIBUTARY_TEST_HOT_TIER_ROWS");
    return v != nullptr && std::atoll(v) > 0 ? std::atoll(v) : int64_t{1000000};
  }();
  return rows;
}

// A statement whose rows take more than this (an estimate of their memory) is written to the
// lake directly instead of being held until its end (64 MiB; a test may lower it:
// $TRIBUTARY_TEST_HOT_TIER_STATEMENT_BYTES).
int64_t StatementBytes() {
  static const int64_t bytes = [] {
    const char* v = std::getenv("TRIBUTARY_TEST_HOT_TIER_STATEMENT_BYTES");
    return v != nullptr && std::atoll(v) > 0 ? std::atoll(v) : int64_t{64} << 20;
  }();
  return bytes;
}

// What a row held in memory takes, roughly (as write::EstimateBytes counts a buffered row).
int64_t RowBytes(const Row& row) {
  int64_t n = 48 + 40 * static_cast<int64_t>(row.size());
  for (const Value& v : row) {
    if (v.is_string()) n += static_cast<int64_t>(v.string_value().size());
  }
  return n;
}

Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("hot tier '" + dir + "': " + std::strerror(errno));
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Status::IOError("hot tier '" + dir + "': fsync: " + std::strerror(errno));
  return Status::OK();
}

// Records `seq` as the last committed entry of the log in `dir` (a new file renamed over the
// old, both fsynced).
Status WriteCommitted(const std::string& dir, int64_t seq) {
  return io::LocalFs().WriteFile((fs::path(dir) / "committed").string(), std::to_string(seq));
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The newest commit identifier tiering published into the table at `path` (0: none).
Result<int64_t> LastTieredSequence(const std::string& path);
// The last sequence number tiering committed for the log in `dir` (0: not recorded).
int64_t ReadCommitted(const std::string& dir);

// Whether a test asked this tiering commit to fail ($TRIBUTARY_TEST_HOT_TIER_FAIL_COMMITS: how
// many of the first ones fail).
bool InjectedFailure() {
  static std::atomic<int> left{[] {
    const char* v = std::getenv("TRIBUTARY_TEST_HOT_TIER_FAIL_COMMITS");
    return v != nullptr ? std::atoi(v) : 0;
  }()};
  int n = left.load();
  while (n > 0) {
    if (left.compare_exchange_weak(n, n - 1)) return true;
  }
  return false;
}

}  // namespace

// A table's log; every field is used with the table's writer lease held (TableWriters), except
// the counters, which the state's mutex guards.
struct TableLog {
  Identifier id;
  std::string dir;            // <data-dir>/<database>/<table>
  int fd = -1;                // the log file being appended to, if open
  int64_t last_seq = 0;       // the last entry appended (or committed)
  int64_t committed_seq = 0;  // the last entry the lake has
  // Whether committed_seq was read from the lake: entries must be numbered past what earlier
  // runs of the server committed, or a replay would take them for committed ones.
  bool initialized = false;
  // The shared writer holds every entry past committed_seq when its generation is this one
  // (TableWriters::Lease::generation): a writer opened again since (a schema changed, a failure)
  // holds none of them and gets them replayed before it is used.
  uint64_t generation = 0;
  bool holds = false;
  // A failed append that could not be cut off the file: no entry may follow it.
  bool broken = false;
  int64_t entries_pending = 0, rows_pending = 0;
  // Changes with each entry logged and each tiering (union reads refresh on it); counters' mutex.
  uint64_t version = 0;
  // When the oldest pending entry was logged, and how long it may wait ('table.datalake.
  // freshness', else the server's interval); counters' mutex.
  int64_t oldest_pending_ms = 0;
  int64_t freshness_ms = 0;
  // Tiered at the next round, due or not (a streaming read follows the table, its log is
  // large); counters' mutex.
  bool urgent = false;
};

struct HotTier::State {
  std::string dir;
  std::string warehouse;
  int lock_fd = -1;       // flock'ed while the server runs
  std::mutex catalog_mu;  // the catalog is one thread's at a time
  std::unique_ptr<Catalog> catalog;
  std::mutex mu;                                          // the map and the counters
  std::map<std::string, std::unique_ptr<TableLog>> logs;  // by "db.table"
  int64_t tierings = 0;
  uint64_t versions = 0;  // the last TableLog::version given out
  std::string last_error;
  int64_t interval_ms = 1000;  // the server's freshness (Start)
  // Tiering on a thread of its own.
  std::thread thread;
  std::condition_variable wake;
  bool stopping = false;
  // A round is wanted now, not at the interval: for the logs marked urgent, or (all) for every
  // log while a job runs.
  bool urgent = false, urgent_all = false;

  // The table's log, if it has one. REQUIRES: mu held.
  TableLog* FindLog(const Identifier& id) const {
    auto it = logs.find(id.database + std::string(1, '\0') + id.table);
    return it == logs.end() ? nullptr : it->second.get();
  }

  TableLog& LogOf(const Identifier& id) {
    std::lock_guard<std::mutex> lock(mu);
    auto& slot = logs[id.database + std::string(1, '\0') + id.table];
    if (!slot) {
      slot = std::make_unique<TableLog>();
      slot->id = id;
      slot->dir = (fs::path(dir) / id.database / id.table).string();
    }
    return *slot;
  }

  // The table's shared writer, waiting for the statement that holds it. The catalog is held
  // to open the table only: the wait for its writer holds nothing, so a table held long stalls
  // no other table.
  Result<TableWriters::Lease> Lease(const Identifier& id) {
    while (true) {
      std::unique_ptr<Table> table;
      {
        std::lock_guard<std::mutex> lock(catalog_mu);
        TRIB_ASSIGN_OR_RETURN(table, catalog->GetTable(id));
      }
      TRIB_ASSIGN_OR_RETURN(auto lease, TableWriters::Instance().Acquire(
                                            std::move(table), std::chrono::milliseconds(50)));
      if (lease) return std::move(*lease);
    }
  }

  // Reads what the lake has of the log's table the first time the log is used: entries must be
  // numbered past what earlier runs of the server committed.
  Status Initialize(TableWriters::Lease* lease, TableLog* log) {
    if (log->initialized) return Status::OK();
    TRIB_ASSIGN_OR_RETURN(log->committed_seq, LastTieredSequence(lease->table().path()));
    log->committed_seq = std::max(log->committed_seq, ReadCommitted(log->dir));
    log->last_seq = std::max(log->last_seq, log->committed_seq);
    log->initialized = true;
    return Status::OK();
  }

  // After a failure that left the writer holding what the log does not (or not all it does):
  // a new writer, holding every entry the lake does not have yet.
  Status Rebuild(TableWriters::Lease* lease, TableLog* log) {
    log->holds = false;
    lease->Discard();
    TRIB_RETURN_NOT_OK(lease->Reopen());
    const std::vector<Field>& fields = lease->table().schema()->fields;
    for (const std::string& file : LogFiles(log->dir)) {
      TRIB_ASSIGN_OR_RETURN(auto entries, ReadEntries(file));
      for (const LogEntry& e : entries) {
        if (e.seq <= log->committed_seq) continue;
        TRIB_ASSIGN_OR_RETURN(Records records, DecodeRecords(e, file, fields));
        for (auto& [kind, row] : records) TRIB_RETURN_NOT_OK(lease->writer().Write(kind, row));
      }
    }
    log->generation = lease->generation();
    log->holds = true;
    // Files a union read was given are gone with the old writer: readers plan again.
    std::lock_guard<std::mutex> lock(mu);
    log->version = ++versions;
    return Status::OK();
  }

  // Makes the lease's writer hold every pending entry of the log (replaying them into a writer
  // opened since they were applied).
  Status EnsureHolds(TableWriters::Lease* lease, TableLog* log) {
    if (log->holds && log->generation == lease->generation()) return Status::OK();
    return Rebuild(lease, log);
  }

  // Appends one entry to the table's log and fsyncs it.
  Status Append(TableLog* log, const std::string& entry) {
    if (log->fd < 0) {
      // The names become path components here: checked again where the path is made.
      TRIB_RETURN_NOT_OK(CheckPathComponent("database", log->id.database));
      TRIB_RETURN_NOT_OK(CheckPathComponent("table", log->id.table));
      TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(log->dir));  // (new directories synced)
      const std::string path =
          (fs::path(log->dir) / (std::to_string(log->last_seq + 1) + ".log")).string();
      log->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (log->fd < 0) {
        return Status::IOError("hot tier log '" + path + "': " + std::strerror(errno));
      }
      TRIB_RETURN_NOT_OK(SyncDir(log->dir));  // the new file's entry
    }
    const off_t before = ::lseek(log->fd, 0, SEEK_END);
    auto fail = [&](const std::string& what) {
      // Cut the entry off (torn, or whole but not known durable: its statement fails, so no
      // replay may apply it); if that fails too, nothing more may be appended after it.
      if (before < 0 || ::ftruncate(log->fd, before) != 0 || ::fdatasync(log->fd) != 0) {
        log->broken = true;
      }
      return Status::IOError("hot tier log of " + log->id.database + "." + log->id.table + ": " +
                             what + ": " + std::strerror(errno));
    };
    size_t done = 0;
    while (done < entry.size()) {
      const ssize_t w = ::write(log->fd, entry.data() + done, entry.size() - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return fail("write");
      done += static_cast<size_t>(w);
    }
    if (::fdatasync(log->fd) != 0) return fail("fdatasync");
    return Status::OK();
  }

  // Commits what the writer holds (every entry up to log->last_seq) into the lake, then drops
  // the log files. REQUIRES: the lease.
  Status Tier(TableWriters::Lease* lease, TableLog* log) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (log->entries_pending == 0) return Status::OK();
    }
    const std::string name = "tiering " + log->id.database + "." + log->id.table;
    TRIB_RETURN_NOT_OK(EnsureHolds(lease, log).WithContext(name));
    lease->writer().SetNextCommitInfo(log->last_seq, {});
    Result<std::optional<int64_t>> committed = std::optional<int64_t>();
    if (InjectedFailure()) {  // a test's failing commit: the writer is left unusable
      lease->writer().Abort();
      committed = Status::IOError("injected commit failure (TRIBUTARY_TEST_HOT_TIER_FAIL_COMMITS)");
    } else {
      committed = lease->writer().CommitAndWaitForCompaction();
    }
    if (!committed.ok()) {
      // A commit can fail after its snapshot was published (object storage timing out on the
      // answer): the lake says which.
      auto seen = LastTieredSequence(lease->table().path());
      if (!seen.ok() || *seen < log->last_seq) {
        Status rebuilt = Rebuild(lease, log);
        return committed.status().WithContext(
            name +
            (rebuilt.ok() ? std::string() : " (and replaying its log: " + rebuilt.message() + ")"));
      }
      lease->Discard();  // what it held is committed
      log->holds = false;
    }
    if (log->fd >= 0) ::close(log->fd);
    log->fd = -1;
    log->committed_seq = log->last_seq;
    // Kept beside the log too: the snapshot that says it may expire before a crash's replay
    // looks for it (it only helps then; the lake stays the first witness).
    if (Status marked = WriteCommitted(log->dir, log->committed_seq); !marked.ok()) {
      Log("hot tier: " + marked.message());
    }
    // A test's way to stop between the commit and the log's removal (a crash there).
    if (std::getenv("TRIBUTARY_TEST_HOT_TIER_KEEP_LOGS") == nullptr) {
      for (const std::string& file : LogFiles(log->dir)) ::unlink(file.c_str());
    }
    std::lock_guard<std::mutex> lock(mu);
    log->entries_pending = 0;
    log->rows_pending = 0;
    log->urgent = false;
    log->version = ++versions;
    tierings++;
    return Status::OK();
  }

  // Every table's pending entries (the barrier, the stop), or (`due_only`) those whose oldest
  // has waited its table's freshness.
  Status TierAll(bool due_only = false) {
    std::vector<TableLog*> pending;
    {
      const int64_t now = NowMillis();
      std::lock_guard<std::mutex> lock(mu);
      for (auto& [name, log] : logs) {
        if (log->entries_pending == 0) continue;
        if (due_only && !log->urgent && now - log->oldest_pending_ms < log->freshness_ms) {
          continue;
        }
        pending.push_back(log.get());
      }
    }
    Status first;
    for (TableLog* log : pending) {
      auto lease = Lease(log->id);
      if (!lease.ok() && lease.status().IsNotFound()) {
        // Dropped by another program (a DROP through the server tiers first): its log goes.
        Log("hot tier: table " + log->id.ToString() + " no longer exists; its log is removed");
        if (log->fd >= 0) ::close(log->fd);
        log->fd = -1;
        for (const std::string& file : LogFiles(log->dir)) ::unlink(file.c_str());
        std::lock_guard<std::mutex> lock(mu);
        log->entries_pending = log->rows_pending = 0;
        log->holds = false;
        continue;
      }
      Status st = lease.ok() ? Tier(&*lease, log) : lease.status();
      if (!st.ok() && first.ok()) first = st;
    }
    std::lock_guard<std::mutex> lock(mu);
    if (!pending.empty()) last_error = first.ok() ? "" : first.message();  // (a round that tried)
    return first;
  }

  // Commits what the log of `id` holds (HotTier::Settle).
  Status Settle(const Identifier& id) {
    TableLog* log = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu);
      log = FindLog(id);
      if (log == nullptr || log->entries_pending == 0) return Status::OK();
    }
    auto lease = Lease(id);
    if (!lease.ok()) {
      // A table dropped by another program: the read says so; its log goes at the next round.
      return lease.status().IsNotFound() ? Status::OK() : lease.status();
    }
    Status st = Tier(&*lease, log);
    std::lock_guard<std::mutex> lock(mu);
    last_error = st.ok() ? "" : st.message();  // (SHOW STATS: as a round's)
    return st;
  }

  Status Recover();
};

namespace {

Result<int64_t> LastTieredSequence(const std::string& path) {
  meta::SnapshotManager snapshots(path);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return int64_t{0};
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestId());
  const int64_t stop = std::max(earliest.value_or(1), *latest - kSnapshotsSearched);
  for (int64_t id = *latest; id >= stop; id--) {
    auto s = snapshots.Read(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;
      return s.status();
    }
    // (The same user's statement commits into tables the hot tier does not take carry no
    // identifier: INT64_MAX.)
    if ((*s)->commit_user == kHotTierCommitUser && (*s)->commit_identifier != INT64_MAX) {
      return (*s)->commit_identifier;
    }
  }
  return int64_t{0};
}

constexpr const char* kIncarnationFile = "incarnation";
constexpr const char* kCommittedFile = "committed";

// The last sequence number tiering committed for the log in `dir` (0: not recorded).
int64_t ReadCommitted(const std::string& dir) {
  auto text = io::LocalFs().ReadFile((fs::path(dir) / kCommittedFile).string());
  return text.ok() ? std::atoll(text->c_str()) : 0;
}

// Which table the log directory's entries were written into (meta::TableIncarnation): a table
// dropped and created again under its name while the server was down is not theirs.
Status WriteIncarnation(const std::string& table_path, const std::string& dir) {
  TRIB_ASSIGN_OR_RETURN(std::string incarnation, meta::TableIncarnation(table_path));
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir));
  return io::LocalFs().WriteFile((fs::path(dir) / kIncarnationFile).string(), incarnation);
}

std::optional<std::string> ReadIncarnation(const std::string& dir) {
  auto text = io::LocalFs().ReadFile((fs::path(dir) / kIncarnationFile).string());
  return text.ok() ? std::optional<std::string>(std::move(*text)) : std::nullopt;
}

// A statement's writer (HotTier::NewStatementWriter).
class StatementWriter : public TableWriter {
 public:
  StatementWriter(HotTier::State* state, Identifier id, const TableSchema& schema)
      : state_(state),
        id_(std::move(id)),
        fields_(schema.fields),
        schema_id_(schema.id),
        encoder_(schema.fields, schema.options) {}

  // Rows are checked as they come (as a table writer checks them), so a bad one fails its
  // statement where it is; the rest of the writer's checks come at the commit.
  ~StatementWriter() override {
    if (direct_) DropDirect();  // (a statement abandoned without Commit or Abort)
  }

  Status Write(RowKind kind, const Row& row) override { return Write(kind, Row(row)); }
  Status Write(RowKind kind, Row&& row) override {
    if (direct_) return WriteDirect(kind, std::move(row));
    if (row.size() != fields_.size()) {
      return Status::Invalid("table " + id_.ToString() + " has " + std::to_string(fields_.size()) +
                             " columns but the row has " + std::to_string(row.size()));
    }
    for (size_t i = 0; i < row.size(); i++) TRIB_RETURN_NOT_OK(CheckValue(row[i], fields_[i]));
    TRIB_RETURN_NOT_OK(encoder_.Add(kind, row));  // the log entry grows as the rows come
    bytes_ += RowBytes(row);
    records_.emplace_back(kind, std::move(row));
    if (bytes_ > StatementBytes()) return GoDirect();
    return Status::OK();
  }

  Result<std::optional<int64_t>> Commit() override {
    std::optional<int64_t> none;
    if (direct_) return CommitDirect();  // (a failure leaves nothing of the statement)
    if (records_.empty()) return none;
    TableLog& log = state_->LogOf(id_);
    TRIB_ASSIGN_OR_RETURN(TableWriters::Lease lease, state_->Lease(id_));
    TRIB_RETURN_NOT_OK(state_->Initialize(&lease, &log));
    if (log.broken) {
      return Status::IOError("the hot tier log of " + id_.ToString() +
                             " could not be repaired after a failed write; restart the server");
    }
    TRIB_RETURN_NOT_OK(state_->EnsureHolds(&lease, &log));
    // Encoded, then applied (the writer checks every row), then logged: the log holds only rows
    // the writer took. A failure either way leaves the writer holding what the log holds.
    if (lease.table().schema()->id != schema_id_) {
      records_.clear();
      encoder_.Reset();
      return Status::Conflict("table " + id_.ToString() +
                              " changed its schema while the statement ran: nothing of it was "
                              "written; run it again");
    }
    auto entry = encoder_.Finish(log.last_seq + 1, schema_id_);
    if (!entry.ok()) return entry.status();
    const int64_t rows = static_cast<int64_t>(records_.size());
    for (auto& [kind, row] : records_) {
      Status st = lease.writer().Write(kind, std::move(row));
      if (!st.ok()) {
        records_.clear();
        Status rebuilt = state_->Rebuild(&lease, &log);
        if (!rebuilt.ok()) lease.Discard();
        return st;
      }
    }
    records_.clear();
    Status st = Status::OK();
    if (log.fd < 0) st = WriteIncarnation(lease.table().path(), log.dir);
    if (st.ok()) st = state_->Append(&log, *entry);
    if (!st.ok()) {
      Status rebuilt = state_->Rebuild(&lease, &log);
      if (!rebuilt.ok()) lease.Discard();
      return st;
    }
    log.last_seq++;
    const auto freshness =
        options::IsSet(*lease.table().schema(), options::kTableDatalakeFreshness).has_value()
            ? options::Get(*lease.table().schema(), options::kTableDatalakeFreshness)
            : Result<int64_t>(state_->interval_ms);
    bool big = false;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (log.entries_pending == 0) log.oldest_pending_ms = NowMillis();
      log.freshness_ms = freshness.ok() ? *freshness : state_->interval_ms;
      log.entries_pending++;
      log.rows_pending += rows;
      log.version = ++state_->versions;
      big = log.rows_pending >= TierRows();
    }
    // A subscriber (or a job) waits for what is committed to the lake: a write into a table a
    // streaming read of the server follows (a subscription's, a job's), or into any table while
    // a job runs (its lookup joins read tables it does not follow), is tiered at once (writes
    // that come meanwhile go with it), not at the next interval; so is a table whose log holds
    // TierRows() rows (a bound on its log and on a replay's time).
    const bool jobs = ServerJobs::Instance().running() > 0;
    if (jobs || big || meta::IsFollowed(lease.table().path())) {
      std::lock_guard<std::mutex> lock(state_->mu);
      log.urgent = true;
      state_->urgent = true;
      state_->urgent_all = state_->urgent_all || jobs;
      state_->wake.notify_all();
    }
    return none;
  }
  Result<std::optional<int64_t>> CommitAndWaitForCompaction() override { return Commit(); }
  void Abort() override {
    records_.clear();
    encoder_.Reset();
    bytes_ = 0;
    if (direct_) DropDirect();
  }

 private:
  // A statement too large to hold until its end (StatementBytes: a bulk COPY, a large INSERT
  // ... SELECT) writes through the table's shared writer as its rows come, holding it until
  // the statement ends (other writes into the table wait, as they wait for a tiering), so its
  // rows are held as the writer holds any (flushed or spilled within its bounds). At its end
  // the writer is committed, the log's pending entries with it, as one tiering (its commit
  // identifier a sequence number of its own, no log entry): the statement is acknowledged by
  // that commit. A failure gives the writer back holding exactly what the log holds.
  Status GoDirect() {
    TRIB_ASSIGN_OR_RETURN(TableWriters::Lease lease, state_->Lease(id_));
    direct_.emplace(std::move(lease));
    TableLog& log = state_->LogOf(id_);
    Status st = state_->Initialize(&*direct_, &log);
    // What the log holds goes first, so while the statement holds the writer nothing of the
    // table is pending: reads, barriers and tiering rounds pass it by instead of waiting.
    if (st.ok()) st = state_->Tier(&*direct_, &log);
    if (st.ok()) st = state_->EnsureHolds(&*direct_, &log);
    if (st.ok() && direct_->table().schema()->id != schema_id_) {
      st = Status::Conflict("table " + id_.ToString() +
                            " changed its schema while the statement ran: nothing of it was "
                            "written; run it again");
    }
    for (auto it = records_.begin(); st.ok() && it != records_.end(); ++it) {
      st = direct_->writer().Write(it->first, std::move(it->second));
      direct_rows_++;
    }
    records_.clear();
    records_.shrink_to_fit();
    encoder_.Reset();
    if (!st.ok()) DropDirect();
    return st;
  }

  Status WriteDirect(RowKind kind, Row&& row) {
    Status st = direct_->writer().Write(kind, std::move(row));
    if (!st.ok()) {
      DropDirect();
      return st;
    }
    direct_rows_++;
    return Status::OK();
  }

  Result<std::optional<int64_t>> CommitDirect() {
    TableLog& log = state_->LogOf(id_);
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (log.entries_pending == 0) log.oldest_pending_ms = NowMillis();
      log.entries_pending++;  // the statement, committed with the entries before it
      log.rows_pending += direct_rows_;
    }
    log.last_seq++;  // its commit identifier: a sequence number no entry has
    // (The directory of the committed marker, with the table's incarnation.)
    Status st = WriteIncarnation(direct_->table().path(), log.dir);
    if (st.ok()) st = state_->Tier(&*direct_, &log);
    if (!st.ok()) {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (log.entries_pending > 0) {  // (not committed: the writer holds the log's entries only)
        log.entries_pending--;
        log.rows_pending = std::max<int64_t>(0, log.rows_pending - direct_rows_);
      }
    }
    direct_.reset();
    direct_rows_ = 0;
    if (!st.ok()) return st;
    return std::optional<int64_t>();
  }

  // The writer given back holding what the log holds (nothing of the statement).
  void DropDirect() {
    TableLog& log = state_->LogOf(id_);
    if (Status rebuilt = state_->Rebuild(&*direct_, &log); !rebuilt.ok()) direct_->Discard();
    direct_.reset();
    direct_rows_ = 0;
  }

  HotTier::State* state_;
  Identifier id_;
  std::vector<Field> fields_;
  int64_t schema_id_;
  EntryEncoder encoder_;
  Records records_;
  int64_t bytes_ = 0;                          // what records_ take (RowBytes)
  std::optional<TableWriters::Lease> direct_;  // GoDirect's hold of the shared writer
  int64_t direct_rows_ = 0;
};

}  // namespace

Status HotTier::State::Recover() {
  std::error_code ec;
  for (const auto& db : fs::directory_iterator(dir, ec)) {
    if (!db.is_directory()) continue;
    for (const auto& t : fs::directory_iterator(db.path(), ec)) {
      if (!t.is_directory() || LogFiles(t.path().string()).empty()) continue;
      const Identifier id(db.path().filename().string(), t.path().filename().string());
      bool exists = false;
      {
        std::lock_guard<std::mutex> lock(catalog_mu);
        TRIB_ASSIGN_OR_RETURN(exists, catalog->TableExists(id));
      }
      if (exists) {
        std::lock_guard<std::mutex> lock(catalog_mu);
        TRIB_ASSIGN_OR_RETURN(auto table, catalog->GetTable(id));
        auto now = meta::TableIncarnation(table->path());
        const auto written = ReadIncarnation(t.path().string());
        exists = !written || (now.ok() && *now == *written);
      }
      if (!exists) {
        Log("hot tier: table " + id.database + "." + id.table +
            " no longer exists (or was created again); its log is removed");
        fs::remove_all(t.path(), ec);
        continue;
      }
      TableLog& log = LogOf(id);
      TRIB_ASSIGN_OR_RETURN(TableWriters::Lease lease, Lease(id));
      TRIB_ASSIGN_OR_RETURN(log.committed_seq, LastTieredSequence(lease.table().path()));
      log.committed_seq = std::max(log.committed_seq, ReadCommitted(log.dir));
      log.initialized = true;
      int64_t entries = 0, rows = 0;
      for (const std::string& file : LogFiles(log.dir)) {
        TRIB_ASSIGN_OR_RETURN(auto read, ReadEntries(file));
        for (const LogEntry& e : read) {
          log.last_seq = std::max(log.last_seq, e.seq);
          if (e.seq <= log.committed_seq) continue;
          TRIB_ASSIGN_OR_RETURN(Records records,
                                DecodeRecords(e, file, lease.table().schema()->fields));
          entries++;
          rows += static_cast<int64_t>(records.size());
        }
      }
      log.last_seq = std::max(log.last_seq, log.committed_seq);
      {
        std::lock_guard<std::mutex> lock(mu);
        log.entries_pending = entries;
        log.rows_pending = rows;
      }
      TRIB_RETURN_NOT_OK(Rebuild(&lease, &log));
      TRIB_RETURN_NOT_OK(Tier(&lease, &log));
      for (const std::string& file : LogFiles(log.dir)) ::unlink(file.c_str());
      Log("hot tier: " + id.database + "." + id.table + ": replayed " + std::to_string(entries) +
          " log entries (" + std::to_string(rows) + " rows) the lake did not have");
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<HotTier>> HotTier::Open(const std::string& dir,
                                               const std::string& warehouse) {
  if (Status made = io::LocalFs().MakeDirs(dir); !made.ok()) {
    return made.WithContext("--data-dir '" + dir + "'");
  }
  std::unique_ptr<HotTier> tier(new HotTier());
  tier->state_ = std::make_unique<State>();
  State& s = *tier->state_;
  // One server per data directory: a second one would replay and remove the first's logs.
  const std::string lock_path = (fs::path(dir) / "LOCK").string();
  s.lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (s.lock_fd < 0) {
    return Status::IOError("--data-dir '" + dir + "': " + std::strerror(errno));
  }
  if (::flock(s.lock_fd, LOCK_EX | LOCK_NB) != 0) {
    return Status::Invalid("--data-dir '" + dir +
                           "' is in use by another tributary serve (one server per data "
                           "directory)");
  }
  s.dir = dir;
  s.warehouse = warehouse;
  TRIB_ASSIGN_OR_RETURN(s.catalog, Catalog::Open(warehouse));
  TRIB_RETURN_NOT_OK(s.Recover());
  return tier;
}

HotTier::~HotTier() { Stop(); }

bool HotTier::Takes(const Table& table) {
  const auto& options = table.schema()->options;
  auto engine = options.find("merge-engine");
  if (engine != options.end() && engine->second == "aggregation") return false;
  for (const auto& [key, value] : options) {
    if (key == "fields.default-aggregate-function") return false;
    if (key.rfind("fields.", 0) == 0 && key.size() > 26 &&
        key.compare(key.size() - 19, 19, ".aggregate-function") == 0) {
      return false;
    }
  }
  return true;
}

std::unique_ptr<TableWriter> HotTier::NewStatementWriter(const Table& table) {
  return std::make_unique<StatementWriter>(state_.get(), table.identifier(), *table.schema());
}

Status HotTier::TierAll() { return state_->TierAll(); }

namespace {
// Whether reads of the table merge a bucket's level-0 files as they are (so pending files can
// join them): not with deletion vectors (batch reads leave level 0 out), nor where the commit
// numbers the rows (row tracking, data evolution).
bool UnionReadable(const TableSchema& schema) {
  return !options::GetOrDefault(schema, options::kDeletionVectorsEnabled) &&
         !options::GetOrDefault(schema, options::kRowTrackingEnabled) &&
         !options::GetOrDefault(schema, options::kDataEvolutionEnabled);
}
}  // namespace

uint64_t HotTier::PendingVersion(const Identifier& id) const {
  std::lock_guard<std::mutex> lock(state_->mu);
  const TableLog* log = state_->FindLog(id);
  return log == nullptr || log->entries_pending == 0 ? 0 : log->version;
}

Result<std::optional<read::PendingView>> HotTier::Pending(const Identifier& id) {
  State& s = *state_;
  std::optional<read::PendingView> none;
  TableLog* log = nullptr;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    log = s.FindLog(id);
    if (log == nullptr || log->entries_pending == 0) return none;
  }
  // The lease keeps tiering out: the files and the snapshot are taken together.
  TRIB_ASSIGN_OR_RETURN(TableWriters::Lease lease, s.Lease(id));
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (log->entries_pending == 0) return none;  // tiered meanwhile
  }
  if (!UnionReadable(*lease.table().schema())) {
    TRIB_RETURN_NOT_OK(s.Tier(&lease, log));
    return none;
  }
  const std::string name = "reading the hot tier of " + id.database + "." + id.table;
  TRIB_RETURN_NOT_OK(s.EnsureHolds(&lease, log).WithContext(name));
  read::PendingView view;
  if (Status flushed = lease.writer().FlushPending(&view.files); !flushed.ok()) {
    Status rebuilt = s.Rebuild(&lease, log);  // (a writer that failed holds nothing usable)
    if (!rebuilt.ok()) lease.Discard();
    return flushed.WithContext(name);
  }
  TRIB_ASSIGN_OR_RETURN(view.snapshot_id, meta::SnapshotManager(lease.table().path()).LatestId());
  std::lock_guard<std::mutex> lock(s.mu);
  view.version = log->version;
  return std::optional<read::PendingView>(std::move(view));
}

Status HotTier::Settle(const Identifier& id) { return state_->Settle(id); }

void HotTier::Start(std::chrono::milliseconds interval) {
  State* s = state_.get();
  {
    std::lock_guard<std::mutex> lock(s->mu);
    s->interval_ms = interval.count();
  }
  // Tables may ask for other intervals ('table.datalake.freshness'): the thread looks often.
  const auto tick = std::min<std::chrono::milliseconds>(interval, std::chrono::milliseconds(100));
  s->thread = std::thread([s, tick] {
    std::unique_lock<std::mutex> lock(s->mu);
    while (!s->stopping) {
      s->wake.wait_for(lock, tick, [s] { return s->stopping || s->urgent; });
      if (s->stopping) break;
      const bool all = s->urgent_all;
      s->urgent = s->urgent_all = false;
      lock.unlock();
      // (A table a large statement holds has nothing pending: it tiered first. So a round
      // waits for a writer only while a statement applies or a read flushes: briefly.)
      Status st = s->TierAll(/*due_only=*/!all);
      if (!st.ok()) Log("hot tier: " + st.message() + " (tried again in the next round)");
      lock.lock();
    }
  });
}

void HotTier::Stop() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  if (state_->thread.joinable()) state_->thread.join();
}

HotTier::Stats HotTier::stats() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  Stats out;
  for (const auto& [name, log] : state_->logs) {
    out.entries_pending += log->entries_pending;
    out.rows_pending += log->rows_pending;
  }
  out.tierings = state_->tierings;
  out.last_error = state_->last_error;
  return out;
}

}  // namespace tributary::server
