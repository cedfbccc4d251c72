#include "meta/schema_manager.h"

#include "common/json.h"
#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {
namespace {

Json TypeToJson(const DataType& t) { return t.ToString(); }

}  // namespace

std::string SchemaToJson(const TableSchema& s) {
  Json j = Json::object();
  j["version"] = 3;
  j["id"] = s.id;
  Json fields = Json::array();
  for (const auto& f : s.fields) {
    Json jf = Json::object();
    jf["id"] = f.id;
    jf["name"] = f.name;
    jf["type"] = TypeToJson(f.type);
    if (!f.description.empty()) jf["description"] = f.description;
    fields.push_back(jf);
  }
  j["fields"] = fields;
  j["highestFieldId"] = s.highest_field_id;
  j["partitionKeys"] = s.partition_keys;
  j["primaryKeys"] = s.primary_keys;
  Json opts = Json::object();
  for (const auto& [k, v] : s.options) opts[k] = v;
  j["options"] = opts;
  if (!s.comment.empty()) j["comment"] = s.comment;
  j["timeMillis"] = s.time_millis;
  return ToPaimonJson(j);
}

Result<TableSchema> SchemaFromJson(std::string_view text, const std::string& what) {
  TRIB_ASSIGN_OR_RETURN(Json j, ParseJson(text, what));
  auto bad = [&](const std::string& m) { return Status::Corruption(what + ": " + m); };
  if (!j.is_object()) return bad("not a JSON object");
  TableSchema s;
  try {
    int version = j.value("version", 1);
    s.id = j.at("id").get<int64_t>();
    for (const auto& jf : j.at("fields")) {
      Field f;
      f.id = jf.at("id").get<int32_t>();
      f.name = jf.at("name").get<std::string>();
      const Json& jt = jf.at("type");
      if (!jt.is_string()) {
        return Status::NotSupported(what + ": column '" + f.name +
                                    "' has a nested type (ARRAY/MAP/ROW), not supported yet");
      }
      auto t = DataType::Parse(jt.get<std::string>());
      if (!t.ok()) return bad("column '" + f.name + "': " + t.status().message());
      f.type = *t;
      if (jf.contains("description") && jf["description"].is_string()) {
        f.description = jf["description"].get<std::string>();
      }
      s.fields.push_back(std::move(f));
    }
    s.highest_field_id = j.value("highestFieldId", -1);
    s.partition_keys = j.value("partitionKeys", std::vector<std::string>{});
    s.primary_keys = j.value("primaryKeys", std::vector<std::string>{});
    if (j.contains("options") && j["options"].is_object()) {
      for (auto it = j["options"].begin(); it != j["options"].end(); ++it) {
        s.options[it.key()] = it.value().is_string() ? it.value().get<std::string>()
                                                     : it.value().dump();
      }
    }
    if (j.contains("comment") && j["comment"].is_string()) s.comment = j["comment"];
    s.time_millis = j.value("timeMillis", int64_t{0});
    // Compatibility rules of Paimon's schema spec.
    if (version <= 1 && !s.options.count("bucket")) s.options["bucket"] = "1";
    if (version <= 2 && !s.options.count("file.format")) s.options["file.format"] = "orc";
  } catch (const std::exception& e) {
    return bad(std::string("unexpected content: ") + e.what());
  }
  return s;
}

Result<std::optional<int64_t>> SchemaManager::LatestId() const {
  auto entries = io::LocalFs().ListDir(SchemaDir(table_path_));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::optional<int64_t>();
    return entries.status();
  }
  std::optional<int64_t> best;
  for (const auto& e : *entries) {
    if (e.name.rfind("schema-", 0) != 0) continue;
    try {
      size_t used = 0;
      int64_t id = std::stoll(e.name.substr(7), &used);
      if (used != e.name.size() - 7) continue;
      if (!best || id > *best) best = id;
    } catch (...) {
    }
  }
  return best;
}

Result<std::shared_ptr<const TableSchema>> SchemaManager::Latest() const {
  TRIB_ASSIGN_OR_RETURN(auto id, LatestId());
  if (!id) return Status::NotFound("table '" + table_path_ + "' has no schema");
  return Read(*id);
}

Result<std::shared_ptr<const TableSchema>> SchemaManager::Read(int64_t id) const {
  std::string path = SchemaPath(table_path_, id);
  TRIB_ASSIGN_OR_RETURN(std::string text, io::LocalFs().ReadFile(path));
  TRIB_ASSIGN_OR_RETURN(TableSchema s, SchemaFromJson(text, path));
  return std::make_shared<const TableSchema>(std::move(s));
}

Result<bool> SchemaManager::Commit(const TableSchema& schema) const {
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(SchemaDir(table_path_)));
  return io::LocalFs().WriteFileIfAbsent(SchemaPath(table_path_, schema.id), SchemaToJson(schema));
}

}  // namespace tributary::meta
