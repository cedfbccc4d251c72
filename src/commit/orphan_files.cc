#include "commit/orphan_files.h"

#include <algorithm>
#include <set>

#include "io/file_system.h"
#include "meta/branches.h"
#include "meta/external_paths.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "meta/tags.h"

namespace tributary::commit {

Result<bool> CollectUsedFiles(const std::string& table_path, const meta::Snapshot& s,
                              std::set<std::string>* used) {
  std::vector<std::string> lists = {s.base_manifest_list, s.delta_manifest_list};
  if (s.changelog_manifest_list) lists.push_back(*s.changelog_manifest_list);
  for (const auto& list : lists) {
    if (list.empty()) continue;
    used->insert(list);
    auto metas = meta::ReadManifestList(table_path, list);
    if (!metas.ok()) {
      if (metas.status().IsNotFound()) return false;
      return metas.status();
    }
    for (const auto& m : *metas) {
      used->insert(m.file_name);
      auto entries = meta::ReadManifest(table_path, m.file_name);
      if (!entries.ok()) {
        if (entries.status().IsNotFound()) return false;
        return entries.status();
      }
      for (const auto& e : *entries) {
        used->insert(e.file.file_name);
        for (const auto& extra : e.file.extra_files) used->insert(extra);
      }
    }
  }
  if (s.index_manifest) {
    used->insert(*s.index_manifest);
    const std::string path = meta::ManifestPath(table_path, *s.index_manifest);
    auto bytes = io::LocalFs().ReadFile(path);
    if (!bytes.ok()) {
      if (bytes.status().IsNotFound()) return false;
      return bytes.status();
    }
    TRIB_ASSIGN_OR_RETURN(auto entries, meta::DecodeIndexManifest(std::move(*bytes),
                                                                  "index manifest '" + path + "'"));
    for (const auto& e : entries) used->insert(e.file_name);
  }
  return true;
}

namespace {

struct Candidate {
  std::string relative;  // to the table directory (or, for an external root's file, absolute)
  int64_t size = 0;
  bool absolute = false;
};

// Files in `dir` (relative `rel`) older than the cut-off that `keep` does not keep.
template <typename Keep>
Status ListOld(const std::string& table_path, const std::string& rel, int64_t older_than, Keep keep,
               std::vector<Candidate>* out) {
  auto entries = io::LocalFs().ListDir(io::JoinPath(table_path, rel));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return Status::OK();
    return entries.status();
  }
  for (const auto& e : *entries) {
    if (e.is_dir || e.mtime_millis >= older_than || keep(e.name)) continue;
    out->push_back({io::JoinPath(rel, e.name), e.size});
  }
  return Status::OK();
}

// Bucket directories under `rel` (the table directory, or a partition directory within it).
Status ListDataDirs(const std::string& table_path, const std::string& rel, int depth,
                    std::vector<std::string>* buckets) {
  const std::vector<std::string>& meta_folders = meta::MetadataFolders();
  TRIB_ASSIGN_OR_RETURN(
      auto entries,
      io::LocalFs().ListDir(rel.empty() ? table_path : io::JoinPath(table_path, rel)));
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    if (depth == 0 &&
        std::find(meta_folders.begin(), meta_folders.end(), e.name) != meta_folders.end()) {
      continue;
    }
    const std::string child = rel.empty() ? e.name : io::JoinPath(rel, e.name);
    if (e.name.rfind(meta::kBucketPrefix, 0) == 0) {
      buckets->push_back(child);
    } else if (e.name.find('=') != std::string::npos && depth < 64) {
      TRIB_RETURN_NOT_OK(ListDataDirs(table_path, child, depth + 1, buckets));
    }
  }
  return Status::OK();
}

}  // namespace

Status CollectTableUsedFiles(const std::string& table_path, std::set<std::string>* used_out) {
  std::set<std::string>& used = *used_out;
  // Snapshots committed while this runs are read too: the listing repeats until it finds none it
  // has not read (a newer snapshot may carry files of one that expired meanwhile).
  meta::SnapshotManager snapshots(table_path);
  std::set<int64_t> read;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
    bool fresh = false;
    for (int64_t id : ids) {
      if (!read.insert(id).second) continue;
      fresh = true;
      auto s = snapshots.Read(id);
      if (!s.ok()) {
        if (s.status().IsNotFound()) continue;  // expired meanwhile
        return s.status();
      }
      TRIB_RETURN_NOT_OK(CollectUsedFiles(table_path, **s, &used).status());
    }
    if (!fresh) break;
  }
  TRIB_ASSIGN_OR_RETURN(auto tags, meta::ListTags(table_path));
  for (const auto& tag : tags) {
    auto s = meta::ReadTag(table_path, tag);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;  // deleted meanwhile
      return s.status();
    }
    TRIB_ASSIGN_OR_RETURN(bool complete, CollectUsedFiles(table_path, **s, &used));
    if (!complete) {
      // Part of what the tag lists is gone: what it still holds cannot all be known.
      return Status::Corruption("tag '" + tag +
                                "' lists files that are gone; nothing was "
                                "removed");
    }
  }
  // Changelogs kept beyond their snapshots (Paimon's changelog/changelog-<id>, same JSON).
  const std::string changelog_dir = meta::ChangelogDir(table_path);
  if (auto entries = io::LocalFs().ListDir(changelog_dir); entries.ok()) {
    for (const auto& e : *entries) {
      if (e.is_dir || e.name.rfind(meta::kChangelogPrefix, 0) != 0) continue;
      const std::string path = io::JoinPath(changelog_dir, e.name);
      auto text = io::LocalFs().ReadFile(path);
      if (!text.ok()) {
        if (text.status().IsNotFound()) continue;
        return text.status();
      }
      TRIB_ASSIGN_OR_RETURN(auto s, meta::SnapshotFromJson(*text, "changelog '" + path + "'"));
      TRIB_RETURN_NOT_OK(CollectUsedFiles(table_path, s, &used).status());
    }
  }
  return Status::OK();
}

namespace {

// What main and every branch of the table at `main` use, except `skip` (a root: main or a
// branch folder). Branches are listed again after collecting until none is new: a branch created
// from a tag that was deleted meanwhile is read then, so neither escapes.
Status CollectAllRootsUsedFiles(const std::string& main, const std::string& skip,
                                std::set<std::string>* used) {
  std::set<std::string> done;
  bool first = true;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(auto branches, meta::ListBranches(main));
    std::vector<std::string> roots;
    if (first) roots.push_back(main);
    for (const auto& b : branches) roots.push_back(meta::BranchPath(main, b));
    bool fresh = false;
    for (const auto& root : roots) {
      if (!done.insert(root).second) continue;
      fresh = true;
      if (root != skip) TRIB_RETURN_NOT_OK(CollectTableUsedFiles(root, used));
    }
    first = false;
    if (!fresh) return Status::OK();
  }
}

}  // namespace

Result<std::set<std::string>> OtherBranchesUsedFiles(const std::string& table_path) {
  std::set<std::string> used;
  const std::string main = meta::DataRoot(table_path);
  TRIB_ASSIGN_OR_RETURN(auto branches, meta::ListBranches(main));
  if (branches.empty()) return used;
  TRIB_RETURN_NOT_OK(CollectAllRootsUsedFiles(main, table_path, &used));
  return used;
}

Result<OrphanFilesResult> RemoveOrphanFiles(
    const std::string& path, int64_t older_than_millis, bool dry_run,
    const std::function<void(int64_t done, int64_t total)>& progress) {
  OrphanFilesResult result;
  // Main and every branch share the table's manifests and data files: what any of them uses
  // stays, whichever of them this is called on (Paimon's OrphanFilesClean).
  const std::string table_path = meta::DataRoot(path);
  std::set<std::string> used;
  TRIB_RETURN_NOT_OK(CollectAllRootsUsedFiles(table_path, "", &used));
  TRIB_ASSIGN_OR_RETURN(auto branches, meta::ListBranches(table_path));
  std::vector<std::string> roots = {table_path};
  for (const auto& b : branches) roots.push_back(meta::BranchPath(table_path, b));

  std::vector<Candidate> orphans;
  auto in_use = [&](const std::string& name) { return used.count(name) > 0; };
  TRIB_RETURN_NOT_OK(
      ListOld(table_path, meta::kManifestFolder, older_than_millis, in_use, &orphans));
  TRIB_RETURN_NOT_OK(ListOld(table_path, meta::kIndexFolder, older_than_millis, in_use, &orphans));
  auto metadata_file = [](const char* prefix) {
    return [prefix](const std::string& name) {
      return name.rfind(prefix, 0) == 0 || meta::IsHintFileName(name);
    };
  };
  for (const auto& root : roots) {
    // Relative to the table directory (a branch's under branch/branch-<name>/).
    const std::string rel = root == table_path ? "" : root.substr(table_path.size() + 1);
    auto in = [&](const char* folder) {
      return rel.empty() ? std::string(folder) : io::JoinPath(rel, folder);
    };
    TRIB_RETURN_NOT_OK(ListOld(table_path, in(meta::kSnapshotFolder), older_than_millis,
                               metadata_file(meta::kSnapshotPrefix), &orphans));
    TRIB_RETURN_NOT_OK(ListOld(table_path, in(meta::kChangelogFolder), older_than_millis,
                               metadata_file(meta::kChangelogPrefix), &orphans));
  }
  // The bucket directories of the table and, as Paimon's OrphanFilesClean lists them, those
  // under every root of 'data-file.external-paths' (whatever the strategy): each table needs
  // roots of its own, since another table's files there would be this one's orphans.
  std::vector<std::pair<std::string, std::string>> buckets;  // (base, relative)
  std::vector<std::string> bases = {table_path};
  TRIB_ASSIGN_OR_RETURN(auto schema, meta::SchemaManager(table_path).Latest());
  auto external = schema->options.find("data-file.external-paths");
  for (size_t at = 0; external != schema->options.end() && at <= external->second.size();) {
    size_t comma = external->second.find(',', at);
    if (comma == std::string::npos) comma = external->second.size();
    auto root = meta::NormalizeExternalRoot(external->second.substr(at, comma - at));
    at = comma + 1;
    if (root.ok()) bases.push_back(meta::ExternalPaths::LocalOf(*root));
  }
  for (const std::string& base : bases) {
    std::vector<std::string> found;
    Status listed = ListDataDirs(base, "", 0, &found);
    if (!listed.ok() && !(base != table_path && listed.IsNotFound())) return listed;
    for (auto& b : found) buckets.emplace_back(base, std::move(b));
  }
  for (size_t i = 0; i < buckets.size(); i++) {
    const auto& [base, rel] = buckets[i];
    const size_t first = orphans.size();
    TRIB_RETURN_NOT_OK(ListOld(base, rel, older_than_millis, in_use, &orphans));
    for (size_t k = first; base != table_path && k < orphans.size(); k++) {
      orphans[k].relative = io::JoinPath(base, orphans[k].relative);
      orphans[k].absolute = true;
    }
    if (progress) {
      progress(static_cast<int64_t>(i) + 1, static_cast<int64_t>(buckets.size()));
    }
  }
  std::sort(orphans.begin(), orphans.end(),
            [](const Candidate& a, const Candidate& b) { return a.relative < b.relative; });
  std::vector<std::string> batch;  // one batch (DeleteObjects on object storage)
  for (const auto& o : orphans) {
    if (!dry_run) batch.push_back(o.absolute ? o.relative : io::JoinPath(table_path, o.relative));
    result.files++;
    result.bytes += o.size;
    result.paths.push_back(o.relative);
  }
  TRIB_RETURN_NOT_OK(io::LocalFs().RemoveFiles(batch));
  return result;
}

}  // namespace tributary::commit
