// Orphan files (Paimon's OrphanFilesClean, CALL sys.remove_orphan_files): files in a table's
// directories that no snapshot, tag or retained changelog uses, left by writers that crashed or
// failed between writing a file and committing it, or by an expiration that stopped half way.
//
// A file is an orphan when it lies in a bucket directory, manifest/ or index/ (or is a stray
// file in snapshot/ or changelog/, a temporary file say), no snapshot, tag or changelog file
// lists it (snapshots committed while the files are collected included), and it was last
// modified before `older_than_millis` (by default a day ago: younger files may belong to a commit
// in flight). Files at external paths, schemas, tags and consumers are never touched. A tag whose
// files are partly gone stops it before anything is removed.
// Thread-safety: stateless; safe beside writers for files older than any commit in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary::meta {
struct Snapshot;
}  // namespace tributary::meta

namespace tributary::commit {

struct OrphanFilesResult {
  int64_t files = 0;  // removed (or, dry run, that would be)
  int64_t bytes = 0;
  std::vector<std::string> paths;  // relative to the table directory, sorted
};

// Adds to `used` the names of every file snapshot `s` uses: manifest lists, manifests, data and
// changelog files (with their extra files), the index manifest and index files. False when a
// file it lists is gone (the snapshot expired meanwhile).
Result<bool> CollectUsedFiles(const std::string& table_path, const meta::Snapshot& s,
                              std::set<std::string>* used);

// Adds to `used` what every snapshot, tag and retained changelog of the table (or branch) at
// `table_path` uses (snapshots committed meanwhile included). Corruption when a tag lists files
// that are gone.
Status CollectTableUsedFiles(const std::string& table_path, std::set<std::string>* used);
// What main and the other branches of the table use, when `table_path` is main or one branch of
// a table with branches (they share manifests and data files); empty without branches.
Result<std::set<std::string>> OtherBranchesUsedFiles(const std::string& table_path);

// Removes the orphan files of the table at `table_path` (with `dry_run`, only finds them): of
// main and all its branches whichever of them `table_path` is, as nothing any of them uses is
// an orphan.
// `progress`, if set, is called after each data folder (bucket) is listed with (folders listed,
// folders in all).
Result<OrphanFilesResult> RemoveOrphanFiles(
    const std::string& table_path, int64_t older_than_millis, bool dry_run,
    const std::function<void(int64_t done, int64_t total)>& progress = {});

}  // namespace tributary::commit
