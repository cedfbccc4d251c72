// Table maintenance from C++: what the SQL procedures (CALL sys.compact, sys.expire_snapshots,
// sys.expire_changelogs, sys.expire_partitions, sys.maintain_partitions, sys.remove_orphan_files,
// sys.create_tag, sys.delete_tag, sys.create_branch, sys.delete_branch, sys.fast_forward,
// sys.rollback_to, sys.rescale) do, with
// the same semantics (Paimon's) and the same refusals; the procedures call these. Each takes a
// table a Catalog opened (Catalog::GetTable) and leaves it consistent whatever fails: a call that
// fails changes nothing, or (expiration, orphan removal) only what was finished before the failure,
// which a later call completes. The operations whose length grows with the table (compaction,
// rescale, orphan removal) report progress through a callback; the others are bounded
// (expiration removes at most 'snapshot.expire.limit' snapshots per call).
// Thread-safety: safe to call from several threads and processes at once on one table (as the
// procedures are); each call works on the table's latest state.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {

class Table;

// What an expiration removed.
struct ExpireSnapshotsResult {
  int64_t snapshots = 0;        // snapshot files removed
  int64_t changelogs_kept = 0;  // of them, kept as long-lived changelogs
  int64_t data_files = 0;
  int64_t changelog_files = 0;
  int64_t manifest_files = 0;  // manifests, manifest lists and index manifests
  int64_t index_files = 0;
};

// Overrides of the table's retention options ('snapshot.num-retained.min', '.max',
// 'snapshot.time-retained' as an absolute time, 'snapshot.expire.limit'); unset: the table's.
struct ExpireSnapshotsOptions {
  std::optional<int64_t> retain_min;
  std::optional<int64_t> retain_max;
  std::optional<int64_t> older_than_millis;  // epoch milliseconds
  std::optional<int64_t> max_deletes;
};

// Snapshots the retention no longer keeps go, oldest first, with the files only they used
// (Paimon's ExpireSnapshots); what a consumer or a tag still reads stays.
Result<ExpireSnapshotsResult> ExpireSnapshots(Table& table,
                                              const ExpireSnapshotsOptions& options = {});
// Overrides of the table's 'changelog.num-retained.min', '.max', 'changelog.time-retained' (as
// an absolute time) and 'snapshot.expire.limit'; `delete_all`: every long-lived changelog goes.
struct ExpireChangelogsOptions {
  std::optional<int64_t> retain_min;
  std::optional<int64_t> retain_max;
  std::optional<int64_t> older_than_millis;  // epoch milliseconds
  std::optional<int64_t> max_deletes;
  bool delete_all = false;
};
// Long-lived changelogs the retention no longer keeps go (Paimon's expire_changelogs), with the
// files only they used. Returns how many went.
Result<int64_t> ExpireChangelogs(Table& table, const ExpireChangelogsOptions& options = {});

struct OrphanFilesResult {
  int64_t files = 0;  // removed (dry run: that would be)
  int64_t bytes = 0;
  std::vector<std::string> paths;  // relative to the table's folder, sorted
};
// Files in the table's folders that no snapshot, tag, branch or long-lived changelog uses and
// that are older than `older_than_millis` (epoch milliseconds) are removed; with `dry_run` only
// found.
// `progress`, if set, is called after each data folder (bucket) is listed with (folders listed,
// folders in all): the long part on a table of many partitions and buckets.
Result<OrphanFilesResult> RemoveOrphanFiles(
    Table& table, int64_t older_than_millis, bool dry_run = false,
    std::function<void(int64_t done, int64_t total)> progress = {});

// Tag `name` of snapshot `snapshot_id` (the latest when unset); returns the snapshot tagged.
// AlreadyExists; NotFound for a snapshot that no longer exists; Invalid for a table without
// snapshots.
Result<int64_t> CreateTag(Table& table, const std::string& name,
                          std::optional<int64_t> snapshot_id = std::nullopt);
// Removes tags; every name is checked first (NotFound naming the tags there are), so a failing
// call removes none.
Status DeleteTags(Table& table, const std::vector<std::string>& names);
// The table's tags, sorted.
Result<std::vector<std::string>> ListTags(Table& table);

// Branch `name` of the table: empty with the table's schema, or at tag `from_tag`.
Status CreateBranch(Table& table, const std::string& name,
                    const std::optional<std::string>& from_tag = std::nullopt);
// Removes branches (their data files are left to RemoveOrphanFiles, as in Paimon). Every name is
// checked first (NotFound naming the branches there are; the branch the table reads as its
// 'scan.fallback-branch' is refused), so a failing call removes none.
Status DeleteBranches(Table& table, const std::vector<std::string>& names);
// The table (main, or the branch `table` is) becomes branch `name`. Returns its latest snapshot
// id afterwards.
Result<int64_t> FastForward(Table& table, const std::string& name);

struct RollbackResult {
  int64_t previous_snapshot = 0;  // the latest before
  int64_t current_snapshot = 0;   // the latest now
  int64_t snapshots_removed = 0;
  int64_t tags_removed = 0;
};
// Back to snapshot `snapshot_id`, or to tag `tag`'s snapshot (exactly one of them): later
// snapshots, long-lived changelogs and tags go; their files are left to RemoveOrphanFiles.
Result<RollbackResult> RollbackTo(Table& table, std::optional<int64_t> snapshot_id,
                                  const std::string& tag = "");

struct RescaleOptions {
  int32_t buckets = 1;  // the new bucket count, at least 1
  // Partition column -> value of each partition to rescale (every partition column given);
  // none: every partition.
  std::vector<std::map<std::string, std::string>> partitions;
  // Threads that read the rows and that write them (Paimon's scan_parallelism and
  // sink_parallelism); 0: every core.
  int scan_threads = 0;
  int sink_threads = 0;
  // Called with the number of rows written so far, every 100,000 rows, if set.
  std::function<void(int64_t rows)> progress;
};
struct RescaleResult {
  std::optional<int64_t> snapshot;  // the snapshot that rescaled; none when there were no rows
  std::vector<std::string> warnings;
};
// A fixed-bucket table's rows (in the partitions named, or all) written again into
// `options.buckets` buckets by one OVERWRITE, retried while other writers commit meanwhile
// (nothing changes if it gives up); later writes to a rescaled partition use its new count
// (Paimon's sys.rescale). Invalid for a dynamic-bucket table.
Result<RescaleResult> Rescale(Table& table, const RescaleOptions& options);

struct CompactOptions {
  // Partition column -> value of each partition to compact (every partition column given, or a
  // leading part of them); none: every partition.
  std::vector<std::map<std::string, std::string>> partitions;
  // Full compaction: called as each bucket starts and at the end with (buckets done, buckets in
  // all), if set.
  std::function<void(int64_t done, int64_t total)> progress;
  // Sort compaction (Paimon's order_strategy / order_by): 'order', 'zorder' or 'hilbert' and the
  // columns; empty: a full compaction of each bucket (merging its files into one sorted run).
  std::string sort_strategy;
  std::vector<std::string> sort_columns;
  // Bytes of rows sorted at once; 0: the default of the session option 'sql.sort.memory-limit'.
  // More rows are sorted in runs of that size spilled to `spill_dirs` and merged.
  int64_t sort_memory_limit = 0;
  // Where spill files go (the session's 'io.tmp.dirs'; empty: $TMPDIR, else /tmp): a sort
  // compaction's runs, and the merges of buckets holding more sorted runs than
  // 'sort-spill-threshold'.
  std::vector<std::string> spill_dirs;
  // Sort compaction: called with a line of progress every 100,000 rows, if set.
  std::function<void(const std::string& line)> sort_progress;
};
struct CompactResult {
  std::optional<int64_t> snapshot;  // the compaction's; none when there was nothing to compact
  // What did not stop the compaction (it stands): a failed expiration of old snapshots after it.
  std::vector<std::string> warnings;
};
// Compacts the table's buckets (Paimon's sys.compact): a full compaction of every bucket in the
// partitions named; or, with a sort strategy, the rows of an append table rewritten in that
// order by one OVERWRITE (retried while other writers commit meanwhile; nothing changes if it
// gives up). Invalid for a sort strategy other than the three, or columns the table lacks.
Result<CompactResult> Compact(Table& table, const CompactOptions& options = {});

// Overrides of the table's partition expiration options (each as the option of that name takes
// it: 'partition.expiration-time', 'partition.timestamp-formatter',
// 'partition.timestamp-pattern', 'partition.expiration-strategy',
// 'partition.expiration-max-num'); unset: the table's.
struct ExpirePartitionsOptions {
  std::optional<std::string> expiration_time;  // e.g. "1 d"
  std::optional<std::string> timestamp_formatter;
  std::optional<std::string> timestamp_pattern;
  std::optional<std::string> strategy;  // values-time, update-time
  std::optional<int64_t> max_expires;
  std::optional<int64_t> now_millis;  // epoch milliseconds; unset: now
};
// Drops the partitions expired as of now (Paimon's sys.expire_partitions) in one commit and
// returns their names ('k=v/k2=v2'), oldest first. Invalid when no expiration time is set (by
// the options or the table) or an option is malformed (the error names it).
Result<std::vector<std::string>> ExpirePartitions(Table& table,
                                                  const ExpirePartitionsOptions& options = {});
// Creates the partitions ahead and drops the expired ones of a table with automatic partitions
// ('table.auto-partition.enabled', Fluss's), as of `now_millis` (unset: now); says what it did
// ("" when nothing). Invalid for a table without automatic partitions.
Result<std::string> MaintainAutoPartitions(Table& table,
                                           std::optional<int64_t> now_millis = std::nullopt);

}  // namespace tributary
