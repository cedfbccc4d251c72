// The hot tier of `tributary serve` (issue 39 parts 3 and 4, docs/server.md): a plain write
// (INSERT, UPDATE, DELETE, COPY FROM) into a table of the server's warehouse is acknowledged
// once its rows are in the table's log on local disk (`--data-dir`), fsynced, and applied to the
// table's shared writer (server/table_writers.h); tiering commits what the logs hold into the
// lake as ordinary Paimon snapshots, every interval, before any other statement (the read
// barrier: a later statement on any connection sees every acknowledged write), and at a clean
// stop. A snapshot made by tiering carries the sequence number of the last log entry it holds
// as its commit identifier (commit user `tributary-serve`), so after a crash the server replays
// the entries the lake does not have yet, exactly once, before it accepts a connection.
// The log: one file per table and tiering round, `<data-dir>/<database>/<table>/<first
// sequence>.log`, of entries (a statement's rows: an Arrow IPC stream of the table's columns and
// the row kind, column-wise as Fluss logs are; server/hot_tier_log.h), each framed with its
// sequence number, the schema id it was written with, its length and a CRC-32.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "tributary/result.h"

namespace tributary {
class Catalog;
class Table;
class TableWriter;
struct Identifier;
}  // namespace tributary
namespace tributary::read {
struct PendingView;
}  // namespace tributary::read

namespace tributary::server {

// The commit user of the snapshots tiering publishes.
inline constexpr const char* kHotTierCommitUser = "tributary-serve";

class HotTier {
 public:
  // The hot tier in `dir` (created if missing) over `warehouse`: what its logs hold and the lake
  // does not is written and committed first (recovery); an error names the file.
  static Result<std::unique_ptr<HotTier>> Open(const std::string& dir,
                                               const std::string& warehouse);
  ~HotTier();

  // Whether `table`'s writes go through the hot tier. Not those whose merge can fail at the
  // commit (the aggregation engine, aggregate functions of partial-update columns: a sum
  // overflowing its type): an acknowledged write must be one the lake can take, so their
  // statements commit to the lake directly, as without the hot tier.
  static bool Takes(const Table& table);

  // A writer for one statement's rows into `table` (lent to the SQL session, or used by COPY
  // FROM): Write buffers them; Commit applies them to the table's shared writer and appends them
  // to its log, fsynced, as one entry (then they are acknowledged); Abort drops them.
  std::unique_ptr<TableWriter> NewStatementWriter(const Table& table);

  // Commits every table's log into the lake (the read barrier, a tiering round, the stop).
  Status TierAll();

  // Union reads (read/pending.h): a query sees the lake's latest snapshot plus what a table's log
  // holds past it, flushed by the table's shared writer into level-0 files that are not
  // committed (tiering commits those same files). PendingVersion: a number that changes with
  // each entry logged and each tiering of the table, 0 while nothing is pending. Pending: those
  // files and the snapshot they go on top of (nullopt: nothing pending); a table whose reads
  // leave level-0 files out (deletion vectors) or number rows at the commit (row tracking,
  // data evolution) is tiered instead. Settle: the table's log tiered now (a read of committed
  // snapshots only: streams, system tables, a snapshot pinned by id).
  uint64_t PendingVersion(const Identifier& id) const;
  Result<std::optional<read::PendingView>> Pending(const Identifier& id);
  Status Settle(const Identifier& id);
  // Tiering every `interval` on a thread of its own, until Stop.
  void Start(std::chrono::milliseconds interval);
  void Stop();

  // For SHOW STATS: log entries and rows not tiered yet, tiering rounds that committed, and
  // the last error of a round (empty if none).
  struct Stats {
    int64_t entries_pending = 0;
    int64_t rows_pending = 0;
    int64_t tierings = 0;
    std::string last_error;
  };
  Stats stats() const;

  struct State;

 private:
  HotTier() = default;
  std::unique_ptr<State> state_;
};

}  // namespace tributary::server
