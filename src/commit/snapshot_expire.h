// Snapshot expiration (Paimon's ExpireSnapshotsImpl): drops the oldest snapshots the retention
// options no longer keep, with the files only they used: data files that later snapshots deleted,
// their changelog files, manifests and manifest lists. Run after each commit of a writer (unless
// 'write-only') and by CALL sys.expire_snapshots.
//
// Which snapshots go: every snapshot beyond the newest `retain_max`; of the others, the oldest
// ones committed before `older_than_millis` (default: now - 'snapshot.time-retained'), stopping
// at the first one kept; never the newest `retain_min`; at most `max_deletes` per run.
// Order: the metadata of what goes is read first, then the snapshot files are removed oldest
// first, then the files only they used. A crash in between leaves unreferenced files (removed by
// the next expiration or CALL sys.remove_orphan_files), never a snapshot whose files are gone.
// Files a tag uses stay (its snapshot stays readable). Tables with branches are not expired
// (their snapshots share files): not supported yet.
// Thread-safety: stateless; safe beside concurrent writers (it never removes the latest
// snapshot or a file a newer snapshot lists).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::commit {

struct ExpireOptions {
  int64_t retain_min = 10;                   // 'snapshot.num-retained.min'
  int64_t retain_max = INT32_MAX;            // 'snapshot.num-retained.max'
  int64_t time_retained_ms = 3600 * 1000;    // 'snapshot.time-retained'
  int64_t max_deletes = 50;                  // 'snapshot.expire.limit'
  std::optional<int64_t> older_than_millis;  // instead of now - time_retained_ms
  // 'changelog.num-retained.min' / '.max' / 'changelog.time-retained' (default: the snapshot
  // ones). When they keep more than the snapshot options (set explicitly), the changelog
  // outlives its snapshots (Paimon's changelogLifecycleDecoupled).
  int64_t changelog_retain_min = 10;
  int64_t changelog_retain_max = INT32_MAX;
  int64_t changelog_time_retained_ms = 3600 * 1000;
  bool changelog_options_set = false;
  // The table's own options keep its changelog longer than its snapshots (set by From, so a
  // procedure's overrides of the snapshot counts do not turn it off).
  bool table_decoupled = false;
  std::optional<int64_t> changelog_older_than_millis;  // instead of now - changelog time
  bool ChangelogDecoupled() const {
    return table_decoupled ||
           (changelog_options_set &&
            (changelog_retain_max > retain_max || changelog_retain_min > retain_min ||
             changelog_time_retained_ms > time_retained_ms));
  }

  // The table's retention options.
  static Result<ExpireOptions> From(const TableSchema& schema);
};

struct ExpireResult {
  int64_t snapshots = 0;        // snapshot files removed
  int64_t changelogs_kept = 0;  // of them, kept as long-lived changelogs (changelog/)
  int64_t data_files = 0;
  int64_t changelog_files = 0;
  int64_t manifest_files = 0;  // manifests, manifest lists and index manifests
  int64_t index_files = 0;
};

Result<ExpireResult> ExpireSnapshots(const std::string& table_path, const TableSchema& schema,
                                     const ExpireOptions& options);

// Long-lived changelogs (changelog/changelog-<id>, kept by a decoupled expiration) that the
// 'changelog.*' retention no longer keeps go, with their changelog files (or, without a
// changelog producer, the data files their snapshot deleted) and the manifests only they used.
// The same rules as snapshots: counted back from the latest snapshot, never the newest
// 'changelog.num-retained.min', those beyond 'changelog.num-retained.max' always, others once
// older than 'changelog.time-retained'; what a consumer has not read stays. Returns how many
// went.
Result<int64_t> ExpireChangelogs(const std::string& table_path, const TableSchema& schema,
                                 const ExpireOptions& options);

// What a writer runs after each commit (Paimon's TableCommitImpl.expire): consumers idle longer
// than 'consumer.expiration-time' are removed first (so they no longer hold snapshots back),
// then snapshots and long-lived changelogs expire by the table's retention options. What a
// concurrent writer's expiration
// removed meanwhile is not an error.
Status ExpireAfterCommit(const std::string& table_path, const TableSchema& schema);

}  // namespace tributary::commit
