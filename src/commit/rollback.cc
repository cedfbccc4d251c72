#include "commit/rollback.h"

#include <memory>

#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "meta/tags.h"

namespace tributary::commit {

Result<RollbackResult> RollbackTo(const std::string& table_path, std::optional<int64_t> snapshot_id,
                                  const std::string& tag) {
  meta::SnapshotManager snapshots(table_path);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return Status::Invalid("the table has no snapshot: nothing to roll back");
  // The snapshot to go back to, and whether it still exists as a snapshot.
  std::shared_ptr<const meta::Snapshot> target;
  std::string via_tag = tag;
  if (via_tag.empty()) {
    auto s = snapshots.Read(*snapshot_id);
    if (s.ok()) {
      target = *s;
    } else if (s.status().IsNotFound()) {
      TRIB_ASSIGN_OR_RETURN(auto tags, meta::ListTags(table_path));
      for (const auto& name : tags) {
        TRIB_ASSIGN_OR_RETURN(auto t, meta::ReadTag(table_path, name));
        if (t->id == *snapshot_id) {
          via_tag = name;
          break;
        }
      }
      if (via_tag.empty()) {
        return Status::NotFound("snapshot " + std::to_string(*snapshot_id) +
                                " does not exist (expired, or never committed) and no tag "
                                "holds it");
      }
    } else {
      return s.status();
    }
  }
  if (!target) {
    TRIB_ASSIGN_OR_RETURN(target, meta::ReadTag(table_path, via_tag));
  }
  const int64_t id = target->id;
  if (id > *latest) {
    return Status::Invalid("snapshot " + std::to_string(id) + " is newer than the latest one (" +
                           std::to_string(*latest) + ")");
  }
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().FileExists(meta::SnapshotPath(table_path, id)));
  RollbackResult r;
  r.previous_snapshot = *latest;
  r.current_snapshot = id;
  const std::string dir = meta::SnapshotDir(table_path);
  if (!exists) {
    // The tag's snapshot had expired: it becomes a snapshot again first (older than every
    // snapshot present, so the earliest), so that no moment leaves the table without one.
    TRIB_RETURN_NOT_OK(
        io::LocalFs().WriteFile(meta::SnapshotPath(table_path, id), meta::SnapshotToJson(*target)));
    TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(meta::EarliestHintPath(dir), std::to_string(id)));
  }
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(meta::LatestHintPath(dir), std::to_string(id)));
  // Newest first: at every moment the snapshots present are a prefix of the old ones.
  TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
  for (auto it = ids.rbegin(); it != ids.rend() && *it > id; ++it) {
    TRIB_RETURN_NOT_OK(io::LocalFs().Remove(meta::SnapshotPath(table_path, *it)));
    r.snapshots_removed++;
  }
  TRIB_ASSIGN_OR_RETURN(auto changelogs, meta::ListLongLivedChangelogIds(table_path));
  for (auto it = changelogs.rbegin(); it != changelogs.rend() && *it > id; ++it) {
    TRIB_RETURN_NOT_OK(io::LocalFs().Remove(meta::LongLivedChangelogPath(table_path, *it)));
  }
  TRIB_ASSIGN_OR_RETURN(auto tags, meta::ListTags(table_path));
  for (const auto& name : tags) {
    TRIB_ASSIGN_OR_RETURN(auto t, meta::ReadTag(table_path, name));
    if (t->id > id) {
      TRIB_RETURN_NOT_OK(meta::DeleteTag(table_path, name));
      r.tags_removed++;
    }
  }
  return r;
}

}  // namespace tributary::commit
