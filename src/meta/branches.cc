#include "meta/branches.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <set>

#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/tags.h"

namespace tributary::meta {

namespace {

Status RenameDir(const std::string& from, const std::string& to, const std::string& what) {
  Status st = io::LocalFs().RenameDir(from, to);
  return st.ok() ? st : st.WithContext("cannot " + what);
}

// Copies the files of `from` whose names start with `prefix` into `to` (replacing).
Status CopyFiles(const std::string& from, const std::string& to, const std::string& prefix,
                 std::vector<std::string>* copied = nullptr) {
  auto entries = io::LocalFs().ListDir(from);
  if (!entries.ok()) return entries.status().IsNotFound() ? Status::OK() : entries.status();
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(to));
  for (const auto& e : *entries) {
    if (e.is_dir || e.name.rfind(prefix, 0) != 0) continue;
    TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(io::JoinPath(from, e.name)));
    TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(io::JoinPath(to, e.name), bytes));
    if (copied) copied->push_back(e.name);
  }
  return Status::OK();
}

Status NoSuchBranch(const std::string& table_path, const std::string& name) {
  TRIB_ASSIGN_OR_RETURN(auto branches, ListBranches(table_path));
  std::string list;
  for (const auto& b : branches) list += (list.empty() ? "" : ", ") + b;
  return Status::NotFound(
      "branch '" + name + "' does not exist (" +
      (branches.empty() ? std::string("the table has no branches") : "branches: " + list) + ")");
}

}  // namespace

Result<std::vector<std::string>> ListBranches(const std::string& table_path) {
  auto entries = io::LocalFs().ListDir(BranchDir(table_path));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<std::string>{};
    return entries.status();
  }
  std::vector<std::string> names;
  for (const auto& e : *entries) {
    if (!e.is_dir || e.name.rfind(kBranchNamePrefix, 0) != 0) continue;
    // A folder without schemas is no branch (a lock file a writer of a deleted branch left).
    TRIB_ASSIGN_OR_RETURN(
        bool has_schema,
        io::LocalFs().Exists(SchemaDir(io::JoinPath(BranchDir(table_path), e.name))));
    if (has_schema) names.push_back(e.name.substr(std::strlen(kBranchNamePrefix)));
  }
  std::sort(names.begin(), names.end());
  return names;
}

namespace {
Result<bool> BranchExists(const std::string& table_path, const std::string& name) {
  return io::LocalFs().Exists(SchemaDir(BranchPath(table_path, name)));
}
}  // namespace

Result<int64_t> BranchCreateTime(const std::string& table_path, const std::string& name) {
  TRIB_ASSIGN_OR_RETURN(auto entries, io::LocalFs().ListDir(BranchDir(table_path)));
  for (const auto& e : entries) {
    if (e.is_dir && e.name == kBranchNamePrefix + name) return e.mtime_millis;
  }
  return NoSuchBranch(table_path, name);
}

Status CreateBranch(const std::string& table_path, const std::string& name,
                    const std::optional<std::string>& tag) {
  TRIB_RETURN_NOT_OK(CheckBranchName(name));
  // Created beside the table's other branches; its schemas and tag from `table_path`'s.
  const std::string root = DataRoot(table_path);
  const std::string target = BranchPath(root, name);
  TRIB_ASSIGN_OR_RETURN(bool exists, BranchExists(root, name));
  if (exists) return Status::AlreadyExists("branch '" + name + "' already exists");
  // What a writer of a deleted branch of this name left (a lock file) goes first.
  TRIB_RETURN_NOT_OK(io::LocalFs().RemoveAll(target));
  SchemaManager schemas(table_path);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> last_schema, schemas.LatestId());
  if (!last_schema) return Status::NotFound("table '" + table_path + "' does not exist");
  std::shared_ptr<const Snapshot> snapshot;
  if (tag) {
    TRIB_ASSIGN_OR_RETURN(snapshot, ReadTag(table_path, *tag));
    last_schema = snapshot->schema_id;
  }
  // Built aside, then renamed into place.
  const std::string building = io::JoinPath(BranchDir(root), ".building-" + name + "-" + NewUuid());
  Status st = [&]() -> Status {
    for (int64_t id = 0; id <= *last_schema; id++) {
      auto bytes = io::LocalFs().ReadFile(SchemaPath(table_path, id));
      if (!bytes.ok()) {
        if (bytes.status().IsNotFound()) continue;  // ids need not be dense
        return bytes.status();
      }
      TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(SchemaDir(building)));
      TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(SchemaPath(building, id), *bytes));
    }
    if (snapshot) {
      // The tag, and its snapshot as main has it (from the tag when main's expired).
      TRIB_ASSIGN_OR_RETURN(std::string tag_bytes,
                            io::LocalFs().ReadFile(TagPath(table_path, *tag)));
      TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(TagDir(building)));
      TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(TagPath(building, *tag), tag_bytes));
      auto bytes = io::LocalFs().ReadFile(SnapshotPath(table_path, snapshot->id));
      std::string snapshot_bytes;
      if (bytes.ok()) {
        snapshot_bytes = std::move(*bytes);
      } else if (bytes.status().IsNotFound()) {
        snapshot_bytes = SnapshotToJson(*snapshot);
      } else {
        return bytes.status();
      }
      TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(SnapshotDir(building)));
      TRIB_RETURN_NOT_OK(
          io::LocalFs().WriteFile(SnapshotPath(building, snapshot->id), snapshot_bytes));
    }
    return RenameDir(building, target, "create branch '" + name + "'");
  }();
  if (!st.ok()) {
    (void)io::LocalFs().RemoveAll(building);
    TRIB_ASSIGN_OR_RETURN(bool now, io::LocalFs().Exists(target));
    if (now) return Status::AlreadyExists("branch '" + name + "' already exists");
  }
  return st;
}

Status DeleteBranch(const std::string& table_path, const std::string& name) {
  TRIB_RETURN_NOT_OK(CheckBranchName(name));
  const std::string path = BranchPath(table_path, name);
  TRIB_ASSIGN_OR_RETURN(bool exists, BranchExists(table_path, name));
  if (!exists) return NoSuchBranch(table_path, name);
  // Taken away whole first, as DROP TABLE does.
  const std::string tomb =
      io::JoinPath(BranchDir(table_path), ".deleted-" + name + "-" + NewUuid());
  TRIB_RETURN_NOT_OK(RenameDir(path, tomb, "delete branch '" + name + "'"));
  return io::LocalFs().RemoveAll(tomb);
}

Status RenameBranch(const std::string& table_path, const std::string& from, const std::string& to) {
  TRIB_RETURN_NOT_OK(CheckBranchName(from));
  TRIB_RETURN_NOT_OK(CheckBranchName(to));
  TRIB_ASSIGN_OR_RETURN(bool exists, BranchExists(table_path, from));
  if (!exists) return NoSuchBranch(table_path, from);
  TRIB_ASSIGN_OR_RETURN(bool taken, BranchExists(table_path, to));
  if (taken) return Status::AlreadyExists("branch '" + to + "' already exists");
  // What a writer of a deleted branch of that name left (a lock file) goes first.
  TRIB_RETURN_NOT_OK(io::LocalFs().RemoveAll(BranchPath(table_path, to)));
  return RenameDir(BranchPath(table_path, from), BranchPath(table_path, to),
                   "rename branch '" + from + "'");
}

Result<int64_t> FastForward(const std::string& table_path, const std::string& name,
                            const std::string& target) {
  TRIB_RETURN_NOT_OK(CheckBranchName(name));
  const std::string branch = BranchPath(table_path, name);
  TRIB_ASSIGN_OR_RETURN(bool exists, BranchExists(table_path, name));
  if (!exists) return NoSuchBranch(table_path, name);
  if (target == branch) {
    return Status::Invalid("branch '" + name + "' cannot be fast-forwarded to itself");
  }
  SnapshotManager branch_snapshots(branch);
  TRIB_ASSIGN_OR_RETURN(auto branch_ids, branch_snapshots.ListIds());
  if (branch_ids.empty()) {
    return Status::Invalid("branch '" + name + "' has no snapshot to fast-forward to");
  }
  const int64_t earliest = branch_ids.front();
  TRIB_ASSIGN_OR_RETURN(auto first, branch_snapshots.Read(earliest));
  const int64_t first_schema = first->schema_id;
  // The target's snapshots before the branch's first one (and tags of them) stay and read their
  // schemas: the branch's schemas of those ids, copied over the target's, must be the same files
  // (they are when the branch was made from the target; not always when it was made from
  // another branch).
  std::set<int64_t> kept_schemas;
  {
    SnapshotManager target_snapshots(target);
    TRIB_ASSIGN_OR_RETURN(auto ids, target_snapshots.ListIds());
    for (int64_t id : ids) {
      if (id >= earliest) break;
      TRIB_ASSIGN_OR_RETURN(auto s, target_snapshots.Read(id));
      kept_schemas.insert(s->schema_id);
    }
    TRIB_ASSIGN_OR_RETURN(auto tag_names, ListTags(target));
    for (const auto& t : tag_names) {
      TRIB_ASSIGN_OR_RETURN(auto s, ReadTag(target, t));
      if (s->id < earliest) kept_schemas.insert(s->schema_id);
    }
  }
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> branch_latest_schema,
                        SchemaManager(branch).LatestId());
  for (int64_t id : kept_schemas) {
    auto mine = io::LocalFs().ReadFile(SchemaPath(target, id));
    auto theirs = io::LocalFs().ReadFile(SchemaPath(branch, id));
    for (const auto* r : {&mine, &theirs}) {
      if (!r->ok() && !r->status().IsNotFound()) return r->status();
    }
    // Replaced by a different file, or removed below (the target's schemas after the branch's
    // latest, from the branch's first snapshot's on): either way the kept snapshots lose it.
    const bool replaced = mine.ok() && theirs.ok() && *mine != *theirs;
    const bool removed =
        mine.ok() && !theirs.ok() && id >= first_schema && id > branch_latest_schema.value_or(-1);
    if (replaced || removed) {
      return Status::Invalid("branch '" + name +
                             "' was not made from the branch it would "
                             "replace: its schema " +
                             std::to_string(id) + " " + (replaced ? "differs" : "is missing") +
                             ", and snapshots kept there read it");
    }
  }
  // The target's tags of the snapshots that go, those snapshots (newest first, so the target is
  // always a prefix of its history) and its long-lived changelogs of them. No schema a remaining
  // snapshot uses is removed: the branch's copies of the target's schemas are its own.
  TRIB_ASSIGN_OR_RETURN(auto tags, ListTags(target));
  for (const auto& t : tags) {
    TRIB_ASSIGN_OR_RETURN(auto s, ReadTag(target, t));
    if (s->id >= earliest) TRIB_RETURN_NOT_OK(DeleteTag(target, t));
  }
  for (const std::string& hint :
       {LatestHintPath(SnapshotDir(target)), EarliestHintPath(SnapshotDir(target))}) {
    Status st = io::LocalFs().Remove(hint);
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  SnapshotManager target_snapshots(target);
  TRIB_ASSIGN_OR_RETURN(auto target_ids, target_snapshots.ListIds());
  for (auto it = target_ids.rbegin(); it != target_ids.rend() && *it >= earliest; ++it) {
    Status st = io::LocalFs().Remove(SnapshotPath(target, *it));
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  TRIB_ASSIGN_OR_RETURN(auto changelogs, ListLongLivedChangelogIds(target));
  for (auto it = changelogs.rbegin(); it != changelogs.rend() && *it >= earliest; ++it) {
    Status st = io::LocalFs().Remove(LongLivedChangelogPath(target, *it));
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  // The branch's schemas (replacing the target's of the same ids, which no remaining snapshot
  // uses beyond the branch's first one), the target's later ones removed, then the branch's
  // snapshots oldest first, then its tags.
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> target_schema, SchemaManager(target).LatestId());
  const std::optional<int64_t>& branch_schema = branch_latest_schema;
  TRIB_RETURN_NOT_OK(CopyFiles(SchemaDir(branch), SchemaDir(target), kSchemaPrefix));
  for (int64_t id = target_schema.value_or(-1);
       id > branch_schema.value_or(-1) && id >= first_schema; id--) {
    Status st = io::LocalFs().Remove(SchemaPath(target, id));
    if (!st.ok() && !st.IsNotFound()) return st;
  }
  for (int64_t id : branch_ids) {
    TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(SnapshotPath(branch, id)));
    TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(SnapshotPath(target, id), bytes));
  }
  TRIB_RETURN_NOT_OK(CopyFiles(TagDir(branch), TagDir(target), kTagPrefix));
  (void)io::WriteHintFile(LatestHintPath(SnapshotDir(target)), std::to_string(branch_ids.back()));
  return branch_ids.back();
}

}  // namespace tributary::meta
