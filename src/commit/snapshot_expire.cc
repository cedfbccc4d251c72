#include "commit/snapshot_expire.h"

#include <chrono>
#include <set>

#include "commit/orphan_files.h"
#include "common/clock.h"
#include "format/binary_row.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/consumer.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "meta/tags.h"
#include "options/core_options.h"
#include "options/option_keys.h"
#include "options/option_values.h"

namespace tributary::commit {

namespace {

int64_t NowMillis() { return WallClockMillis(); }

// The manifest lists a snapshot names, and the manifest files they list.
Status CollectManifests(const std::string& table_path, const meta::Snapshot& s,
                        std::set<std::string>* lists, std::set<std::string>* manifests) {
  std::vector<std::string> names = {s.base_manifest_list, s.delta_manifest_list};
  if (s.changelog_manifest_list) names.push_back(*s.changelog_manifest_list);
  for (const auto& list : names) {
    if (list.empty()) continue;
    lists->insert(list);
    TRIB_ASSIGN_OR_RETURN(auto metas, meta::ReadManifestList(table_path, list));
    for (const auto& m : metas) manifests->insert(m.file_name);
  }
  return Status::OK();
}

// The index files (dynamic-bucket HASH indexes, deletion vectors) snapshot `s` lists.
// The ADD entries of the index files (dynamic-bucket HASH indexes, deletion vectors) snapshot
// `s` lists, by file name.
Status CollectIndexFiles(const std::string& table_path, const meta::Snapshot& s,
                         std::map<std::string, meta::IndexManifestEntry>* files) {
  if (!s.index_manifest) return Status::OK();
  const std::string path = meta::ManifestPath(table_path, *s.index_manifest);
  TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
  TRIB_ASSIGN_OR_RETURN(
      auto entries, meta::DecodeIndexManifest(std::move(bytes), "index manifest '" + path + "'"));
  for (auto& e : entries) {
    if (e.kind == meta::FileKind::kAdd) files->emplace(e.file_name, std::move(e));
  }
  return Status::OK();
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where the file of a manifest entry lies.
class EntryPaths {
 public:
  EntryPaths(std::string table_path, const TableSchema& schema, std::string default_partition)
      : table_path_(std::move(table_path)), default_partition_(std::move(default_partition)) {
    for (const auto& k : schema.partition_keys) {
      fields_.push_back(schema.fields[schema.FieldIndex(k)]);
      types_.push_back(fields_.back().type);
    }
  }
  const std::vector<DataType>& partition_types() const { return types_; }
  Result<std::string> Of(const meta::ManifestEntry& e) const {
    if (e.file.external_path) return meta::ResolveExternalPath(table_path_, *e.file.external_path);
    TRIB_ASSIGN_OR_RETURN(std::string dir, BucketDirOf(e.partition, e.bucket));
    return io::JoinPath(dir, e.file.file_name);
  }
  // An index file's: in index/, or with 'index-file-in-data-file-dir' in its bucket's directory.
  Result<std::string> Of(const meta::IndexManifestEntry& e, bool in_data_dir) const {
    if (e.external_path) return meta::ResolveExternalPath(table_path_, *e.external_path);
    if (!in_data_dir || e.index_type != "DELETION_VECTORS") {
      return meta::IndexPath(table_path_, e.file_name);
    }
    TRIB_ASSIGN_OR_RETURN(std::string dir, BucketDirOf(e.partition, e.bucket));
    return io::JoinPath(dir, e.file_name);
  }
  // The entry's data file and the files beside it that belong to it (its `.index` file).
  Status AddAll(const meta::ManifestEntry& e, std::set<std::string>* out) const {
    TRIB_ASSIGN_OR_RETURN(std::string path, Of(e));
    const std::string dir = path.substr(0, path.rfind('/') + 1);
    for (const auto& extra : e.file.extra_files) out->insert(dir + extra);
    out->insert(std::move(path));
    return Status::OK();
  }

 private:
  Result<std::string> BucketDirOf(const std::string& partition, int32_t bucket) const {
    TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(partition, types_));
    return meta::BucketDir(table_path_, meta::PartitionPath(fields_, part, default_partition_),
                           bucket);
  }

  std::string table_path_;
  std::string default_partition_;
  std::vector<Field> fields_;
  std::vector<DataType> types_;
};

// The paths of the changelog files snapshot `s` lists.
Status CollectChangelogFiles(const std::string& table_path, const meta::Snapshot& s,
                             const EntryPaths& paths, std::set<std::string>* out) {
  if (!s.changelog_manifest_list) return Status::OK();
  TRIB_ASSIGN_OR_RETURN(auto metas, meta::ReadManifestList(table_path, *s.changelog_manifest_list));
  for (const auto& m : metas) {
    TRIB_ASSIGN_OR_RETURN(auto entries, meta::ReadManifest(table_path, m.file_name));
    for (const auto& e : entries) {
      TRIB_ASSIGN_OR_RETURN(std::string path, paths.Of(e));
      out->insert(std::move(path));
    }
  }
  return Status::OK();
}

// Every file a tag uses: its snapshot stays readable (Paimon skips tagged snapshots' files).
// What a tag of this table (or branch) uses, and what main and the other branches use (they
// share manifests and data files with it): never removed by its expiration.
Result<std::set<std::string>> TaggedFiles(const std::string& table_path) {
  TRIB_ASSIGN_OR_RETURN(std::set<std::string> tagged, OtherBranchesUsedFiles(table_path));
  TRIB_ASSIGN_OR_RETURN(auto tags, meta::ListTags(table_path));
  for (const auto& tag : tags) {
    TRIB_ASSIGN_OR_RETURN(auto s, meta::ReadTag(table_path, tag));
    TRIB_ASSIGN_OR_RETURN(bool complete, CollectUsedFiles(table_path, *s, &tagged));
    if (!complete) {
      return Status::Corruption("tag '" + tag +
                                "' lists files that are gone; expiration stops "
                                "rather than remove more");
    }
  }
  return tagged;
}

// Removes the files at `paths` except those `tagged` names; counts them in *removed (not the
// `.index` files of data files, which go with them).
// One batch (DeleteObjects on object storage).
Status RemoveDataFiles(const std::set<std::string>& paths, const std::set<std::string>& tagged,
                       int64_t* removed) {
  std::vector<std::string> batch;
  for (const auto& path : paths) {
    if (tagged.count(BaseName(path))) continue;
    io::FileCache::Instance().EraseFile(path);
    batch.push_back(path);
    if (!path.ends_with(".index")) (*removed)++;
  }
  return io::LocalFs().RemoveFiles(batch);
}

// Removes the manifest files (and lists) named in `names` but not in `keep` or `tagged`.
Status RemoveManifests(const std::string& table_path, const std::set<std::string>& names,
                       const std::set<std::string>& keep, const std::set<std::string>& tagged,
                       int64_t* removed) {
  std::vector<std::string> batch;
  for (const auto& m : names) {
    if (keep.count(m) || tagged.count(m)) continue;
    batch.push_back(meta::ManifestPath(table_path, m));
    (*removed)++;
  }
  return io::LocalFs().RemoveFiles(batch);
}

}  // namespace

Result<ExpireOptions> ExpireOptions::From(const TableSchema& schema) {
  ExpireOptions o;
  auto int_opt = [&](const char* key, int64_t* out) -> Status {
    if (auto v = schema.Option(key)) {
      TRIB_ASSIGN_OR_RETURN(*out, options::ParseInt64(*v));
    }
    return Status::OK();
  };
  TRIB_RETURN_NOT_OK(int_opt("snapshot.num-retained.min", &o.retain_min));
  TRIB_RETURN_NOT_OK(int_opt("snapshot.num-retained.max", &o.retain_max));
  TRIB_RETURN_NOT_OK(int_opt("snapshot.expire.limit", &o.max_deletes));
  if (options::IsSet(schema, options::kSnapshotTimeRetained)) {
    TRIB_ASSIGN_OR_RETURN(o.time_retained_ms, options::Get(schema, options::kSnapshotTimeRetained));
  }
  o.changelog_retain_min = o.retain_min;
  o.changelog_retain_max = o.retain_max;
  o.changelog_time_retained_ms = o.time_retained_ms;
  for (const char* k :
       {"changelog.num-retained.min", "changelog.num-retained.max", "changelog.time-retained"}) {
    o.changelog_options_set = o.changelog_options_set || schema.Option(k).has_value();
  }
  TRIB_RETURN_NOT_OK(int_opt("changelog.num-retained.min", &o.changelog_retain_min));
  TRIB_RETURN_NOT_OK(int_opt("changelog.num-retained.max", &o.changelog_retain_max));
  if (options::IsSet(schema, options::kChangelogTimeRetained)) {
    TRIB_ASSIGN_OR_RETURN(o.changelog_time_retained_ms,
                          options::Get(schema, options::kChangelogTimeRetained));
  }
  if (o.retain_min < 1) return Status::Invalid("'snapshot.num-retained.min' must be at least 1");
  if (o.retain_max < o.retain_min) {
    return Status::Invalid("'snapshot.num-retained.max' (" + std::to_string(o.retain_max) +
                           ") must be at least 'snapshot.num-retained.min' (" +
                           std::to_string(o.retain_min) + ")");
  }
  o.table_decoupled = o.ChangelogDecoupled();
  if (o.changelog_retain_min < 1) {
    return Status::Invalid("'changelog.num-retained.min' must be at least 1");
  }
  if (o.changelog_retain_max < o.changelog_retain_min) {
    return Status::Invalid("'changelog.num-retained.max' (" +
                           std::to_string(o.changelog_retain_max) +
                           ") must be at least 'changelog.num-retained.min' (" +
                           std::to_string(o.changelog_retain_min) + ")");
  }
  return o;
}

Result<ExpireResult> ExpireSnapshots(const std::string& table_path, const TableSchema& schema,
                                     const ExpireOptions& options) {
  ExpireResult result;
  meta::SnapshotManager snapshots(table_path);
  // Fewer snapshots than the minimum retained (the common case after a commit): known from the
  // EARLIEST and LATEST hints, checked, without listing the snapshot folder.
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> first, snapshots.EarliestId());
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> last, snapshots.LatestId());
  if (!first || !last || *last - *first + 1 <= std::max<int64_t>(options.retain_min, 1)) {
    return result;
  }
  const int64_t older_than =
      options.older_than_millis.value_or(NowMillis() - options.time_retained_ms);
  // Nor when the earliest snapshot stays (younger than 'snapshot.time-retained', or a consumer
  // still needs it): one read instead of a listing of every snapshot at each commit.
  if (options.max_deletes <= 0 || *first >= *last - options.retain_min + 1) return result;
  if (*first >= *last - options.retain_max + 1) {
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> needed, meta::MinConsumerNextSnapshot(table_path));
    if (needed && *first >= *needed) return result;
    auto earliest = snapshots.Read(*first);
    if (earliest.ok() && (*earliest)->time_millis >= older_than) return result;
  }
  TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
  if (ids.size() <= static_cast<size_t>(std::max<int64_t>(options.retain_min, 1))) return result;
  const int64_t latest = ids.back();
  const int64_t keep_from_min = latest - options.retain_min + 1;  // ids >= this stay
  const int64_t force_before = latest - options.retain_max + 1;   // ids < this go
  // A streaming reader with a consumer id still needs its next snapshot and every later one.
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> consumer_next,
                        meta::MinConsumerNextSnapshot(table_path));
  // `end`: the oldest snapshot that stays; every id before it goes.
  size_t end = 0;
  while (end < ids.size() && static_cast<int64_t>(end) < options.max_deletes) {
    const int64_t id = ids[end];
    if (id >= keep_from_min) break;
    if (consumer_next && id >= *consumer_next) break;
    if (id >= force_before) {
      TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(id));
      if (s->time_millis >= older_than) break;
    }
    end++;
  }
  if (end == 0) return result;

  // What the snapshot that stays (and every later one) needs is never removed.
  TRIB_ASSIGN_OR_RETURN(auto kept, snapshots.Read(ids[end]));
  std::set<std::string> kept_lists, kept_manifests;
  TRIB_RETURN_NOT_OK(CollectManifests(table_path, *kept, &kept_lists, &kept_manifests));
  // Nor what a tag uses.
  TRIB_ASSIGN_OR_RETURN(const std::set<std::string> tagged, TaggedFiles(table_path));
  // Index files any retained snapshot lists stay; the expired ones' others go.
  std::map<std::string, meta::IndexManifestEntry> kept_index, expired_index;
  for (size_t i = end; i < ids.size(); i++) {
    auto s = snapshots.Read(ids[i]);
    if (!s.ok()) return s.status();
    TRIB_RETURN_NOT_OK(CollectIndexFiles(table_path, **s, &kept_index));
    if ((*s)->index_manifest) kept_lists.insert(*(*s)->index_manifest);
  }
  TRIB_ASSIGN_OR_RETURN(auto core, options::CoreOptions::From(schema));
  const EntryPaths paths(table_path, schema, core.partition_default_name);
  // A changelog that outlives its snapshots keeps, with each expired snapshot's JSON, its
  // changelog files and manifests and (without a producer, the files APPEND snapshots added
  // being the changelog) the data files it added; ExpireChangelogs removes them later.
  // Long-lived changelogs already kept count too: what they use stays until they expire.
  TRIB_ASSIGN_OR_RETURN(const auto long_lived, meta::ListLongLivedChangelogIds(table_path));
  const bool decoupled = options.ChangelogDecoupled() || !long_lived.empty();
  // A file the snapshot that stays lists is never removed, whatever a delta says (Java Paimon
  // moves a file up a level with a DELETE and an ADD of the same file in one snapshot).
  // (Only the partitions of the files the deltas delete are looked at: a file stays in its
  // bucket.)
  const bool delta_is_changelog = core.changelog_producer == options::ChangelogProducer::kNone;
  // Data files deleted by the snapshots after the oldest one up to the one that stays: no
  // snapshot from `end` on lists them (file names are never reused).
  std::vector<meta::ManifestEntry> deleted;
  std::set<std::string> deleted_partitions;
  for (size_t i = 1; i <= end; i++) {
    TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(ids[i]));
    TRIB_ASSIGN_OR_RETURN(auto delta, meta::ReadDeltaEntries(table_path, *s));
    for (auto& e : delta) {
      if (e.kind != meta::FileKind::kDelete) continue;
      if (decoupled && delta_is_changelog &&
          e.file.file_source.value_or(meta::FileSource::kAppend) == meta::FileSource::kAppend) {
        continue;
      }
      deleted_partitions.insert(e.partition);
      deleted.push_back(std::move(e));
    }
  }
  std::set<std::string> kept_data;
  if (!deleted.empty()) {
    // (Partition columns' types never change: ALTER refuses it.)
    TRIB_ASSIGN_OR_RETURN(auto live,
                          meta::ReadLivePartitionEntries(table_path, *kept, deleted_partitions,
                                                         &paths.partition_types()));
    for (const auto& e : live) kept_data.insert(e.file.file_name);
  }
  std::set<std::string> data_files, changelog_files, lists, manifests;
  for (const auto& e : deleted) {
    if (kept_data.count(e.file.file_name)) continue;
    TRIB_RETURN_NOT_OK(paths.AddAll(e, &data_files));
  }
  // The changelog files and the manifests of the snapshots that go.
  for (size_t i = 0; i < end; i++) {
    TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(ids[i]));
    if (!decoupled) {
      TRIB_RETURN_NOT_OK(CollectChangelogFiles(table_path, *s, paths, &changelog_files));
      TRIB_RETURN_NOT_OK(CollectManifests(table_path, *s, &lists, &manifests));
    }
    TRIB_RETURN_NOT_OK(CollectIndexFiles(table_path, *s, &expired_index));
    if (s->index_manifest) lists.insert(*s->index_manifest);
  }

  // The snapshot files first, oldest first (a reader never sees a snapshot whose files are
  // gone), each kept as a long-lived changelog first when the changelog outlives it; then the
  // files only they used.
  for (size_t i = 0; i < end; i++) {
    if (decoupled) {
      TRIB_ASSIGN_OR_RETURN(auto s, snapshots.Read(ids[i]));
      TRIB_RETURN_NOT_OK(meta::WriteLongLivedChangelog(table_path, *s));
      result.changelogs_kept++;
    }
    TRIB_RETURN_NOT_OK(io::LocalFs().Remove(meta::SnapshotPath(table_path, ids[i])));
    result.snapshots++;
  }
  (void)io::WriteHintFile(meta::EarliestHintPath(meta::SnapshotDir(table_path)),
                          std::to_string(ids[end]));
  io::CrashPoint("expire.after-snapshots");
  TRIB_RETURN_NOT_OK(RemoveDataFiles(data_files, tagged, &result.data_files));
  TRIB_RETURN_NOT_OK(RemoveDataFiles(changelog_files, tagged, &result.changelog_files));
  std::vector<std::string> index_batch;
  const bool index_in_data_dir = options::GetOrDefault(schema, options::kIndexFileInDataFileDir);
  for (const auto& [f, entry] : expired_index) {
    if (kept_index.count(f) || tagged.count(f)) continue;
    TRIB_ASSIGN_OR_RETURN(std::string file, paths.Of(entry, index_in_data_dir));
    index_batch.push_back(std::move(file));
    result.index_files++;
  }
  TRIB_RETURN_NOT_OK(io::LocalFs().RemoveFiles(index_batch));
  TRIB_RETURN_NOT_OK(
      RemoveManifests(table_path, manifests, kept_manifests, tagged, &result.manifest_files));
  TRIB_RETURN_NOT_OK(
      RemoveManifests(table_path, lists, kept_lists, tagged, &result.manifest_files));
  return result;
}

Result<int64_t> ExpireChangelogs(const std::string& table_path, const TableSchema& schema,
                                 const ExpireOptions& options) {
  TRIB_ASSIGN_OR_RETURN(auto ids, meta::ListLongLivedChangelogIds(table_path));
  if (ids.empty()) return 0;
  meta::SnapshotManager snapshots(table_path);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> earliest, snapshots.EarliestId());
  if (!latest || !earliest) return 0;
  const int64_t keep_from_min = *latest - options.changelog_retain_min + 1;
  const int64_t force_before = *latest - options.changelog_retain_max + 1;
  const int64_t older_than = options.changelog_older_than_millis.value_or(
      NowMillis() - options.changelog_time_retained_ms);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> consumer_next,
                        meta::MinConsumerNextSnapshot(table_path));
  size_t end = 0;
  while (end < ids.size() && static_cast<int64_t>(end) < options.max_deletes) {
    const int64_t id = ids[end];
    if (id >= *earliest || id >= keep_from_min) break;
    if (consumer_next && id >= *consumer_next) break;
    if (id >= force_before) {
      TRIB_ASSIGN_OR_RETURN(auto c, meta::ReadLongLivedChangelog(table_path, id));
      if (c->time_millis >= older_than) break;
    }
    end++;
  }
  if (end == 0) return 0;
  // What the first changelog (or snapshot) that stays uses stays: a manifest is used by a run
  // of consecutive snapshots, so that one tells whether a later one still needs it.
  std::shared_ptr<const meta::Snapshot> kept;
  if (end < ids.size()) {
    TRIB_ASSIGN_OR_RETURN(kept, meta::ReadLongLivedChangelog(table_path, ids[end]));
  } else {
    TRIB_ASSIGN_OR_RETURN(kept, snapshots.Read(*earliest));
  }
  std::set<std::string> kept_lists, kept_manifests;
  TRIB_RETURN_NOT_OK(CollectManifests(table_path, *kept, &kept_lists, &kept_manifests));
  // Data files the earliest snapshot lists stay whatever a changelog's delta deleted.
  std::set<std::string> kept_data;
  {
    TRIB_ASSIGN_OR_RETURN(auto earliest_snap, snapshots.Read(*earliest));
    TRIB_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntriesShared(table_path, *earliest_snap));
    for (const auto& e : *live) kept_data.insert(e.file.file_name);
  }
  TRIB_ASSIGN_OR_RETURN(const std::set<std::string> tagged, TaggedFiles(table_path));
  TRIB_ASSIGN_OR_RETURN(auto core, options::CoreOptions::From(schema));
  const EntryPaths paths(table_path, schema, core.partition_default_name);
  // Each changelog's files: its changelog files, or (none) the data files its delta deleted,
  // which the snapshot's own expiration left for it.
  std::set<std::string> files, lists, manifests;
  for (size_t i = 0; i < end; i++) {
    TRIB_ASSIGN_OR_RETURN(auto c, meta::ReadLongLivedChangelog(table_path, ids[i]));
    if (c->changelog_manifest_list) {
      TRIB_RETURN_NOT_OK(CollectChangelogFiles(table_path, *c, paths, &files));
    } else {
      TRIB_ASSIGN_OR_RETURN(auto delta, meta::ReadDeltaEntries(table_path, *c));
      for (const auto& e : delta) {
        if (e.kind != meta::FileKind::kDelete || kept_data.count(e.file.file_name)) continue;
        TRIB_RETURN_NOT_OK(paths.AddAll(e, &files));
      }
    }
    TRIB_RETURN_NOT_OK(CollectManifests(table_path, *c, &lists, &manifests));
  }
  // The changelog files first, oldest first, then what only they used.
  for (size_t i = 0; i < end; i++) {
    TRIB_RETURN_NOT_OK(io::LocalFs().Remove(meta::LongLivedChangelogPath(table_path, ids[i])));
  }
  (void)io::WriteHintFile(meta::EarliestHintPath(meta::ChangelogDir(table_path)),
                          std::to_string(end < ids.size() ? ids[end] : *earliest));
  int64_t removed = 0;
  TRIB_RETURN_NOT_OK(RemoveDataFiles(files, tagged, &removed));
  TRIB_RETURN_NOT_OK(RemoveManifests(table_path, manifests, kept_manifests, tagged, &removed));
  TRIB_RETURN_NOT_OK(RemoveManifests(table_path, lists, kept_lists, tagged, &removed));
  return static_cast<int64_t>(end);
}

Status ExpireAfterCommit(const std::string& table_path, const TableSchema& schema) {
  if (options::IsSet(schema, options::kConsumerExpirationTime)) {
    TRIB_ASSIGN_OR_RETURN(int64_t ms, options::Get(schema, options::kConsumerExpirationTime));
    TRIB_RETURN_NOT_OK(meta::ExpireConsumers(table_path, NowMillis() - ms).status());
  }
  TRIB_ASSIGN_OR_RETURN(ExpireOptions options, ExpireOptions::From(schema));
  Status st = ExpireSnapshots(table_path, schema, options).status();
  if (st.ok()) st = ExpireChangelogs(table_path, schema, options).status();
  if (st.IsNotFound()) return Status::OK();
  return st;
}

}  // namespace tributary::commit
