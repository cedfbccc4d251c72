// Snapshot: one committed version of a table (`snapshot/snapshot-N`), and SnapshotManager, which
// finds, reads and atomically publishes them (PAIMON_FORMAT.md 1.3, 1.8).
// Snapshots are immutable once published; share them as shared_ptr<const Snapshot>.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary::meta {

enum class CommitKind { kAppend, kCompact, kOverwrite, kAnalyze };
const char* CommitKindName(CommitKind k);

struct Snapshot {
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string base_manifest_list;
  int64_t base_manifest_list_size = 0;
  std::string delta_manifest_list;
  int64_t delta_manifest_list_size = 0;
  std::optional<std::string> changelog_manifest_list;
  std::optional<int64_t> changelog_manifest_list_size;
  std::optional<std::string> index_manifest;
  std::string commit_user;
  int64_t commit_identifier = 9223372036854775807LL;
  CommitKind commit_kind = CommitKind::kAppend;
  int64_t time_millis = 0;
  std::optional<int64_t> total_record_count;
  std::optional<int64_t> delta_record_count;
  std::optional<int64_t> changelog_record_count;
  std::optional<int64_t> watermark;
  std::optional<int64_t> next_row_id;
  // Paimon's `properties` (left out when empty): what the committer recorded beside the files,
  // e.g. a streaming job's source positions (docs/streaming.md).
  std::map<std::string, std::string> properties;
};

std::string SnapshotToJson(const Snapshot& s);
Result<Snapshot> SnapshotFromJson(std::string_view json, const std::string& what);

class SnapshotManager {
 public:
  explicit SnapshotManager(std::string table_path) : table_path_(std::move(table_path)) {}

  // The latest snapshot id: the LATEST hint if `snapshot-(hint+1)` does not exist, else the
  // highest id found by listing. nullopt for a table without snapshots.
  Result<std::optional<int64_t>> LatestId() const;
  // The latest snapshot itself (null for a table without snapshots): LatestId and Read; on
  // object storage the remembered one while it is still the latest (ReadLatestSnapshotCached).
  Result<std::shared_ptr<const Snapshot>> Latest() const;
  // LatestId's fast path alone: the LATEST hint when no snapshot follows it (without checking
  // that the hinted snapshot exists: the caller reads it); nullopt when that does not hold.
  Result<std::optional<int64_t>> HintedLatestId() const;
  // What the LATEST hint says (nullopt when it is missing or unreadable), unchecked.
  std::optional<int64_t> LatestHint() const;
  Result<std::optional<int64_t>> EarliestId() const;
  Result<std::shared_ptr<const Snapshot>> Read(int64_t id) const;
  // Every snapshot id present, ascending.
  Result<std::vector<int64_t>> ListIds() const;
  // Publishes snapshot-<s.id> only if absent (create-if-absent). Returns false when another
  // writer already published that id. Updates the LATEST/EARLIEST hints (best effort).
  Result<bool> TryCommit(const Snapshot& s) const;

 private:
  std::string table_path_;
};

// Snapshots this process published (TryCommit), for its readers that wait for a table's next
// one (streaming reads polling at their default interval): they are woken when one is published
// instead of at their next look. Readers in other processes poll as before.
// A table's generation: how many snapshots of `table_path` this process has published.
uint64_t PublishedGeneration(const std::string& table_path);
// Returns once the table's generation is no longer `seen`, or at `deadline`.
void WaitForPublished(const std::string& table_path, uint64_t seen,
                      std::chrono::steady_clock::time_point deadline);

// A reader of this process that follows a table's snapshots as they come (a streaming read),
// for as long as it lives: a writer that chooses when to commit (the server's hot tier) commits
// a followed table's writes at once rather than at its interval.
class FollowingTable {
 public:
  explicit FollowingTable(std::string table_path);
  ~FollowingTable();
  FollowingTable(const FollowingTable&) = delete;
  FollowingTable& operator=(const FollowingTable&) = delete;

 private:
  std::string table_path_;
};
// Whether a reader of this process follows the table now.
bool IsFollowed(const std::string& table_path);

// Long-lived changelogs (Paimon's ChangelogManager): when the 'changelog.*' retention outlives
// the snapshots', an expired snapshot's JSON is kept as changelog/changelog-<id>, with its
// changelog (and, without a producer, the data files it added) until the changelog expires
// (its path: meta::LongLivedChangelogPath in paths.h).
// Every long-lived changelog id present, ascending.
Result<std::vector<int64_t>> ListLongLivedChangelogIds(const std::string& table_path);
Result<std::shared_ptr<const Snapshot>> ReadLongLivedChangelog(const std::string& table_path,
                                                               int64_t id);
// Writes changelog-<s.id> (replacing one a crashed expiration left) and the LATEST hint.
Status WriteLongLivedChangelog(const std::string& table_path, const Snapshot& s);
// Snapshot `id`, or the long-lived changelog of that id when the snapshot expired.
Result<std::shared_ptr<const Snapshot>> ReadSnapshotOrChangelog(const std::string& table_path,
                                                                int64_t id);

}  // namespace tributary::meta
