#include "meta/snapshot.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <utility>

#include "common/json.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "meta/paths.h"
#include "meta/snapshot_reader.h"

namespace tributary::meta {

const char* CommitKindName(CommitKind k) {
  switch (k) {
    case CommitKind::kAppend:
      return "APPEND";
    case CommitKind::kCompact:
      return "COMPACT";
    case CommitKind::kOverwrite:
      return "OVERWRITE";
    case CommitKind::kAnalyze:
      return "ANALYZE";
  }
  return "APPEND";
}

std::string SnapshotToJson(const Snapshot& s) {
  Json j = Json::object();
  j["version"] = 3;
  j["id"] = s.id;
  j["schemaId"] = s.schema_id;
  j["baseManifestList"] = s.base_manifest_list;
  j["baseManifestListSize"] = s.base_manifest_list_size;
  j["deltaManifestList"] = s.delta_manifest_list;
  j["deltaManifestListSize"] = s.delta_manifest_list_size;
  if (s.changelog_manifest_list) {
    j["changelogManifestList"] = *s.changelog_manifest_list;
    if (s.changelog_manifest_list_size) {
      j["changelogManifestListSize"] = *s.changelog_manifest_list_size;
    }
  }
  if (s.index_manifest) j["indexManifest"] = *s.index_manifest;
  j["commitUser"] = s.commit_user;
  j["commitIdentifier"] = s.commit_identifier;
  j["commitKind"] = CommitKindName(s.commit_kind);
  j["timeMillis"] = s.time_millis;
  if (s.total_record_count) j["totalRecordCount"] = *s.total_record_count;
  if (s.delta_record_count) j["deltaRecordCount"] = *s.delta_record_count;
  if (s.changelog_record_count) j["changelogRecordCount"] = *s.changelog_record_count;
  if (s.watermark) j["watermark"] = *s.watermark;
  if (!s.properties.empty()) {
    Json props = Json::object();
    for (const auto& [k, v] : s.properties) props[k] = v;
    j["properties"] = std::move(props);
  }
  if (s.next_row_id) j["nextRowId"] = *s.next_row_id;
  return ToPaimonJson(j);
}

Result<Snapshot> SnapshotFromJson(std::string_view text, const std::string& what) {
  TRIB_ASSIGN_OR_RETURN(Json j, ParseJson(text, what));
  if (!j.is_object()) return Status::Corruption(what + ": not a JSON object");
  Snapshot s;
  try {
    auto opt_long = [&](const char* k) -> std::optional<int64_t> {
      if (!j.contains(k) || j[k].is_null()) return std::nullopt;
      return j[k].get<int64_t>();
    };
    auto opt_str = [&](const char* k) -> std::optional<std::string> {
      if (!j.contains(k) || j[k].is_null()) return std::nullopt;
      return j[k].get<std::string>();
    };
    s.id = j.at("id").get<int64_t>();
    s.schema_id = j.at("schemaId").get<int64_t>();
    s.base_manifest_list = j.at("baseManifestList").get<std::string>();
    s.base_manifest_list_size = opt_long("baseManifestListSize").value_or(0);
    s.delta_manifest_list = j.at("deltaManifestList").get<std::string>();
    s.delta_manifest_list_size = opt_long("deltaManifestListSize").value_or(0);
    s.changelog_manifest_list = opt_str("changelogManifestList");
    s.changelog_manifest_list_size = opt_long("changelogManifestListSize");
    s.index_manifest = opt_str("indexManifest");
    s.commit_user = opt_str("commitUser").value_or("");
    s.commit_identifier = opt_long("commitIdentifier").value_or(0);
    std::string kind = opt_str("commitKind").value_or("APPEND");
    s.commit_kind = kind == "COMPACT"     ? CommitKind::kCompact
                    : kind == "OVERWRITE" ? CommitKind::kOverwrite
                    : kind == "ANALYZE"   ? CommitKind::kAnalyze
                                          : CommitKind::kAppend;
    s.time_millis = opt_long("timeMillis").value_or(0);
    s.total_record_count = opt_long("totalRecordCount");
    s.delta_record_count = opt_long("deltaRecordCount");
    s.changelog_record_count = opt_long("changelogRecordCount");
    s.watermark = opt_long("watermark");
    s.next_row_id = opt_long("nextRowId");
    if (j.contains("properties") && j["properties"].is_object()) {
      for (auto it = j["properties"].begin(); it != j["properties"].end(); ++it) {
        if (it.value().is_string()) s.properties[it.key()] = it.value().get<std::string>();
      }
    }
  } catch (const std::exception& e) {
    return Status::Corruption(what + ": unexpected content: " + e.what());
  }
  TRIB_RETURN_NOT_OK(CheckFileName(s.base_manifest_list, what));
  TRIB_RETURN_NOT_OK(CheckFileName(s.delta_manifest_list, what));
  if (s.changelog_manifest_list)
    TRIB_RETURN_NOT_OK(CheckFileName(*s.changelog_manifest_list, what));
  if (s.index_manifest) TRIB_RETURN_NOT_OK(CheckFileName(*s.index_manifest, what));
  return s;
}

namespace {
std::optional<int64_t> ParseId(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  if (rest.empty() || rest.size() > 18) return std::nullopt;
  for (char c : rest) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoll(rest);
}

std::optional<int64_t> ReadHint(const std::string& path) {
  auto text = io::LocalFs().ReadFile(path);
  if (!text.ok()) return std::nullopt;
  std::string s = *text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return ParseId(s, "");
}

// ReadHint through the process-wide cache, keyed by the hint file's version (a new hint is a
// new file): a stat instead of an open, a read and a close for every scan that plans the latest
// snapshot.
std::optional<int64_t> ReadHintCached(const std::string& path) {
  // On object storage a version costs a request as the read does: read it.
  if (io::IsObjectStoreUri(path)) return ReadHint(path);
  auto version = io::LocalFs().Version(path);
  if (!version.ok() || !*version) return std::nullopt;
  using T = std::optional<int64_t>;
  auto cached = io::FileCache::Instance().GetOrLoad<T>(
      "hint:" + path + "@" + **version, [&]() -> Result<std::pair<T, int64_t>> {
        return std::make_pair(ReadHint(path), int64_t{64});
      });
  if (!cached.ok()) return std::nullopt;
  return **cached;
}
}  // namespace

namespace {
// The ids of the files `prefix`<id> in `dir`, ascending (none when it does not exist).
Result<std::vector<int64_t>> ListIdsIn(const std::string& dir, const std::string& prefix) {
  auto entries = io::LocalFs().ListDir(dir);
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<int64_t>{};
    return entries.status();
  }
  std::vector<int64_t> ids;
  for (const auto& e : *entries) {
    if (auto id = ParseId(e.name, prefix)) ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}
}  // namespace

Result<std::vector<int64_t>> SnapshotManager::ListIds() const {
  return ListIdsIn(SnapshotDir(table_path_), kSnapshotPrefix);
}

Result<std::optional<int64_t>> SnapshotManager::LatestId() const {
  std::string dir = SnapshotDir(table_path_);
  if (io::IsObjectStoreUri(dir)) {
    // The remembered latest, checked in one round trip (meta/snapshot_reader.h).
    TRIB_ASSIGN_OR_RETURN(auto latest, ReadLatestSnapshotCached(table_path_));
    if (!latest) return std::optional<int64_t>();
    return std::optional<int64_t>(latest->id);
  }
  if (auto hint = ReadHintCached(LatestHintPath(dir))) {
    TRIB_ASSIGN_OR_RETURN(bool here, io::LocalFs().FileExists(SnapshotPath(table_path_, *hint)));
    TRIB_ASSIGN_OR_RETURN(bool next,
                          io::LocalFs().FileExists(SnapshotPath(table_path_, *hint + 1)));
    if (here && !next) return std::optional<int64_t>(*hint);
  }
  TRIB_ASSIGN_OR_RETURN(auto ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Result<std::shared_ptr<const Snapshot>> SnapshotManager::Latest() const {
  if (io::IsObjectStoreUri(table_path_)) return ReadLatestSnapshotCached(table_path_);
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> id, LatestId());
  if (!id) return std::shared_ptr<const Snapshot>();
  return Read(*id);
}

std::optional<int64_t> SnapshotManager::LatestHint() const {
  return ReadHintCached(LatestHintPath(SnapshotDir(table_path_)));
}

Result<std::optional<int64_t>> SnapshotManager::HintedLatestId() const {
  if (auto hint = ReadHintCached(LatestHintPath(SnapshotDir(table_path_)))) {
    TRIB_ASSIGN_OR_RETURN(bool next,
                          io::LocalFs().FileExists(SnapshotPath(table_path_, *hint + 1)));
    if (!next) return std::optional<int64_t>(*hint);
  }
  return std::optional<int64_t>();
}

Result<std::optional<int64_t>> SnapshotManager::EarliestId() const {
  // The EARLIEST hint, checked (its snapshot exists, the one before it does not: snapshots go
  // oldest first, so none is older), as Paimon finds it: no listing, which costs most on object
  // storage. A hint that does not hold: the listing.
  if (auto hint = ReadHint(EarliestHintPath(SnapshotDir(table_path_)))) {
    TRIB_ASSIGN_OR_RETURN(bool here, io::LocalFs().FileExists(SnapshotPath(table_path_, *hint)));
    bool older = false;
    if (here && *hint > 1) {
      TRIB_ASSIGN_OR_RETURN(older, io::LocalFs().FileExists(SnapshotPath(table_path_, *hint - 1)));
    }
    if (here && !older) return std::optional<int64_t>(*hint);
  }
  TRIB_ASSIGN_OR_RETURN(auto ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.front());
}

namespace {
// The snapshot JSON at `path` (a snapshot or a long-lived changelog: `what` and `id` name it when
// it does not exist).
Result<std::shared_ptr<const Snapshot>> ReadSnapshotFile(const std::string& path, const char* what,
                                                         int64_t id) {
  auto text = io::LocalFs().ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound()) {
      return Status::NotFound(std::string(what) + " " + std::to_string(id) + " does not exist");
    }
    return text.status();
  }
  TRIB_ASSIGN_OR_RETURN(Snapshot s, SnapshotFromJson(*text, path));
  return std::make_shared<const Snapshot>(std::move(s));
}
}  // namespace

Result<std::shared_ptr<const Snapshot>> SnapshotManager::Read(int64_t id) const {
  return ReadSnapshotFile(SnapshotPath(table_path_, id), "snapshot", id);
}

namespace {

struct Publications {
  std::mutex mu;
  std::condition_variable published;
  std::map<std::string, uint64_t> generations;  // by table path
  std::map<std::string, int64_t> followers;     // by table path (FollowingTable)
};
Publications& ThePublications() {
  static Publications* p = new Publications();  // (never destroyed: readers may outlive main)
  return *p;
}

void NotePublished(const std::string& table_path) {
  Publications& p = ThePublications();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    // Bounded (tables made and dropped under new names): a fresh start wakes every waiter once,
    // and each looks once.
    if (p.generations.size() >= 4096 && !p.generations.count(table_path)) p.generations.clear();
    p.generations[table_path]++;
  }
  p.published.notify_all();
}

}  // namespace

uint64_t PublishedGeneration(const std::string& table_path) {
  Publications& p = ThePublications();
  std::lock_guard<std::mutex> lock(p.mu);
  auto it = p.generations.find(table_path);
  return it == p.generations.end() ? 0 : it->second;
}

void WaitForPublished(const std::string& table_path, uint64_t seen,
                      std::chrono::steady_clock::time_point deadline) {
  Publications& p = ThePublications();
  std::unique_lock<std::mutex> lock(p.mu);
  p.published.wait_until(lock, deadline, [&] {
    auto it = p.generations.find(table_path);
    return (it == p.generations.end() ? 0 : it->second) != seen;
  });
}

FollowingTable::FollowingTable(std::string table_path) : table_path_(std::move(table_path)) {
  Publications& p = ThePublications();
  std::lock_guard<std::mutex> lock(p.mu);
  p.followers[table_path_]++;
}

FollowingTable::~FollowingTable() {
  Publications& p = ThePublications();
  std::lock_guard<std::mutex> lock(p.mu);
  auto it = p.followers.find(table_path_);
  if (it != p.followers.end() && --it->second <= 0) p.followers.erase(it);
}

bool IsFollowed(const std::string& table_path) {
  Publications& p = ThePublications();
  std::lock_guard<std::mutex> lock(p.mu);
  return p.followers.count(table_path) > 0;
}

Result<bool> SnapshotManager::TryCommit(const Snapshot& s) const {
  std::string dir = SnapshotDir(table_path_);
  // (Object storage has no directories to make again: the commit's incarnation checks guard it.)
  bool have_dir = io::IsObjectStoreUri(dir);
  if (!have_dir) {
    TRIB_ASSIGN_OR_RETURN(have_dir, io::LocalFs().Exists(dir));
  }
  if (!have_dir) {
    // The first snapshot: never into a table directory that holds no table (dropped under a
    // writer), which MakeDirs would make again.
    TRIB_ASSIGN_OR_RETURN(bool have_schema, io::LocalFs().Exists(SchemaDir(table_path_)));
    if (!have_schema) {
      return Status::NotFound("the table at '" + table_path_ + "' no longer exists");
    }
    TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir));
  }
  io::CrashPoint("commit.before-snapshot");
  TRIB_ASSIGN_OR_RETURN(bool won, io::LocalFs().WriteFileIfAbsent(SnapshotPath(table_path_, s.id),
                                                                  SnapshotToJson(s)));
  if (!won) return false;
  io::CrashPoint("commit.after-snapshot");
  // Hints are best effort: readers verify them.
  (void)io::WriteHintFile(LatestHintPath(dir), std::to_string(s.id));
  if (s.id == 1 || !ReadHint(EarliestHintPath(dir))) {
    (void)io::WriteHintFile(EarliestHintPath(dir), std::to_string(s.id));
  }
  NotePublished(table_path_);
  return true;
}

Result<std::vector<int64_t>> ListLongLivedChangelogIds(const std::string& table_path) {
  const std::string dir = ChangelogDir(table_path);
  // On object storage, where a listing costs most, a table that never kept a changelog beyond
  // its snapshots has no LATEST hint in changelog/ (WriteLongLivedChangelog writes it before
  // any snapshot the changelog replaces goes): one HEAD instead of a LIST.
  if (io::IsObjectStoreUri(dir)) {
    TRIB_ASSIGN_OR_RETURN(bool kept, io::LocalFs().FileExists(LatestHintPath(dir)));
    if (!kept) return std::vector<int64_t>{};
  }
  return ListIdsIn(dir, kChangelogPrefix);
}

Result<std::shared_ptr<const Snapshot>> ReadLongLivedChangelog(const std::string& table_path,
                                                               int64_t id) {
  return ReadSnapshotFile(LongLivedChangelogPath(table_path, id), "changelog", id);
}

Status WriteLongLivedChangelog(const std::string& table_path, const Snapshot& s) {
  const std::string dir = ChangelogDir(table_path);
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir));
  TRIB_RETURN_NOT_OK(
      io::LocalFs().WriteFile(LongLivedChangelogPath(table_path, s.id), SnapshotToJson(s)));
  Status hint = io::WriteHintFile(LatestHintPath(dir), std::to_string(s.id));
  // On object storage the hint says long-lived changelogs exist (ListLongLivedChangelogIds):
  // without it the snapshot must not go yet (the expiration fails and is tried again).
  if (!hint.ok() && io::IsObjectStoreUri(dir)) return hint;
  return Status::OK();
}

Result<std::shared_ptr<const Snapshot>> ReadSnapshotOrChangelog(const std::string& table_path,
                                                                int64_t id) {
  auto s = SnapshotManager(table_path).Read(id);
  if (s.ok() || !s.status().IsNotFound()) return s;
  auto c = ReadLongLivedChangelog(table_path, id);
  if (c.ok() || !c.status().IsNotFound()) return c;
  return s.status();
}

}  // namespace tributary::meta
