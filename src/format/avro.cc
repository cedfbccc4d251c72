// Avro schemas: parsing schema JSON, writing it back, and the codec names.
#include "format/avro.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/json.h"

namespace tributary::avro {
namespace {

using Json = nlohmann::ordered_json;

bool PrimitiveFromName(std::string_view name, Type* type) {
  static constexpr std::pair<std::string_view, Type> kPrimitives[] = {
      {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},
      {"long", Type::kLong},   {"float", Type::kFloat},     {"double", Type::kDouble},
      {"bytes", Type::kBytes}, {"string", Type::kString},
  };
  for (const auto& [n, t] : kPrimitives) {
    if (n == name) {
      *type = t;
      return true;
    }
  }
  return false;
}

const char* TypeName(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return "boolean";
    case Type::kInt:
      return "int";
    case Type::kLong:
      return "long";
    case Type::kFloat:
      return "float";
    case Type::kDouble:
      return "double";
    case Type::kBytes:
      return "bytes";
    case Type::kString:
      return "string";
    case Type::kRecord:
      return "record";
    case Type::kEnum:
      return "enum";
    case Type::kArray:
      return "array";
    case Type::kMap:
      return "map";
    case Type::kUnion:
      return "union";
    case Type::kFixed:
      return "fixed";
  }
  return "unknown";
}

}  // namespace

int64_t MinEncodedSize(const Schema& s) {
  switch (s.type) {
    case Type::kNull:
      return 0;
    case Type::kFloat:
      return 4;
    case Type::kDouble:
      return 8;
    case Type::kFixed:
      return s.fixed_size;
    case Type::kRecord:
      return s.record_min_size;
    default:
      return 1;
  }
}

namespace {

// Parses schema JSON into Schema trees, resolving named-type references. Named types are
// registered once fully parsed, so recursive types are rejected (Paimon never writes them).
class SchemaParser {
 public:
  Result<SchemaPtr> Parse(const Json& j, const std::string& enclosing_ns) {
    if (++depth_ > kMaxDepth) return Status::Invalid("avro schema: nested too deeply");
    Result<SchemaPtr> result = ParseImpl(j, enclosing_ns);
    --depth_;
    // References to named types nest without nesting the JSON: their depth counts too.
    if (result.ok() && (*result)->depth > kMaxDepth) {
      return Status::Invalid("avro schema: nested too deeply (more than " +
                             std::to_string(kMaxDepth) + " levels)");
    }
    return result;
  }

 private:
  static constexpr int kMaxDepth = 200;

  Result<SchemaPtr> ParseImpl(const Json& j, const std::string& ns) {
    if (j.is_string()) return ParseName(j.get_ref<const std::string&>(), ns);
    if (j.is_array()) return ParseUnion(j, ns);
    if (!j.is_object()) return Status::Invalid("avro schema: expected a string, array or object");
    auto type_it = j.find("type");
    if (type_it == j.end()) return Status::Invalid("avro schema: object without \"type\"");
    if (!type_it->is_string()) return Parse(*type_it, ns);  // {"type": {...}} or {"type": [...]}
    const std::string& type_name = type_it->get_ref<const std::string&>();
    auto schema = std::make_shared<Schema>();
    if (PrimitiveFromName(type_name, &schema->type)) {
      TRIB_RETURN_NOT_OK(ParseLogicalType(j, schema.get()));
      return SchemaPtr(std::move(schema));
    }
    if (type_name == "array") {
      schema->type = Type::kArray;
      auto items = j.find("items");
      if (items == j.end()) return Status::Invalid("avro schema: array without \"items\"");
      TRIB_ASSIGN_OR_RETURN(schema->items, Parse(*items, ns));
      schema->depth = 1 + schema->items->depth;
      TRIB_RETURN_NOT_OK(ParseLogicalType(j, schema.get()));  // Paimon's "map" arrays
      return SchemaPtr(std::move(schema));
    }
    if (type_name == "map") {
      schema->type = Type::kMap;
      auto values = j.find("values");
      if (values == j.end()) return Status::Invalid("avro schema: map without \"values\"");
      TRIB_ASSIGN_OR_RETURN(schema->values, Parse(*values, ns));
      schema->depth = 1 + schema->values->depth;
      return SchemaPtr(std::move(schema));
    }
    if (type_name == "record" || type_name == "error") {
      schema->type = Type::kRecord;
    } else if (type_name == "enum") {
      schema->type = Type::kEnum;
    } else if (type_name == "fixed") {
      schema->type = Type::kFixed;
    } else {
      // {"type": "SomeNamedType"} refers to a named type.
      return ParseName(type_name, ns);
    }
    std::string own_ns;
    TRIB_RETURN_NOT_OK(ParseFullName(j, ns, &schema->name, &own_ns));
    if (names_.count(schema->name) > 0 || in_progress_.count(schema->name) > 0) {
      return Status::Invalid("avro schema: type '" + schema->name + "' defined twice");
    }
    in_progress_.insert(schema->name);
    switch (schema->type) {
      case Type::kRecord:
        TRIB_RETURN_NOT_OK(ParseFields(j, own_ns, schema.get()));
        for (const SchemaField& f : schema->fields) {
          schema->depth = std::max(schema->depth, 1 + f.schema->depth);
          schema->record_min_size =
              std::min<int64_t>(1024, schema->record_min_size + MinEncodedSize(*f.schema));
        }
        break;
      case Type::kEnum:
        TRIB_RETURN_NOT_OK(ParseSymbols(j, schema.get()));
        break;
      default: {
        auto size = j.find("size");
        if (size == j.end() || !size->is_number_unsigned() || size->get<uint64_t>() > INT32_MAX) {
          return Status::Invalid("avro schema: fixed '" + schema->name + "' needs a valid size");
        }
        schema->fixed_size = static_cast<int32_t>(size->get<uint64_t>());
        TRIB_RETURN_NOT_OK(ParseLogicalType(j, schema.get()));
      }
    }
    in_progress_.erase(schema->name);
    names_[schema->name] = schema;
    return SchemaPtr(std::move(schema));
  }

  Result<SchemaPtr> ParseName(const std::string& name, const std::string& ns) {
    auto schema = std::make_shared<Schema>();
    if (PrimitiveFromName(name, &schema->type)) return SchemaPtr(std::move(schema));
    std::vector<std::string> candidates;
    if (name.find('.') == std::string::npos && !ns.empty()) candidates.push_back(ns + "." + name);
    candidates.push_back(name);
    for (const std::string& candidate : candidates) {
      auto it = names_.find(candidate);
      if (it != names_.end()) return it->second;
      if (in_progress_.count(candidate) > 0) {
        return Status::NotSupported("avro schema: recursive type '" + candidate + "'");
      }
    }
    return Status::Invalid("avro schema: unknown type '" + name + "'");
  }

  Result<SchemaPtr> ParseUnion(const Json& j, const std::string& ns) {
    auto schema = std::make_shared<Schema>();
    schema->type = Type::kUnion;
    for (const Json& branch : j) {
      TRIB_ASSIGN_OR_RETURN(SchemaPtr b, Parse(branch, ns));
      if (b->type == Type::kUnion) return Status::Invalid("avro schema: union inside a union");
      schema->depth = std::max(schema->depth, 1 + b->depth);
      schema->branches.push_back(std::move(b));
    }
    if (schema->branches.empty()) return Status::Invalid("avro schema: empty union");
    return SchemaPtr(std::move(schema));
  }

  static Status ParseFullName(const Json& j, const std::string& enclosing_ns,
                              std::string* full_name, std::string* own_ns) {
    auto name = j.find("name");
    if (name == j.end() || !name->is_string() || name->get_ref<const std::string&>().empty()) {
      return Status::Invalid("avro schema: named type without a \"name\"");
    }
    const std::string& n = name->get_ref<const std::string&>();
    const size_t dot = n.rfind('.');
    if (dot != std::string::npos) {
      *own_ns = n.substr(0, dot);
      *full_name = n;
      return Status::OK();
    }
    *own_ns = enclosing_ns;
    auto ns = j.find("namespace");
    if (ns != j.end()) {
      if (!ns->is_string() && !ns->is_null()) {
        return Status::Invalid("avro schema: \"namespace\" of '" + n + "' is not a string");
      }
      *own_ns = ns->is_string() ? ns->get<std::string>() : "";
    }
    *full_name = own_ns->empty() ? n : *own_ns + "." + n;
    return Status::OK();
  }

  Status ParseFields(const Json& j, const std::string& ns, Schema* schema) {
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return Status::Invalid("avro schema: record '" + schema->name + "' without \"fields\"");
    }
    std::set<std::string> seen;
    for (const Json& f : *fields) {
      if (!f.is_object()) return Status::Invalid("avro schema: a field is not an object");
      auto name = f.find("name");
      auto type = f.find("type");
      if (name == f.end() || !name->is_string() || type == f.end()) {
        return Status::Invalid("avro schema: field of '" + schema->name +
                               "' without \"name\" or \"type\"");
      }
      SchemaField field;
      field.name = name->get<std::string>();
      if (!seen.insert(field.name).second) {
        return Status::Invalid("avro schema: duplicate field '" + field.name + "'");
      }
      TRIB_ASSIGN_OR_RETURN(field.schema, Parse(*type, ns));
      auto doc = f.find("doc");
      if (doc != f.end() && doc->is_string()) field.doc = doc->get<std::string>();
      auto def = f.find("default");
      if (def != f.end()) field.default_json = def->dump();
      schema->fields.push_back(std::move(field));
    }
    return Status::OK();
  }

  static Status ParseSymbols(const Json& j, Schema* schema) {
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) {
      return Status::Invalid("avro schema: enum '" + schema->name + "' without \"symbols\"");
    }
    for (const Json& s : *symbols) {
      if (!s.is_string()) return Status::Invalid("avro schema: enum symbol is not a string");
      schema->symbols.push_back(s.get<std::string>());
    }
    return Status::OK();
  }

  // Unknown or malformed logical types are ignored, as the specification asks.
  static Status ParseLogicalType(const Json& j, Schema* schema) {
    auto logical = j.find("logicalType");
    if (logical == j.end() || !logical->is_string()) return Status::OK();
    schema->logical_type = logical->get<std::string>();
    if (schema->logical_type == "decimal") {
      auto precision = j.find("precision");
      auto scale = j.find("scale");
      if (precision == j.end() || !precision->is_number_integer() ||
          precision->get<int64_t>() <= 0 || precision->get<int64_t>() > INT32_MAX) {
        schema->logical_type.clear();
        return Status::OK();
      }
      schema->precision = static_cast<int32_t>(precision->get<int64_t>());
      if (scale != j.end() && scale->is_number_integer() && scale->get<int64_t>() >= 0 &&
          scale->get<int64_t>() <= schema->precision) {
        schema->scale = static_cast<int32_t>(scale->get<int64_t>());
      }
    }
    return Status::OK();
  }

  std::map<std::string, SchemaPtr> names_;
  std::set<std::string> in_progress_;
  int depth_ = 0;
};

void AddLogicalType(const Schema& schema, Json* j) {
  if (schema.logical_type.empty()) return;
  (*j)["logicalType"] = schema.logical_type;
  if (schema.logical_type == "decimal") {
    (*j)["precision"] = schema.precision;
    (*j)["scale"] = schema.scale;
  }
}

// Named types are written in full once, then referred to by full name.
Json ToJson(const Schema& schema, std::set<std::string>* defined) {
  switch (schema.type) {
    case Type::kRecord:
    case Type::kEnum:
    case Type::kFixed: {
      if (!defined->insert(schema.name).second) return Json(schema.name);
      Json j = Json::object();
      j["type"] = TypeName(schema.type);
      j["name"] = schema.name;
      if (schema.type == Type::kRecord) {
        Json fields = Json::array();
        for (const SchemaField& f : schema.fields) {
          Json field = Json::object();
          field["name"] = f.name;
          field["type"] = ToJson(*f.schema, defined);
          if (!f.default_json.empty()) {
            Json def = Json::parse(f.default_json, nullptr, /*allow_exceptions=*/false);
            if (!def.is_discarded()) field["default"] = std::move(def);
          }
          fields.push_back(std::move(field));
        }
        j["fields"] = std::move(fields);
      } else if (schema.type == Type::kEnum) {
        j["symbols"] = schema.symbols;
      } else {
        j["size"] = schema.fixed_size;
        AddLogicalType(schema, &j);
      }
      return j;
    }
    case Type::kArray: {
      Json j = Json::object();
      j["type"] = "array";
      j["items"] = ToJson(*schema.items, defined);
      AddLogicalType(schema, &j);  // Paimon's "map" on arrays of key/value records
      return j;
    }
    case Type::kMap: {
      Json j = Json::object();
      j["type"] = "map";
      j["values"] = ToJson(*schema.values, defined);
      return j;
    }
    case Type::kUnion: {
      Json j = Json::array();
      for (const SchemaPtr& b : schema.branches) j.push_back(ToJson(*b, defined));
      return j;
    }
    default: {
      if (schema.logical_type.empty()) return Json(TypeName(schema.type));
      Json j = Json::object();
      j["type"] = TypeName(schema.type);
      AddLogicalType(schema, &j);
      return j;
    }
  }
}

}  // namespace

int Schema::FieldIndex(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field_name) return static_cast<int>(i);
  }
  return -1;
}

bool Schema::IsNullableUnion() const {
  return type == Type::kUnion && branches.size() == 2 &&
         (branches[0]->type == Type::kNull) != (branches[1]->type == Type::kNull);
}

const Schema& Schema::NonNull() const {
  if (!IsNullableUnion()) return *this;
  return branches[0]->type == Type::kNull ? *branches[1] : *branches[0];
}

Result<SchemaPtr> ParseSchema(std::string_view json) {
  Json j = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid("avro schema: not valid JSON");
  // Defaults are kept as JSON text (dumped recursively): bound the whole document.
  if (Status st = CheckJsonDepth(j, 2 * kMaxJsonDepth); !st.ok()) {
    return Status::Invalid("avro schema: " + st.message());
  }
  try {
    SchemaParser parser;
    return parser.Parse(j, "");
  } catch (const std::exception& e) {  // nlohmann type errors; none should escape this module
    return Status::Invalid(std::string("avro schema: ") + e.what());
  }
}

std::string SchemaToJson(const Schema& schema) {
  std::set<std::string> defined;
  return ToJson(schema, &defined).dump(-1, ' ', false, Json::error_handler_t::replace);
}

const char* CodecName(Codec c) {
  switch (c) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kZstandard:
      return "zstandard";
  }
  return "unknown";
}

Result<Codec> CodecFromName(std::string_view name) {
  if (name.empty() || name == "null") return Codec::kNull;
  if (name == "deflate") return Codec::kDeflate;
  if (name == "snappy") return Codec::kSnappy;
  if (name == "zstandard") return Codec::kZstandard;
  return Status::NotSupported("avro codec '" + std::string(name) + "'");
}

}  // namespace tributary::avro
