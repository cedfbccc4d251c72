#include "meta/snapshot_reader.h"

#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "format/binary_row.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {

using io::FileCache;
namespace {
// Paimon before 1.3 could write manifests in ORC (`manifest.format` = 'orc').
Status CheckNotOrc(const std::string& bytes, const std::string& path) {
  if (bytes.compare(0, 3, "ORC") == 0) {
    return Status::NotSupported("'" + path +
                                "' is an ORC file: this table's manifests were written with "
                                "'manifest.format' = 'orc', which Tributary cannot read (it "
                                "reads Avro manifests, the format current Paimon writes)");
  }
  return Status::OK();
}
}  // namespace

// Manifests and manifest lists are immutable: decoded ones are kept in the process-wide cache.
Result<std::vector<meta::ManifestFileMeta>> ReadManifestList(const std::string& table_path,
                                                             const std::string& list_name) {
  std::string path = meta::ManifestPath(table_path, list_name);
  using T = std::vector<meta::ManifestFileMeta>;
  TRIB_ASSIGN_OR_RETURN(
      auto cached,
      FileCache::Instance().GetOrLoad<T>("list:" + path, [&]() -> Result<std::pair<T, int64_t>> {
        TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
        TRIB_RETURN_NOT_OK(CheckNotOrc(bytes, path));
        int64_t size = static_cast<int64_t>(bytes.size()) * 4 + 256;
        TRIB_ASSIGN_OR_RETURN(
            T v, meta::DecodeManifestList(std::move(bytes), "manifest list '" + path + "'"));
        return std::make_pair(std::move(v), size);
      }));
  return *cached;
}

namespace {
using SharedEntries = std::shared_ptr<const std::vector<meta::ManifestEntry>>;

Result<SharedEntries> ReadManifestShared(const std::string& table_path,
                                         const std::string& manifest_name) {
  std::string path = meta::ManifestPath(table_path, manifest_name);
  using T = std::vector<meta::ManifestEntry>;
  return FileCache::Instance().GetOrLoad<T>(
      "manifest:" + path, [&]() -> Result<std::pair<T, int64_t>> {
        TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
        TRIB_RETURN_NOT_OK(CheckNotOrc(bytes, path));
        TRIB_ASSIGN_OR_RETURN(T v,
                              meta::DecodeManifest(std::move(bytes), "manifest '" + path + "'"));
        int64_t size = 256;
        for (const auto& e : v) size += meta::ApproxBytes(e);
        return std::make_pair(std::move(v), size);
      });
}

// Calls `fn(entry)` for every entry of the manifests of manifest list `list`, in order (each
// manifest shared from the cache: no copy).
template <typename Fn>
Status ForEachEntryOf(const std::string& table_path, const std::string& list, Fn&& fn,
                      const ManifestFilter& may_hold = {}) {
  TRIB_ASSIGN_OR_RETURN(auto metas, ReadManifestList(table_path, list));
  for (const auto& m : metas) {
    if (may_hold && !may_hold(m)) continue;
    TRIB_ASSIGN_OR_RETURN(SharedEntries entries, ReadManifestShared(table_path, m.file_name));
    for (const auto& e : *entries) fn(e);
  }
  return Status::OK();
}

Status MergeEntriesOf(const std::string& table_path, const std::string& list,
                      meta::LiveEntryMerger* merger) {
  return ForEachEntryOf(table_path, list,
                        [&](const meta::ManifestEntry& e) { merger->Add(meta::ManifestEntry(e)); });
}
}  // namespace

Result<std::vector<meta::ManifestEntry>> ReadManifest(const std::string& table_path,
                                                      const std::string& manifest_name) {
  TRIB_ASSIGN_OR_RETURN(SharedEntries entries, ReadManifestShared(table_path, manifest_name));
  return *entries;
}

Result<std::vector<meta::ManifestEntry>> ReadLiveEntries(const std::string& table_path,
                                                         const meta::Snapshot& snapshot) {
  TRIB_ASSIGN_OR_RETURN(auto shared, ReadLiveEntriesShared(table_path, snapshot));
  return *shared;
}

std::string ResolveExternalPath(const std::string& table_path, const std::string& recorded) {
  std::string p = recorded;
  for (const char* scheme : {"FILE:", "file:"}) {
    if (p.rfind(scheme, 0) == 0) p = p.substr(std::string(scheme).size());
  }
  while (p.rfind("//", 0) == 0) p = p.substr(1);
  if (io::LocalFs().Exists(p).ValueOr(false)) return p;
  size_t at = p.find("/external/");
  if (at != std::string::npos) {
    std::string local = io::JoinPath(io::ParentPath(DataRoot(table_path)), p.substr(at + 1));
    if (io::LocalFs().Exists(local).ValueOr(false)) return local;
  }
  return p;
}

Result<std::shared_ptr<const meta::Snapshot>> ReadSnapshotCached(const std::string& table_path,
                                                                 int64_t id) {
  // Unlike manifests and data files (named by UUID), the name snapshot-N is reused when a table
  // is dropped and created again (or rolled back): the cache key holds the file's version (its
  // inode, size and modification time), checked by a stat on every read.
  const std::string path = meta::SnapshotPath(table_path, id);
  // On object storage the version costs a request as the read does: read it.
  if (io::IsObjectStoreUri(path)) return meta::SnapshotManager(table_path).Read(id);
  TRIB_ASSIGN_OR_RETURN(std::optional<std::string> version, io::LocalFs().Version(path));
  if (!version) return meta::SnapshotManager(table_path).Read(id);  // its NotFound error
  using T = std::shared_ptr<const meta::Snapshot>;
  TRIB_ASSIGN_OR_RETURN(
      auto cached, FileCache::Instance().GetOrLoad<T>(
                       "snapshot:" + path + "@" + *version, [&]() -> Result<std::pair<T, int64_t>> {
                         TRIB_ASSIGN_OR_RETURN(T s, meta::SnapshotManager(table_path).Read(id));
                         return std::make_pair(std::move(s), int64_t{2048});
                       }));
  return *cached;
}

namespace {

// Object storage: the latest snapshot this process found of each table, with the version of its
// file (ETag, size, time). While that file is unchanged and no snapshot follows it, it is still
// the latest: two HEADs in flight at once instead of the hint's GET, the successor's HEAD and
// the snapshot's GET one after another. A file rewritten under the same name (a rollback, a
// table dropped and created again) has another version.
struct LatestMemo {
  int64_t id = 0;
  std::string version;
  std::shared_ptr<const meta::Snapshot> snapshot;
};
std::mutex g_latest_mu;
std::map<std::string, LatestMemo> g_latest;  // by table path
constexpr size_t kMaxLatestMemos = 4096;

std::optional<LatestMemo> FindMemo(const std::string& table_path) {
  std::lock_guard<std::mutex> lock(g_latest_mu);
  auto it = g_latest.find(table_path);
  if (it == g_latest.end()) return std::nullopt;
  return it->second;
}

void Remember(const std::string& table_path, LatestMemo memo) {
  std::lock_guard<std::mutex> lock(g_latest_mu);
  if (g_latest.size() >= kMaxLatestMemos && !g_latest.count(table_path)) g_latest.clear();
  g_latest[table_path] = std::move(memo);
}

// Snapshot `id` read with its version, remembered as the latest when `id` + 1 does not exist
// (asked at the same time). Null when a successor exists (or `id` does not).
Result<std::shared_ptr<const meta::Snapshot>> ReadIfLatest(const std::string& table_path,
                                                           int64_t id) {
  io::FileSystem& fs = io::LocalFs();
  const std::string next = meta::SnapshotPath(table_path, id + 1);
  auto successor = std::async(std::launch::async, [&fs, &next] { return fs.FileExists(next); });
  const std::string path = meta::SnapshotPath(table_path, id);
  auto read = fs.ReadFileVersioned(path);
  TRIB_ASSIGN_OR_RETURN(bool later, successor.get());
  if (!read.ok()) {
    if (read.status().IsNotFound()) return std::shared_ptr<const meta::Snapshot>();
    return read.status();
  }
  if (later) return std::shared_ptr<const meta::Snapshot>();
  TRIB_ASSIGN_OR_RETURN(meta::Snapshot s, meta::SnapshotFromJson(read->first, path));
  auto snap = std::make_shared<const meta::Snapshot>(std::move(s));
  if (read->second) Remember(table_path, LatestMemo{id, *read->second, snap});
  return snap;
}

// FindLatestSnapshot on object storage: the remembered latest while it still is, else the one
// after it, else the hint's (each checked with its successor in one round trip), else the
// listing's.
Result<std::shared_ptr<const meta::Snapshot>> FindLatestOnObjectStore(
    const std::string& table_path) {
  if (std::optional<LatestMemo> memo = FindMemo(table_path)) {
    TRIB_ASSIGN_OR_RETURN(bool still,
                          io::StillLatest(meta::SnapshotPath(table_path, memo->id), memo->version,
                                          meta::SnapshotPath(table_path, memo->id + 1)));
    if (still) return memo->snapshot;
    // Usually one commit happened since: its snapshot, if none follows it.
    TRIB_ASSIGN_OR_RETURN(auto next, ReadIfLatest(table_path, memo->id + 1));
    if (next) return next;
  }
  const meta::SnapshotManager snapshots(table_path);
  if (std::optional<int64_t> hint = snapshots.LatestHint()) {
    TRIB_ASSIGN_OR_RETURN(auto hinted, ReadIfLatest(table_path, *hint));
    if (hinted) return hinted;
  }
  // The hint is stale: the listing's highest, unless a commit or a rollback came between the
  // listing and the read (then list again).
  constexpr int kAttempts = 10;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    TRIB_ASSIGN_OR_RETURN(auto ids, snapshots.ListIds());
    if (ids.empty()) return std::shared_ptr<const meta::Snapshot>();
    TRIB_ASSIGN_OR_RETURN(auto listed, ReadIfLatest(table_path, ids.back()));
    if (listed) return listed;
  }
  return Status::IOError("the snapshots of '" + table_path +
                         "' kept changing while the latest "
                         "was looked up (" +
                         std::to_string(kAttempts) + " listings)");
}

// The latest snapshot found from the LATEST hint (or, when it is stale, the listing).
Result<std::shared_ptr<const meta::Snapshot>> FindLatestSnapshot(const std::string& table_path) {
  if (io::IsObjectStoreUri(table_path)) return FindLatestOnObjectStore(table_path);
  const meta::SnapshotManager snapshots(table_path);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> hinted, snapshots.HintedLatestId());
  if (hinted) {
    auto snap = ReadSnapshotCached(table_path, *hinted);
    if (snap.ok() || !snap.status().IsNotFound()) return snap;
  }
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> id, snapshots.LatestId());
  if (!id) return std::shared_ptr<const meta::Snapshot>();
  return ReadSnapshotCached(table_path, *id);
}

// The modification time in a FileSystem::Version string ("dev:ino:size:sec.nsec"), in ns.
std::optional<int64_t> VersionMtimeNanos(const std::string& version) {
  const size_t colon = version.rfind(':'), dot = version.rfind('.');
  if (colon == std::string::npos || dot == std::string::npos || dot < colon) return std::nullopt;
  try {
    return std::stoll(version.substr(colon + 1, dot - colon - 1)) * 1000000000 +
           std::stoll(version.substr(dot + 1));
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

Result<std::shared_ptr<const meta::Snapshot>> ReadLatestSnapshotCached(
    const std::string& table_path) {
  // Every commit, expiration and rollback changes the snapshot directory (new names, renames,
  // removals), and with it the directory's version. A version whose last change lies more than
  // kSettled before it is read cannot come back with other contents (a later change gets a later
  // timestamp), so the latest snapshot found then is cached under it: one stat per read while no
  // commit happens. A directory changed within kSettled could change again within the same
  // timestamp tick (git's "racily clean" case), so it is looked up in full each time.
  // A file system keeping whole seconds (nanoseconds 0: ext4 with small inodes, ext3, some NFS
  // servers) gets two seconds instead of 50 ms.
  constexpr int64_t kSettledNanos = 50'000'000, kCoarseSettledNanos = 2'000'000'000;
  const std::string dir = meta::SnapshotDir(table_path);
  // Object storage has no directory versions.
  if (io::IsObjectStoreUri(dir)) return FindLatestSnapshot(table_path);
  TRIB_ASSIGN_OR_RETURN(std::optional<std::string> version, io::LocalFs().Version(dir));
  const auto mtime = version ? VersionMtimeNanos(*version) : std::nullopt;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t settled =
      mtime && *mtime % 1'000'000'000 == 0 ? kCoarseSettledNanos : kSettledNanos;
  if (!mtime || now - *mtime < settled) return FindLatestSnapshot(table_path);
  using T = std::shared_ptr<const meta::Snapshot>;
  TRIB_ASSIGN_OR_RETURN(
      auto cached, FileCache::Instance().GetOrLoad<T>(
                       "latest:" + dir + "@" + *version, [&]() -> Result<std::pair<T, int64_t>> {
                         TRIB_ASSIGN_OR_RETURN(T s, FindLatestSnapshot(table_path));
                         return std::make_pair(std::move(s), int64_t{2048});
                       }));
  return *cached;
}

namespace {

std::string LiveKey(const std::string& table_path, const std::string& base_list,
                    const std::string& delta_list) {
  return "live:" + table_path + "/" + base_list + "/" + delta_list;
}

// A table keeps the live entries of the snapshot read (or committed) last, not of every one
// since: a writer over thousands of buckets reads tens of MB of them a commit. Makes `key` the
// table's, releasing the one before.
void KeepOnlyLive(const std::string& table_path, const std::string& key) {
  static std::mutex mu;
  static std::map<std::string, std::string> last;  // table -> its entries' key
  std::string previous;
  {
    std::lock_guard<std::mutex> lock(mu);
    previous = std::exchange(last[table_path], key);
  }
  if (!previous.empty() && previous != key) FileCache::Instance().EraseFile(previous);
}

int64_t LiveBytes(const std::vector<meta::ManifestEntry>& live) {
  int64_t bytes = 256;
  for (const auto& e : live) bytes += meta::ApproxBytes(e);
  return bytes;
}

}  // namespace

Result<std::shared_ptr<const std::vector<meta::ManifestEntry>>> ReadLiveEntriesShared(
    const std::string& table_path, const meta::Snapshot& snapshot) {
  // A snapshot's file set never changes: cache it by its manifest lists.
  using T = std::vector<meta::ManifestEntry>;
  const std::string key =
      LiveKey(table_path, snapshot.base_manifest_list, snapshot.delta_manifest_list);
  TRIB_ASSIGN_OR_RETURN(
      auto cached, FileCache::Instance().GetOrLoad<T>(key, [&]() -> Result<std::pair<T, int64_t>> {
        meta::LiveEntryMerger merger;
        TRIB_RETURN_NOT_OK(MergeEntriesOf(table_path, snapshot.base_manifest_list, &merger));
        TRIB_RETURN_NOT_OK(MergeEntriesOf(table_path, snapshot.delta_manifest_list, &merger));
        T live = std::move(merger).Finish();
        KeepOnlyLive(table_path, key);
        const int64_t bytes = LiveBytes(live);
        return std::make_pair(std::move(live), bytes);
      }));
  return cached;
}

void RememberLiveEntries(const std::string& table_path, const std::string& base_manifest_list,
                         const std::string& delta_manifest_list,
                         std::vector<meta::ManifestEntry> live) {
  const std::string key = LiveKey(table_path, base_manifest_list, delta_manifest_list);
  KeepOnlyLive(table_path, key);
  using T = std::vector<meta::ManifestEntry>;
  (void)FileCache::Instance().GetOrLoad<T>(key, [&]() -> Result<std::pair<T, int64_t>> {
    const int64_t bytes = LiveBytes(live);
    return std::make_pair(std::move(live), bytes);
  });
}

Result<std::vector<meta::ManifestEntry>> ReadDeltaEntries(const std::string& table_path,
                                                          const meta::Snapshot& snapshot) {
  std::vector<meta::ManifestEntry> all;
  TRIB_RETURN_NOT_OK(ForEachEntryOf(table_path, snapshot.delta_manifest_list,
                                    [&](const meta::ManifestEntry& e) { all.push_back(e); }));
  return all;
}

std::optional<PartitionBounds> PartitionBoundsOf(const meta::ManifestFileMeta& m,
                                                 const std::vector<DataType>& types) {
  const SimpleStats& s = m.partition_stats;
  auto min = format::DeserializeBinaryRow(s.min_values, types);
  auto max = format::DeserializeBinaryRow(s.max_values, types);
  if (!min.ok() || !max.ok() || min->size() != types.size() || max->size() != types.size()) {
    return std::nullopt;
  }
  PartitionBounds out{std::move(*min), std::move(*max), {}};
  out.nulls.resize(types.size());
  if (s.has_null_counts && s.null_counts.size() == types.size()) out.nulls = s.null_counts;
  return out;
}

Result<std::vector<meta::ManifestEntry>> ReadLivePartitionEntries(
    const std::string& table_path, const meta::Snapshot& snapshot,
    const std::set<std::string>& partitions, const std::vector<DataType>* partition_types) {
  ManifestFilter may_hold;
  std::vector<Row> rows;  // the wanted partitions, when every one deserializes
  if (partition_types && !partition_types->empty()) {
    for (const std::string& p : partitions) {
      auto row = format::DeserializeBinaryRow(p, *partition_types);
      if (!row.ok() || row->size() != partition_types->size()) {
        rows.clear();
        break;
      }
      rows.push_back(std::move(*row));
    }
  }
  if (!rows.empty() && rows.size() == partitions.size()) {
    may_hold = [&](const meta::ManifestFileMeta& m) {
      auto bounds = PartitionBoundsOf(m, *partition_types);
      if (!bounds) return true;
      for (const Row& r : rows) {
        bool inside = true;
        for (size_t i = 0; inside && i < r.size(); i++) {
          if (r[i].is_null()) {
            inside = !bounds->nulls[i] || *bounds->nulls[i] > 0;
          } else if (!bounds->min[i].is_null() && !bounds->max[i].is_null()) {
            inside = CompareValues(bounds->min[i], r[i]) <= 0 &&
                     CompareValues(r[i], bounds->max[i]) <= 0;
          }
        }
        if (inside) return true;
      }
      return false;
    };
  }
  return ReadLiveEntriesWhere(
      table_path, snapshot,
      [&](const std::string& partition) { return partitions.count(partition) > 0; }, may_hold);
}

Result<std::vector<meta::ManifestEntry>> ReadLiveEntriesWhere(
    const std::string& table_path, const meta::Snapshot& snapshot,
    const std::function<bool(const std::string& partition)>& wanted,
    const ManifestFilter& may_hold) {
  std::unordered_map<std::string, bool> asked;  // by partition: few, each entry names one
  auto keep = [&](const std::string& partition) {
    auto it = asked.find(partition);
    if (it == asked.end()) it = asked.emplace(partition, wanted(partition)).first;
    return it->second;
  };
  using T = std::vector<meta::ManifestEntry>;
  const std::string key =
      LiveKey(table_path, snapshot.base_manifest_list, snapshot.delta_manifest_list);
  if (std::shared_ptr<const T> live = FileCache::Instance().Peek<T>(key)) {
    T out;
    for (const auto& e : *live) {
      if (keep(e.partition)) out.push_back(e);
    }
    return out;
  }
  // A DELETE cancels an ADD of the same identifier, which names the partition: the merge of
  // some partitions' entries is the whole merge's, filtered.
  meta::LiveEntryMerger merger;
  auto add = [&](const meta::ManifestEntry& e) {
    if (keep(e.partition)) merger.Add(meta::ManifestEntry(e));
  };
  TRIB_RETURN_NOT_OK(ForEachEntryOf(table_path, snapshot.base_manifest_list, add, may_hold));
  TRIB_RETURN_NOT_OK(ForEachEntryOf(table_path, snapshot.delta_manifest_list, add, may_hold));
  return std::move(merger).Finish();
}

bool LiveEntriesCached(const std::string& table_path, const meta::Snapshot& snapshot) {
  return FileCache::Instance().Peek<std::vector<meta::ManifestEntry>>(LiveKey(
             table_path, snapshot.base_manifest_list, snapshot.delta_manifest_list)) != nullptr;
}

Result<LiveLayout> CountLiveLayout(const std::string& table_path, const meta::Snapshot& snapshot) {
  using T = std::vector<meta::ManifestEntry>;
  std::set<std::pair<std::string, int32_t>> buckets;
  const std::string key =
      LiveKey(table_path, snapshot.base_manifest_list, snapshot.delta_manifest_list);
  if (std::shared_ptr<const T> live = FileCache::Instance().Peek<T>(key)) {
    for (const auto& e : *live) buckets.insert({e.partition, e.bucket});
  } else {
    // Live files by identifier (a DELETE cancels the ADD before it), then their buckets.
    std::unordered_map<std::string, std::pair<std::string, int32_t>> files;
    auto add = [&](const meta::ManifestEntry& e) {
      if (e.kind == meta::FileKind::kAdd) {
        files[e.Identifier()] = {e.partition, e.bucket};
      } else {
        files.erase(e.Identifier());
      }
    };
    TRIB_RETURN_NOT_OK(ForEachEntryOf(table_path, snapshot.base_manifest_list, add));
    TRIB_RETURN_NOT_OK(ForEachEntryOf(table_path, snapshot.delta_manifest_list, add));
    for (auto& [id, bucket] : files) buckets.insert(std::move(bucket));
  }
  LiveLayout out;
  out.buckets = static_cast<int64_t>(buckets.size());
  for (const auto& b : buckets) out.partitions.insert(b.first);
  return out;
}

Result<std::vector<meta::IndexManifestEntry>> ReadLiveIndexEntries(const std::string& table_path,
                                                                   const meta::Snapshot& snap,
                                                                   const std::string& index_type) {
  std::vector<meta::IndexManifestEntry> out;
  if (!snap.index_manifest) return out;
  const std::string path = meta::ManifestPath(table_path, *snap.index_manifest);
  TRIB_ASSIGN_OR_RETURN(std::string bytes, io::LocalFs().ReadFile(path));
  TRIB_ASSIGN_OR_RETURN(
      auto entries, meta::DecodeIndexManifest(std::move(bytes), "index manifest '" + path + "'"));
  std::map<std::string, meta::IndexManifestEntry> live;  // by index file name
  for (auto& e : entries) {
    if (e.index_type != index_type) continue;
    if (e.kind == meta::FileKind::kDelete) {
      live.erase(e.file_name);
    } else {
      live[e.file_name] = std::move(e);
    }
  }
  for (auto& [name, e] : live) out.push_back(std::move(e));
  return out;
}

}  // namespace tributary::meta
