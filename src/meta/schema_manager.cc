#include "meta/schema_manager.h"

#include "common/json.h"
#include "io/file_system.h"
#include "meta/paths.h"

namespace tributary::meta {
namespace {

constexpr int kMaxJsonTypeDepth = 64;

// Flat types are strings; nested ones objects whose "type" carries the name and nullability:
// {"type":"ARRAY NOT NULL","element":...}, {"type":"MAP","key":...,"value":...},
// {"type":"MULTISET","element":...}, {"type":"ROW","fields":[{"id","name","type"}]}.
Json TypeToJson(const DataType& t);

// Schema fields (also a ROW type's) as Paimon writes them: id, name, type, description.
Json FieldsToJson(const std::vector<Field>& fields) {
  Json out = Json::array();
  for (const Field& f : fields) {
    Json jf = Json::object();
    jf["id"] = f.id;
    jf["name"] = f.name;
    jf["type"] = TypeToJson(f.type);
    if (!f.description.empty()) jf["description"] = f.description;
    out.push_back(jf);
  }
  return out;
}

Json TypeToJson(const DataType& t) {
  if (!t.IsNested()) return t.ToString();
  Json j = Json::object();
  std::string name = t.id == TypeId::kArray      ? "ARRAY"
                     : t.id == TypeId::kMultiset ? "MULTISET"
                     : t.id == TypeId::kMap      ? "MAP"
                                                 : "ROW";
  j["type"] = t.nullable ? name : name + " NOT NULL";
  if (t.id == TypeId::kArray || t.id == TypeId::kMultiset) {
    j["element"] = TypeToJson(t.element());
  } else if (t.id == TypeId::kMap) {
    j["key"] = TypeToJson(t.key());
    j["value"] = TypeToJson(t.value());
  } else {
    j["fields"] = FieldsToJson(t.fields());
  }
  return j;
}

Result<DataType> TypeFromJson(const Json& j, int depth);

Result<Field> FieldFromJson(const Json& jf, int depth) {
  if (!jf.is_object()) return Status::Invalid("a field is not a JSON object");
  Field f;
  f.id = jf.at("id").get<int32_t>();
  f.name = jf.at("name").get<std::string>();
  auto t = TypeFromJson(jf.at("type"), depth + 1);
  if (!t.ok()) return t.status().WithContext("field '" + f.name + "'");
  f.type = std::move(*t);
  if (jf.contains("description") && jf["description"].is_string()) {
    f.description = jf["description"].get<std::string>();
  }
  return f;
}

Result<DataType> TypeFromJson(const Json& j, int depth) {
  if (depth > kMaxJsonTypeDepth) return Status::Invalid("type nested too deeply");
  if (j.is_string()) return DataType::Parse(j.get<std::string>());
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return Status::Invalid("a type is neither a string nor an object with a \"type\"");
  }
  // "ARRAY NOT NULL": the name, then the nullability.
  std::string head = j["type"].get<std::string>();
  bool nullable = true;
  size_t space = head.find(' ');
  std::string name = head.substr(0, space);
  if (space != std::string::npos) {
    std::string rest = head.substr(space + 1);
    while (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (rest == "NOT NULL") {
      nullable = false;
    } else if (rest != "NULL") {
      return Status::Invalid("unexpected type '" + head + "'");
    }
  }
  DataType t;
  if (name == "ARRAY" || name == "MULTISET") {
    TRIB_ASSIGN_OR_RETURN(DataType e, TypeFromJson(j.at("element"), depth + 1));
    t = name == "ARRAY" ? DataType::Array(std::move(e)) : DataType::Multiset(std::move(e));
  } else if (name == "VECTOR") {
    // Paimon's fixed-length vector ({"type":"VECTOR","element":"FLOAT","length":4}): stored as
    // a Parquet LIST of its element, read here as ARRAY<element> (the length is not enforced).
    TRIB_ASSIGN_OR_RETURN(DataType e, TypeFromJson(j.at("element"), depth + 1));
    t = DataType::Array(e.WithNullable(false));
  } else if (name == "MAP") {
    TRIB_ASSIGN_OR_RETURN(DataType k, TypeFromJson(j.at("key"), depth + 1));
    TRIB_ASSIGN_OR_RETURN(DataType v, TypeFromJson(j.at("value"), depth + 1));
    t = DataType::Map(std::move(k), std::move(v));
  } else if (name == "ROW") {
    std::vector<Field> fields;
    for (const Json& jf : j.at("fields")) {
      TRIB_ASSIGN_OR_RETURN(Field f, FieldFromJson(jf, depth));
      fields.push_back(std::move(f));
    }
    t = DataType::Row(std::move(fields));
  } else {
    return Status::NotSupported("type '" + head + "' is not supported");
  }
  return t.WithNullable(nullable);
}

}  // namespace

std::string SchemaToJson(const TableSchema& s) {
  Json j = Json::object();
  j["version"] = 3;
  j["id"] = s.id;
  j["fields"] = FieldsToJson(s.fields);
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
      auto f = FieldFromJson(jf, 0);
      if (!f.ok()) {
        std::string col = jf.is_object() && jf.contains("name") && jf["name"].is_string()
                              ? jf["name"].get<std::string>()
                              : "?";
        if (f.status().code() == StatusCode::kNotSupported) {
          return Status::NotSupported(what + ": column '" + col + "': " + f.status().message());
        }
        return bad("column '" + col + "': " + f.status().message());
      }
      s.fields.push_back(std::move(*f));
    }
    s.highest_field_id = j.value("highestFieldId", -1);
    s.partition_keys = j.value("partitionKeys", std::vector<std::string>{});
    s.primary_keys = j.value("primaryKeys", std::vector<std::string>{});
    if (j.contains("options") && j["options"].is_object()) {
      for (auto it = j["options"].begin(); it != j["options"].end(); ++it) {
        s.options[it.key()] =
            it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
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

namespace {
// The lowest (`latest` false) or highest schema id in the table's schema/ folder.
Result<std::optional<int64_t>> SchemaIdBound(const std::string& table_path, bool latest) {
  auto entries = io::LocalFs().ListDir(SchemaDir(table_path));
  if (!entries.ok()) {
    if (entries.status().IsNotFound()) return std::optional<int64_t>();
    return entries.status();
  }
  std::optional<int64_t> best;
  for (const auto& e : *entries) {
    if (e.name.rfind(kSchemaPrefix, 0) != 0) continue;
    try {
      size_t used = 0;
      int64_t id = std::stoll(e.name.substr(std::string(kSchemaPrefix).size()), &used);
      if (used != e.name.size() - 7) continue;
      if (!best || (latest ? id > *best : id < *best)) best = id;
    } catch (...) {
    }
  }
  return best;
}
}  // namespace

namespace {
// Object storage: the latest schema this process found of each table, with its file's version.
// While that file is unchanged and no schema-(N+1) exists it is still the latest: two HEADs in
// flight at once instead of listing schema/ and reading the file, one after the other.
struct SchemaMemo {
  int64_t id = 0;
  std::string version;
  std::shared_ptr<const TableSchema> schema;
};
std::mutex g_schema_mu;
std::map<std::string, SchemaMemo> g_schemas;  // by table path
constexpr size_t kMaxSchemaMemos = 4096;

// The remembered latest schema of `table_path` if it still is.
Result<std::shared_ptr<const TableSchema>> RememberedLatest(const std::string& table_path) {
  std::optional<SchemaMemo> memo;
  {
    std::lock_guard<std::mutex> lock(g_schema_mu);
    auto it = g_schemas.find(table_path);
    if (it != g_schemas.end()) memo = it->second;
  }
  if (!memo) return std::shared_ptr<const TableSchema>();
  TRIB_ASSIGN_OR_RETURN(bool still, io::StillLatest(SchemaPath(table_path, memo->id), memo->version,
                                                    SchemaPath(table_path, memo->id + 1)));
  if (!still) return std::shared_ptr<const TableSchema>();
  return memo->schema;
}

void RememberSchema(const std::string& table_path, SchemaMemo memo) {
  std::lock_guard<std::mutex> lock(g_schema_mu);
  if (g_schemas.size() >= kMaxSchemaMemos && !g_schemas.count(table_path)) g_schemas.clear();
  g_schemas[table_path] = std::move(memo);
}
}  // namespace

Result<std::optional<int64_t>> SchemaManager::LatestId() const {
  if (io::IsObjectStoreUri(table_path_)) {
    TRIB_ASSIGN_OR_RETURN(auto remembered, RememberedLatest(table_path_));
    if (remembered) return std::optional<int64_t>(remembered->id);
  }
  return SchemaIdBound(table_path_, /*latest=*/true);
}

Result<std::string> TableIncarnation(const std::string& table_path) {
  // Nearly every table's first schema is schema-0 (ids count from 0): its version alone, no
  // listing (a request more on object storage). A branch made from a later schema: the listing.
  TRIB_ASSIGN_OR_RETURN(auto zero, io::LocalFs().Version(SchemaPath(table_path, 0)));
  if (zero) return "0@" + *zero;
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> first, SchemaIdBound(table_path, false));
  if (first) {
    TRIB_ASSIGN_OR_RETURN(auto version, io::LocalFs().Version(SchemaPath(table_path, *first)));
    if (version) return std::to_string(*first) + "@" + *version;
  }
  return Status::NotFound("the table at '" + table_path + "' no longer exists");
}

Result<bool> IsTableIncarnation(const std::string& table_path, const std::string& incarnation) {
  const size_t at = incarnation.find('@');
  if (at == std::string::npos) return false;
  int64_t first = 0;
  try {
    first = std::stoll(incarnation.substr(0, at));
  } catch (...) {
    return false;
  }
  // The first schema file is never removed while the table lives: the same file, still there,
  // is the same table.
  TRIB_ASSIGN_OR_RETURN(auto version, io::LocalFs().Version(SchemaPath(table_path, first)));
  return version && *version == incarnation.substr(at + 1);
}

Result<std::shared_ptr<const TableSchema>> SchemaManager::Latest() const {
  const bool remote = io::IsObjectStoreUri(table_path_);
  if (remote) {
    TRIB_ASSIGN_OR_RETURN(auto remembered, RememberedLatest(table_path_));
    if (remembered) return remembered;
  }
  TRIB_ASSIGN_OR_RETURN(auto id, SchemaIdBound(table_path_, /*latest=*/true));
  if (!id) return Status::NotFound("table '" + table_path_ + "' has no schema");
  if (!remote) return Read(*id);
  const std::string path = SchemaPath(table_path_, *id);
  TRIB_ASSIGN_OR_RETURN(auto read, io::LocalFs().ReadFileVersioned(path));
  TRIB_ASSIGN_OR_RETURN(TableSchema s, SchemaFromJson(read.first, path));
  auto schema = std::make_shared<const TableSchema>(std::move(s));
  if (read.second) RememberSchema(table_path_, SchemaMemo{*id, *read.second, schema});
  return schema;
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

Result<const std::vector<Field>*> FileSchemas::FieldsOf(int64_t schema_id) {
  if (schema_id == read_schema_id_) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);  // splits may be read in parallel
  auto it = schemas_.find(schema_id);
  if (it == schemas_.end()) {
    TRIB_ASSIGN_OR_RETURN(auto s, SchemaManager(meta_path_).Read(schema_id));
    it = schemas_.emplace(schema_id, std::move(s)).first;
  }
  return &it->second->fields;
}

}  // namespace tributary::meta
