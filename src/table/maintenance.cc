// include/tributary/maintenance.h: table maintenance below SQL, over the commit/ and meta/
// operations that do the work.
#include "tributary/maintenance.h"

#include <algorithm>
#include <chrono>

#include "commit/orphan_files.h"
#include "commit/rollback.h"
#include "commit/snapshot_expire.h"
#include "common/clock.h"
#include "common/datetime.h"
#include "meta/branches.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/tags.h"
#include "options/option_keys.h"
#include "options/option_values.h"
#include "table/auto_partition.h"
#include "table/partition_expire.h"
#include "table/rescale.h"
#include "table/sort_compact.h"
#include "tributary/options.h"
#include "tributary/schema.h"
#include "tributary/table.h"

namespace tributary {

namespace {

std::string NothingDeleted(const std::string& what, const std::string& name,
                           const std::vector<std::string>& existing) {
  std::string list;
  for (const auto& e : existing) list += (list.empty() ? "" : ", ") + e;
  const std::string plural = what + (what == "branch" ? "es" : "s");
  return what + " '" + name + "' does not exist (" +
         (existing.empty() ? "the table has no " + plural : plural + ": " + list) +
         "); nothing was deleted";
}

}  // namespace

Result<ExpireSnapshotsResult> ExpireSnapshots(Table& table, const ExpireSnapshotsOptions& options) {
  TRIB_ASSIGN_OR_RETURN(commit::ExpireOptions o, commit::ExpireOptions::From(*table.schema()));
  if (options.retain_max) o.retain_max = *options.retain_max;
  if (options.retain_min) o.retain_min = *options.retain_min;
  if (options.max_deletes) o.max_deletes = *options.max_deletes;
  if (options.older_than_millis) o.older_than_millis = options.older_than_millis;
  TRIB_ASSIGN_OR_RETURN(commit::ExpireResult r,
                        commit::ExpireSnapshots(table.path(), *table.schema(), o));
  ExpireSnapshotsResult out;
  out.snapshots = r.snapshots;
  out.changelogs_kept = r.changelogs_kept;
  out.data_files = r.data_files;
  out.changelog_files = r.changelog_files;
  out.manifest_files = r.manifest_files;
  out.index_files = r.index_files;
  return out;
}

Result<int64_t> ExpireChangelogs(Table& table, const ExpireChangelogsOptions& options) {
  TRIB_ASSIGN_OR_RETURN(commit::ExpireOptions o, commit::ExpireOptions::From(*table.schema()));
  if (options.retain_max) o.changelog_retain_max = *options.retain_max;
  if (options.retain_min) o.changelog_retain_min = *options.retain_min;
  if (options.max_deletes) o.max_deletes = *options.max_deletes;
  if (options.older_than_millis) o.changelog_older_than_millis = options.older_than_millis;
  if (options.delete_all) {
    o.changelog_retain_min = o.changelog_retain_max = 1;
    o.changelog_older_than_millis = INT64_MAX;
    o.max_deletes = INT32_MAX;
  }
  return commit::ExpireChangelogs(table.path(), *table.schema(), o);
}

Result<OrphanFilesResult> RemoveOrphanFiles(Table& table, int64_t older_than_millis, bool dry_run,
                                            std::function<void(int64_t, int64_t)> progress) {
  TRIB_ASSIGN_OR_RETURN(
      commit::OrphanFilesResult r,
      commit::RemoveOrphanFiles(table.path(), older_than_millis, dry_run, progress));
  OrphanFilesResult out;
  out.files = r.files;
  out.bytes = r.bytes;
  out.paths = std::move(r.paths);
  return out;
}

Result<int64_t> CreateTag(Table& table, const std::string& name,
                          std::optional<int64_t> snapshot_id) {
  meta::SnapshotManager snapshots(table.path());
  if (!snapshot_id) {
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
    if (!latest) {
      return Status::Invalid("table " + table.identifier().ToString() + " has no snapshot to tag");
    }
    snapshot_id = latest;
  }
  auto snap = snapshots.Read(*snapshot_id);
  if (!snap.ok()) {
    if (!snap.status().IsNotFound()) return snap.status();
    return Status::NotFound("snapshot " + std::to_string(*snapshot_id) + " of " +
                            table.identifier().ToString() +
                            " does not exist (expired, or not yet committed)");
  }
  // Paimon writes the tag's creation time as a local date-time ('2024-01-01T10:00:00.123').
  const int64_t now_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  std::string now = FormatTimestamp(Timestamp{now_millis, 0});
  if (now.size() > 10) now[10] = 'T';
  TRIB_RETURN_NOT_OK(meta::CreateTag(table.path(), name, **snap, now));
  return *snapshot_id;
}

Status DeleteTags(Table& table, const std::vector<std::string>& names) {
  TRIB_ASSIGN_OR_RETURN(std::vector<std::string> existing, meta::ListTags(table.path()));
  for (const auto& name : names) {
    if (std::find(existing.begin(), existing.end(), name) == existing.end()) {
      return Status::NotFound(NothingDeleted("tag", name, existing));
    }
  }
  for (const auto& name : names) TRIB_RETURN_NOT_OK(meta::DeleteTag(table.path(), name));
  return Status::OK();
}

Result<std::vector<std::string>> ListTags(Table& table) { return meta::ListTags(table.path()); }

Status CreateBranch(Table& table, const std::string& name,
                    const std::optional<std::string>& from_tag) {
  return meta::CreateBranch(table.path(), name, from_tag);
}

Status DeleteBranches(Table& table, const std::vector<std::string>& names) {
  const std::string main = meta::DataRoot(table.path());
  // A branch carries main's options as they were when it was made: main's own say which branch
  // it falls back to.
  TRIB_ASSIGN_OR_RETURN(auto main_schema, meta::SchemaManager(main).Latest());
  const auto fallback = options::IsSet(*main_schema, options::kScanFallbackBranch);
  TRIB_ASSIGN_OR_RETURN(std::vector<std::string> existing, meta::ListBranches(main));
  for (const auto& name : names) {
    if (fallback && *fallback == name) {
      return Status::Invalid("branch '" + name +
                             "' is the table's 'scan.fallback-branch'; reset that option first "
                             "(nothing was deleted)");
    }
    TRIB_RETURN_NOT_OK(meta::CheckBranchName(name));
    if (std::find(existing.begin(), existing.end(), name) == existing.end()) {
      return Status::NotFound(NothingDeleted("branch", name, existing));
    }
  }
  for (const auto& name : names) TRIB_RETURN_NOT_OK(meta::DeleteBranch(main, name));
  return Status::OK();
}

Result<int64_t> FastForward(Table& table, const std::string& name) {
  return meta::FastForward(meta::DataRoot(table.path()), name, table.path());
}

Result<RollbackResult> RollbackTo(Table& table, std::optional<int64_t> snapshot_id,
                                  const std::string& tag) {
  TRIB_ASSIGN_OR_RETURN(commit::RollbackResult r,
                        commit::RollbackTo(table.path(), snapshot_id, tag));
  RollbackResult out;
  out.previous_snapshot = r.previous_snapshot;
  out.current_snapshot = r.current_snapshot;
  out.snapshots_removed = r.snapshots_removed;
  out.tags_removed = r.tags_removed;
  return out;
}

Result<RescaleResult> Rescale(Table& table, const RescaleOptions& options) {
  const auto schema = table.schema();
  TRIB_ASSIGN_OR_RETURN(const int64_t current, options::Get(*schema, options::kBucket));
  if (current <= 0) {
    return Status::Invalid("rescale rewrites fixed-bucket tables; " +
                           table.identifier().ToString() +
                           " has 'bucket' = " + std::to_string(current));
  }
  if (options.buckets < 1) {
    return Status::Invalid("the new bucket count must be at least 1, not " +
                           std::to_string(options.buckets));
  }
  for (const auto& spec : options.partitions) {
    for (const auto& [k, v] : spec) {
      if (std::find(schema->partition_keys.begin(), schema->partition_keys.end(), k) ==
          schema->partition_keys.end()) {
        return Status::Invalid("'" + k + "' is not a partition column of " +
                               table.identifier().ToString());
      }
    }
    if (spec.size() != schema->partition_keys.size()) {
      return Status::Invalid("a partition to rescale needs a value for every partition column");
    }
  }
  table::RescaleRequest request;
  request.buckets = options.buckets;
  request.partitions = options.partitions;
  request.scan_threads = options.scan_threads;
  request.sink_threads = options.sink_threads;
  request.progress = options.progress;
  TRIB_ASSIGN_OR_RETURN(table::RewriteResult r, table::Rescale(table, request));
  RescaleResult out;
  out.snapshot = r.snapshot;
  out.warnings = std::move(r.warnings);
  return out;
}

Result<CompactResult> Compact(Table& table, const CompactOptions& options) {
  CompactResult out;
  if (!options.sort_strategy.empty() || !options.sort_columns.empty()) {
    if (options.sort_strategy.empty() || options.sort_strategy == "none") {
      return Status::Invalid("order_by needs order_strategy ('order', 'zorder' or 'hilbert')");
    }
    table::SortCompactRequest request;
    request.strategy = options.sort_strategy;
    request.columns = options.sort_columns;
    request.partitions = options.partitions;
    request.memory_limit = options.sort_memory_limit;
    request.spill_dirs = options.spill_dirs;
    if (request.memory_limit == 0) {
      const OptionDef* def = FindOption(OptionScope::kSession, "sql.sort.memory-limit");
      TRIB_ASSIGN_OR_RETURN(request.memory_limit, options::ParseMemorySize(def->default_value));
    }
    request.progress = options.sort_progress;
    TRIB_ASSIGN_OR_RETURN(table::RewriteResult r, table::SortCompact(table, request));
    out.snapshot = r.snapshot;
    out.warnings = std::move(r.warnings);
    return out;
  }
  TRIB_ASSIGN_OR_RETURN(out.snapshot, table.CompactFull(options.progress, options.partitions,
                                                        &out.warnings, options.spill_dirs));
  return out;
}

namespace {
int64_t NowMillis() { return WallClockMillis(); }
}  // namespace

Result<std::vector<std::string>> ExpirePartitions(Table& table,
                                                  const ExpirePartitionsOptions& options) {
  // The options stand for the table's of the same meaning.
  TableSchema schema = *table.schema();
  auto set = [&](const std::optional<std::string>& v, const char* key) {
    if (v) schema.options[key] = *v;
  };
  set(options.expiration_time, "partition.expiration-time");
  set(options.timestamp_formatter, "partition.timestamp-formatter");
  set(options.timestamp_pattern, "partition.timestamp-pattern");
  if (options.strategy) {
    if (*options.strategy != "values-time" && *options.strategy != "update-time") {
      return Status::Invalid("expire_strategy '" + *options.strategy +
                             "' is not 'values-time' or 'update-time'");
    }
    schema.options["partition.expiration-strategy"] = *options.strategy;
  }
  if (options.max_expires) {
    if (*options.max_expires < 1) {
      return Status::Invalid("max_expires '" + std::to_string(*options.max_expires) +
                             "' is not a positive integer");
    }
    schema.options["partition.expiration-max-num"] = std::to_string(*options.max_expires);
  }
  TRIB_ASSIGN_OR_RETURN(auto rule, table::PartitionExpireRuleOf(schema));
  if (!rule) {
    return Status::Invalid(
        "partitions expire after an expiration time, and none is set: give expiration_time or "
        "set the table's 'partition.expiration-time'");
  }
  return table::ExpirePartitions(table, *rule, options.now_millis.value_or(NowMillis()));
}

Result<std::string> MaintainAutoPartitions(Table& table, std::optional<int64_t> now_millis) {
  TRIB_ASSIGN_OR_RETURN(auto rule, table::AutoPartitionRuleOf(*table.schema()));
  if (!rule) {
    return Status::Invalid(table.identifier().ToString() +
                           " has no automatic partitions "
                           "('table.auto-partition.enabled' is not true)");
  }
  return table::MaintainAutoPartitions(table, now_millis.value_or(NowMillis()));
}

}  // namespace tributary
