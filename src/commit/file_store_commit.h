// FileStoreCommit: publishes written files as snapshots (PAIMON_FORMAT.md 1.8). Writes the delta
// manifest, the manifest lists and snapshot-N, which is created only if absent; when another
// writer won the id, it re-reads the latest snapshot, re-checks conflicts and retries.
// Thread-safety: single-threaded; several processes may commit to one table at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "tributary/schema.h"

namespace tributary::commit {

// The files one writer produced for one partition and bucket.
struct CommitMessage {
  std::string partition;  // serialized BinaryRow
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  std::vector<meta::DataFileMeta> new_files;       // level-0 files from flushes
  std::vector<meta::DataFileMeta> compact_before;  // files a compaction replaced
  std::vector<meta::DataFileMeta> compact_after;   // the files it wrote
  // Changelog files of the new files ('changelog-producer' = 'input'): published with them, in
  // the APPEND snapshot's changelog manifest list.
  std::vector<meta::DataFileMeta> changelog_files;
  // Changelog files of the compaction ('changelog-producer' = 'full-compaction'): published in
  // the COMPACT snapshot's changelog manifest list.
  std::vector<meta::DataFileMeta> compact_changelog_files;
  // Deletion-vector tables: the bucket's vectors after its compaction (the entry of a new index
  // file), published with the COMPACT snapshot in place of the bucket's live one, as Paimon's
  // index manifest keeps one deletion-vector file per bucket...
  std::optional<meta::IndexManifestEntry> compact_vectors;
  // ...and what that compaction saw of the bucket: the live index file it started from ("" for
  // none) and the bucket's files above level 0. A deletion vector marks rows of files the
  // compaction did not rewrite, so another writer's compaction of the bucket in between (either
  // changed) would be undone: the COMPACT snapshot is dropped instead, as for gone inputs.
  struct CompactBase {
    std::string vectors_file;
    std::vector<std::string> upper_files;  // sorted
  };
  std::optional<CompactBase> compact_base;
};

// Rewrites a message's new files with every sequence number raised by `shift`, returning the
// new files' metas (the writer owns the files; it deletes the old ones).
using RenumberFn =
    std::function<Result<std::vector<meta::DataFileMeta>>(const CommitMessage& m, int64_t shift)>;

struct CommitRequest {
  std::vector<CommitMessage> messages;
  // Set by writers of primary-key tables. When a concurrent commit already published sequence
  // numbers at or above this writer's in the same bucket, the new files are renumbered above
  // them, so the later commit wins as it should, and that bucket's compaction (computed on a
  // stale view) is dropped.
  RenumberFn renumber;
  // Index files added or replaced by this commit (dynamic-bucket HASH indexes): published in a
  // new index manifest with the APPEND snapshot. Without changes, the latest one carries over.
  std::vector<meta::IndexManifestEntry> index_changes;
  // OVERWRITE: live files of the partitions `overwrite_filter` accepts are deleted first.
  bool overwrite = false;
  std::function<bool(const std::string& partition)> overwrite_filter;
  // Checked against the live files each time the commit is attempted: an error ends the commit
  // with nothing published (an OVERWRITE that must replace exactly the files it read).
  std::function<Status(const std::vector<meta::ManifestEntry>& live)> precondition;
};

struct CommitResult {
  std::optional<int64_t> last_snapshot;   // nullopt when there was nothing to commit
  std::optional<int64_t> first_snapshot;  // the first this commit published
  int64_t snapshots = 0;                  // how many it published (APPEND, COMPACT)
  // The compaction lost a race (its input files are gone): nothing of it was published and the
  // caller must delete its output files. The data stays correct.
  bool compaction_dropped = false;
  // Names of compaction output files (and deletion-vector index files) that were not published
  // (their buckets were renumbered).
  std::vector<std::string> dropped_compact_files;
  // The index manifest the last published snapshot lists (dynamic-bucket HASH index files).
  std::optional<std::string> index_manifest;
};

// What a snapshot changes in the index manifest: `changes` applied by file name, except that a
// DELETION_VECTORS ADD replaces the entry of its (partition, bucket); `drop_vectors` (an
// overwrite) drops the deletion-vector entries of the partitions it accepts.
struct IndexUpdate {
  const std::vector<meta::IndexManifestEntry>* changes = nullptr;
  std::function<bool(const std::string& partition)> drop_vectors;
  bool empty() const { return (!changes || changes->empty()) && !drop_vectors; }
};

class FileStoreCommit {
 public:
  FileStoreCommit(std::string table_path, std::shared_ptr<const TableSchema> schema,
                  std::string commit_user);

  // Publishes the new files (APPEND or OVERWRITE snapshot), then the compaction results (COMPACT
  // snapshot).
  Result<CommitResult> Commit(const CommitRequest& request);

  // Commits only into the table `incarnation` (meta::TableIncarnation, read when the writer
  // opened it): a table dropped, or dropped and created again, since then fails the commit
  // with nothing published.
  void RequireIncarnation(std::string incarnation) { incarnation_ = std::move(incarnation); }
  // Every snapshot this commit publishes carries `identifier` (Paimon's commitIdentifier) and
  // `properties`.
  void SetSnapshotInfo(int64_t identifier, std::map<std::string, std::string> properties) {
    commit_identifier_ = identifier;
    properties_ = std::move(properties);
  }
  // The process commits to the table again (a long-lived writer's later commits): read the
  // latest live files whole and keep the new snapshot's in the cache, so the next commit applies
  // its delta to them instead of reading manifests (a commit otherwise reads only the partitions
  // it writes unless the whole list is cached).
  void KeepLiveFilesWhole() { keep_whole_ = true; }

 private:
  Status CheckIncarnation() const;
  using EntryBuilder = std::function<Result<std::vector<meta::ManifestEntry>>(
      const std::vector<meta::ManifestEntry>& live, const meta::Snapshot* latest)>;
  // One snapshot, retried on conflict. `build` gets the latest live entries and returns the delta.
  // `changelog`: the snapshot's changelog files (its changelog manifest list).
  // `scope`: the partitions `build` looks at (null: every one). Unless this process has the
  // latest snapshot's live entries cached, `build` then gets those partitions' entries alone,
  // read without merging the others' (a commit into a few partitions of thousands: issue 38).
  Result<int64_t> CommitOnce(meta::CommitKind kind, const EntryBuilder& build,
                             const IndexUpdate& index = IndexUpdate(),
                             const std::vector<meta::ManifestEntry>* changelog = nullptr,
                             const std::set<std::string>* scope = nullptr);
  // The index manifest with `update` applied to the snapshot's current one.
  Result<std::string> WriteIndexManifest(const meta::Snapshot* latest, const IndexUpdate& update,
                                         std::vector<std::string>* written);
  // The entries of the APPEND/OVERWRITE snapshot against the latest live files (renumbers new
  // files into `req` when a concurrent commit reached their sequence numbers).
  Result<std::vector<meta::ManifestEntry>> AppendDelta(CommitRequest* req,
                                                       const std::vector<meta::ManifestEntry>& live,
                                                       CommitResult* result);
  // The entries of the COMPACT snapshot; sets *conflict (and returns nothing) when its input
  // files are gone or its output would overlap a level's run.
  Result<std::vector<meta::ManifestEntry>> CompactDelta(
      const CommitRequest& req, const std::vector<meta::ManifestEntry>& live,
      const meta::Snapshot* latest, bool* conflict) const;
  std::string PartitionName(const std::string& partition) const;
  Result<meta::ManifestFileMeta> WriteManifest(const std::vector<meta::ManifestEntry>& entries,
                                               std::vector<std::string>* written);

  std::string table_path_;
  std::shared_ptr<const TableSchema> schema_;
  std::string commit_user_;
  std::string codec_;
  int max_retries_;  // 'commit.max-retries': attempts after the first
  std::vector<DataType> partition_types_;
  std::optional<std::string>
      committed_index_manifest_;  // of the last snapshot CommitOnce published
  std::optional<std::string> incarnation_;
  bool keep_whole_ = false;
  std::optional<int64_t> commit_identifier_;
  std::map<std::string, std::string> properties_;
};

}  // namespace tributary::commit
