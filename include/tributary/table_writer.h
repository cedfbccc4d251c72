// TableWriter: writes rows with their row kinds into a table and commits them atomically.
// Rows are routed to partition and bucket, buffered, merged per key, flushed to level-0 files and
// published by Commit() as one snapshot. Nothing is visible to readers before Commit().
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::meta {
struct ManifestEntry;
}  // namespace tributary::meta

namespace tributary {

class TableWriter {
 public:
  virtual ~TableWriter() = default;

  // `row` holds every column of the table schema, in order. Checks types and NOT NULL.
  virtual Status Write(RowKind kind, const Row& row) = 0;
  // The same, taking the row's values (no copy of its strings into the write buffer).
  virtual Status Write(RowKind kind, Row&& row) {
    return Write(kind, static_cast<const Row&>(row));
  }

  // Publishes everything written since the last commit as one snapshot (two when compaction ran:
  // APPEND then COMPACT). Returns the id of the last snapshot, or nullopt if nothing was written.
  // On error nothing is published and the writer must be discarded.
  virtual Result<std::optional<int64_t>> Commit() = 0;

  // Commit() that also waits for the compactions running in the background
  // (WriteOptions::async_compaction), then compacts what the picker picks next, and publishes
  // both: what the end of a bounded ingest does (Paimon's prepareCommit(waitCompaction)), leaving
  // the table as compacted as a writer that compacts at every commit.
  virtual Result<std::optional<int64_t>> CommitAndWaitForCompaction() { return Commit(); }

  // The snapshots the next Commit() publishes carry `identifier` (Paimon's commitIdentifier,
  // increasing per commit user) and `properties` (Paimon's snapshot properties): a streaming
  // job records there, atomically with its rows, how far it has read its sources.
  virtual void SetNextCommitInfo(int64_t identifier,
                                 std::map<std::string, std::string> properties) {
    (void)identifier;
    (void)properties;
  }

  // Drops everything written since the last commit and deletes its files.
  virtual void Abort() = 0;

  // Flushes what the writer buffers to level-0 data files, not committed, and appends an ADD
  // entry for each data file written since the last commit to *files: what a reader merges on
  // top of the latest snapshot to see the writes before they are committed (read/pending.h).
  // The next Commit() publishes those same files. On error the writer must be discarded.
  virtual Status FlushPending(std::vector<meta::ManifestEntry>* files) {
    (void)files;
    return Status::NotSupported("this writer cannot show its writes before they are committed");
  }

  // What failed after the last Commit() had published its snapshot: the work that follows a
  // commit (compacting small files, a full compaction, expiring old snapshots), which the next
  // commit tries again. The commit stands, so these are warnings for the caller to show, never
  // the commit's error. Cleared by each Commit().
  virtual std::vector<std::string> warnings() const { return {}; }
};

}  // namespace tributary
