// Branches, as Paimon's FileSystemBranchManager keeps them: `<table>/branch/branch-<name>` holds
// the branch's own schema/, snapshot/ and tag/ folders (a table path of its own: meta/paths.h
// IsBranchPath), while its manifests and data files live in the table's folders beside main's.
// A branch starts empty with main's schemas, or at a tag of main (the tag, its snapshot and the
// schemas up to the snapshot's copied). Fast-forward makes main's history the branch's.
// Thread-safety: stateless functions over the file system.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/path_names.h"
#include "tributary/result.h"

namespace tributary::meta {

// A branch name (common/path_names.h).
using ::tributary::CheckBranchName;
// The names of the table's branches, sorted (main not among them).
Result<std::vector<std::string>> ListBranches(const std::string& table_path);
// When the branch was created (its folder's modification time, as Paimon's $branches shows it),
// milliseconds since the epoch.
Result<int64_t> BranchCreateTime(const std::string& table_path, const std::string& name);
// Creates branch `name` of the table at `table_path` (main's folder, or a branch's: the new
// branch goes beside the table's others, from that branch's schemas and tag): empty with the
// schemas, or at the tag `tag`. Built in a hidden folder and renamed into place, so a branch is
// there whole or not at all. AlreadyExists when it exists.
Status CreateBranch(const std::string& table_path, const std::string& name,
                    const std::optional<std::string>& tag);
// Removes branch `name` (its folder: snapshots, schemas, tags; the data files it alone used are
// left to CALL sys.remove_orphan_files, as in Paimon). NotFound naming the branches.
Status DeleteBranch(const std::string& table_path, const std::string& name);
// Renames branch `from` to `to` (Paimon 2.0's rename_branch): one rename of its folder.
Status RenameBranch(const std::string& table_path, const std::string& from, const std::string& to);
// `target` (main: the table's folder; or another branch's folder, as Paimon's fast_forward
// called on a branch) becomes branch `name`: the target's snapshots from the branch's earliest
// one on, its schemas from that snapshot's schema on and its tags of those snapshots are
// removed, then the branch's schemas, snapshots and tags are copied into it (schemas first,
// snapshots in id order, so a crash leaves the target at a prefix of the branch's history).
// Fails when the branch has no snapshot or is the target. Returns the id of the target's latest
// snapshot afterwards.
Result<int64_t> FastForward(const std::string& table_path, const std::string& name,
                            const std::string& target);

}  // namespace tributary::meta
