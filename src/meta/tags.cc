#include "meta/tags.h"

#include <algorithm>
#include <cctype>

#include "common/json.h"
#include "common/path_names.h"
#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {

namespace {}  // namespace

Result<std::vector<std::string>> ListTags(const std::string& table_path) {
  auto entries = io::LocalFs().ListDir(TagDir(table_path));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::vector<std::string>{};
    return entries.status();
  }
  std::vector<std::string> names;
  for (const auto& e : *entries) {
    if (!e.is_dir && e.name.rfind(kTagPrefix, 0) == 0) {
      names.push_back(e.name.substr(std::string(kTagPrefix).size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::shared_ptr<const Snapshot>> ReadTag(const std::string& table_path,
                                                const std::string& name, std::string* create_time) {
  TRIB_RETURN_NOT_OK(CheckTagName(name));
  const std::string path = TagPath(table_path, name);
  auto text = io::LocalFs().ReadFile(path);
  if (!text.ok()) {
    if (!text.status().IsNotFound()) return text.status();
    TRIB_ASSIGN_OR_RETURN(auto tags, ListTags(table_path));
    std::string list;
    for (const auto& t : tags) list += (list.empty() ? "" : ", ") + t;
    return Status::NotFound(
        "tag '" + name + "' does not exist (" +
        (tags.empty() ? std::string("the table has no tags") : "tags: " + list) + ")");
  }
  TRIB_ASSIGN_OR_RETURN(Snapshot s, SnapshotFromJson(*text, "tag file '" + path + "'"));
  if (create_time) {
    create_time->clear();
    TRIB_ASSIGN_OR_RETURN(Json j, ParseJson(*text, "tag file '" + path + "'"));
    auto it = j.find("tagCreateTime");
    if (it != j.end() && it->is_string()) *create_time = it->get<std::string>();
  }
  return std::make_shared<const Snapshot>(std::move(s));
}

Status CreateTag(const std::string& table_path, const std::string& name, const Snapshot& snapshot,
                 const std::string& create_time) {
  TRIB_RETURN_NOT_OK(CheckTagName(name));
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(TagDir(table_path)));
  // The snapshot's JSON with the tag's fields added (Paimon's Tag: tagCreateTime,
  // tagTimeRetained; no retention here).
  TRIB_ASSIGN_OR_RETURN(Json j, ParseJson(SnapshotToJson(snapshot), "snapshot"));
  j["tagCreateTime"] = create_time;
  const std::string json = ToPaimonJson(j);
  TRIB_ASSIGN_OR_RETURN(bool created,
                        io::LocalFs().WriteFileIfAbsent(TagPath(table_path, name), json));
  if (!created) return Status::AlreadyExists("tag '" + name + "' already exists");
  return Status::OK();
}

Status DeleteTag(const std::string& table_path, const std::string& name) {
  TRIB_RETURN_NOT_OK(CheckTagName(name));
  const std::string path = TagPath(table_path, name);
  TRIB_ASSIGN_OR_RETURN(bool exists, io::LocalFs().Exists(path));
  if (!exists) return Status::NotFound("tag '" + name + "' does not exist");
  TRIB_RETURN_NOT_OK(io::LocalFs().Remove(path));
  TRIB_ASSIGN_OR_RETURN(auto left, ListTags(table_path));
  if (left.empty()) {
    // No tag holds files any more: snapshot expiration may run again.
    auto entries = io::LocalFs().ListDir(TagDir(table_path));
    if (entries.ok() && entries->empty()) (void)io::LocalFs().RemoveAll(TagDir(table_path));
  }
  return Status::OK();
}

}  // namespace tributary::meta
