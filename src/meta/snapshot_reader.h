// Reads the file set of a snapshot: manifest lists -> manifests -> live ADD entries.
// Thread-safety: stateless functions.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::meta {

// Manifest metas of one manifest list file (named relative to the table's manifest dir).
Result<std::vector<meta::ManifestFileMeta>> ReadManifestList(const std::string& table_path,
                                                             const std::string& list_name);
// Entries of one manifest file.
Result<std::vector<meta::ManifestEntry>> ReadManifest(const std::string& table_path,
                                                      const std::string& manifest_name);
// Live data files of a snapshot (base + delta manifests, DELETEs applied).
Result<std::vector<meta::ManifestEntry>> ReadLiveEntries(const std::string& table_path,
                                                         const meta::Snapshot& snapshot);
// The same, shared from the process-wide cache without a copy.
Result<std::shared_ptr<const std::vector<meta::ManifestEntry>>> ReadLiveEntriesShared(
    const std::string& table_path, const meta::Snapshot& snapshot);
// Whether a manifest may hold entries a read wants, judged by its metadata (its partition
// statistics): false only when it certainly holds none. Such a manifest is not read.
using ManifestFilter = std::function<bool(const meta::ManifestFileMeta&)>;
// The live entries of some partitions (serialized BinaryRows) of a snapshot: what
// ReadLiveEntries gives, filtered to `partitions`, without copying or merging the other
// partitions' entries (a writer into a few partitions of a table of thousands: issue 38). From
// the snapshot's cached live entries when this process has them, else from its manifests: with
// `partition_types` (the table's partition columns' types), only the manifests whose partition
// statistics may hold one of `partitions` are read.
Result<std::vector<meta::ManifestEntry>> ReadLivePartitionEntries(
    const std::string& table_path, const meta::Snapshot& snapshot,
    const std::set<std::string>& partitions,
    const std::vector<DataType>* partition_types = nullptr);
// The same for the partitions `wanted` accepts (asked once per distinct partition); manifests
// `may_hold` rejects are not read (every entry of theirs would be rejected by `wanted`).
Result<std::vector<meta::ManifestEntry>> ReadLiveEntriesWhere(
    const std::string& table_path, const meta::Snapshot& snapshot,
    const std::function<bool(const std::string& partition)>& wanted,
    const ManifestFilter& may_hold = {});
// A manifest's partition statistics as rows of `types` (min, max and each field's count of
// NULLs, nullopt where unknown); nullopt when they do not deserialize to that many fields
// (written by another version, or absent): nothing is known then.
struct PartitionBounds {
  Row min, max;
  std::vector<std::optional<int64_t>> nulls;
};
std::optional<PartitionBounds> PartitionBoundsOf(const meta::ManifestFileMeta& m,
                                                 const std::vector<DataType>& types);
// Whether this process has the live entries of `snapshot` in its cache (ReadLiveEntriesShared
// then costs no manifest read).
bool LiveEntriesCached(const std::string& table_path, const meta::Snapshot& snapshot);
// The partitions of a snapshot that have live files (serialized BinaryRows) and how many
// (partition, bucket) pairs have live files, counted from its manifests without copying an
// entry: what 'max.partition.num' and 'max.bucket.num' are checked against.
struct LiveLayout {
  std::set<std::string> partitions;
  int64_t buckets = 0;
};
Result<LiveLayout> CountLiveLayout(const std::string& table_path, const meta::Snapshot& snapshot);
// Keeps `live` in the process-wide cache as the live entries of the snapshot whose manifest
// lists are `base_manifest_list` and `delta_manifest_list` (a committer's, which has them in
// memory: the next commit and reads need not decode every manifest again). REQUIRES: they are
// what reading those lists gives, in the same order.
void RememberLiveEntries(const std::string& table_path, const std::string& base_manifest_list,
                         const std::string& delta_manifest_list,
                         std::vector<meta::ManifestEntry> live);
// Where a file recorded with an absolute external path is: an absolute path recorded by a writer
// on another machine ('FILE:/.../external/x') is looked up as is, then relative to the database
// folder's `external/` (where copied tables keep it).
std::string ResolveExternalPath(const std::string& table_path, const std::string& recorded);

// Snapshot `id` (read each time: snapshot names are reused after DROP/CREATE or a rollback).
Result<std::shared_ptr<const meta::Snapshot>> ReadSnapshotCached(const std::string& table_path,
                                                                 int64_t id);
// The latest snapshot (null when the table has none), as SnapshotManager::LatestId finds it but
// with one stat fewer: the LATEST hint's, the next snapshot's and the hinted snapshot's own (its
// cache key), the listing only when the hint is stale.
Result<std::shared_ptr<const meta::Snapshot>> ReadLatestSnapshotCached(
    const std::string& table_path);
// The index files of `index_type` ("DELETION_VECTORS", "HASH") that snapshot `snap` lists: its
// index manifest's ADD entries less those a DELETE entry names (none without an index manifest).
Result<std::vector<meta::IndexManifestEntry>> ReadLiveIndexEntries(const std::string& table_path,
                                                                   const meta::Snapshot& snap,
                                                                   const std::string& index_type);
// Entries of the snapshot's delta manifests only (what that commit changed).
Result<std::vector<meta::ManifestEntry>> ReadDeltaEntries(const std::string& table_path,
                                                          const meta::Snapshot& snapshot);

}  // namespace tributary::meta
