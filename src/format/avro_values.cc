#include "format/avro_values.h"

#include "common/json.h"
#include "format/binary_row.h"

namespace tributary::avro {

namespace {

constexpr const char* kAvroRecordName = "org.apache.paimon.avro.generated.record";

// Avro holds maps natively only with string keys; other keys become an array of
// {key, value} records (as Paimon's AvroSchemaConverter writes them).
bool IsArrayMap(const DataType& t) {
  return (t.id == TypeId::kMap || t.id == TypeId::kMultiset) && !t.key().IsString();
}

// The Avro schema of a column of type `t`. `row_name` names nested records as Paimon does:
// "<record>_<field>" for a ROW field, "<name>_key"/"<name>_value" inside an array map.
Result<Json> AvroType(const DataType& t, const std::string& row_name) {
  Json base;
  auto logical = [](const char* type, const char* lt) {
    Json j = Json::object();
    j["type"] = type;
    j["logicalType"] = lt;
    return j;
  };
  switch (t.id) {
    case TypeId::kBoolean:
      base = "boolean";
      break;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
      base = "int";
      break;
    case TypeId::kBigInt:
      base = "long";
      break;
    case TypeId::kFloat:
      base = "float";
      break;
    case TypeId::kDouble:
      base = "double";
      break;
    case TypeId::kDecimal:
      base = logical("bytes", "decimal");
      base["precision"] = t.precision;
      base["scale"] = t.scale;
      break;
    case TypeId::kChar:
    case TypeId::kVarChar:
      base = "string";
      break;
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      base = "bytes";
      break;
    case TypeId::kDate:
      base = logical("int", "date");
      break;
    case TypeId::kTime:
      base = logical("int", "time-millis");
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      bool ltz = t.id == TypeId::kTimestampLtz;
      if (t.precision <= 3) {
        base = logical("long", ltz ? "local-timestamp-millis" : "timestamp-millis");
      } else if (t.precision <= 6) {
        base = logical("long", ltz ? "local-timestamp-micros" : "timestamp-micros");
      } else {
        return Status::NotSupported("Avro data files cannot hold " + t.ToString() +
                                    " (precision above 6)");
      }
      break;
    }
    case TypeId::kArray: {
      TRIB_ASSIGN_OR_RETURN(Json items, AvroType(t.element(), row_name));
      base = Json::object();
      base["type"] = "array";
      base["items"] = items;
      break;
    }
    case TypeId::kMultiset:
    case TypeId::kMap: {
      if (!IsArrayMap(t)) {
        TRIB_ASSIGN_OR_RETURN(Json values, AvroType(t.value(), row_name));
        base = Json::object();
        base["type"] = "map";
        base["values"] = values;
        break;
      }
      TRIB_ASSIGN_OR_RETURN(Json key, AvroType(t.key().NotNull(), row_name + "_key"));
      TRIB_ASSIGN_OR_RETURN(Json value, AvroType(t.value(), row_name + "_value"));
      Json kf = Json::object();
      kf["name"] = "key";
      kf["type"] = key;
      Json vf = Json::object();
      vf["name"] = "value";
      vf["type"] = value;
      if (t.value().nullable) vf["default"] = nullptr;
      Json rec = Json::object();
      rec["type"] = "record";
      rec["name"] = row_name;
      rec["fields"] = Json::array({kf, vf});
      base = Json::object();
      base["type"] = "array";
      base["items"] = rec;
      base["logicalType"] = "map";
      break;
    }
    case TypeId::kRow: {
      Json fields = Json::array();
      for (const Field& f : t.fields()) {
        TRIB_ASSIGN_OR_RETURN(Json ft, AvroType(f.type, row_name + "_" + f.name));
        Json jf = Json::object();
        jf["name"] = f.name;
        jf["type"] = ft;
        if (f.type.nullable) jf["default"] = nullptr;
        fields.push_back(jf);
      }
      base = Json::object();
      base["type"] = "record";
      base["name"] = row_name;
      base["fields"] = fields;
      break;
    }
  }
  if (!t.nullable) return base;
  Json u = Json::array();
  u.push_back("null");
  u.push_back(base);
  return u;
}

}  // namespace

Result<SchemaPtr> PaimonRecordSchema(const std::vector<Field>& fields) {
  Json list = Json::array();
  for (const auto& f : fields) {
    TRIB_ASSIGN_OR_RETURN(Json t, AvroType(f.type, std::string(kAvroRecordName) + "_" + f.name));
    Json field = Json::object();
    field["name"] = f.name;
    field["type"] = t;
    list.push_back(field);
  }
  Json rec = Json::object();
  rec["type"] = "record";
  rec["name"] = "record";
  rec["namespace"] = "org.apache.paimon.avro.generated";
  rec["fields"] = list;
  return ParseSchema(rec.dump());
}

Datum ToDatum(const Value& v, const DataType& t) {
  if (v.is_null()) return Datum();
  switch (t.id) {
    case TypeId::kBoolean:
      return Datum(v.bool_value());
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kTime:
      return Datum(static_cast<int32_t>(v.int_value()));
    case TypeId::kBigInt:
      return Datum(v.int_value());
    case TypeId::kFloat:
      return Datum(static_cast<float>(v.double_value()));
    case TypeId::kDouble:
      return Datum(v.double_value());
    case TypeId::kDecimal:
      return Datum(format::DecimalToBytes(v.decimal_value().unscaled));
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return Datum(v.string_value());
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      Timestamp ts = v.timestamp_value();
      if (t.precision <= 3) return Datum(ts.millis);
      return Datum(ts.millis * 1000 + ts.nanos_of_milli / 1000);
    }
    case TypeId::kArray: {
      DatumList items;
      if (!v.is_array()) return Datum();
      for (const Value& e : v.array_elements()) items.push_back(ToDatum(e, t.element()));
      return Datum(std::move(items));
    }
    case TypeId::kMultiset:
    case TypeId::kMap: {
      if (!v.is_map()) return Datum();
      const auto& keys = v.map_keys();
      const auto& values = v.map_values();
      if (!IsArrayMap(t)) {
        avro::DatumMap m;
        for (size_t i = 0; i < keys.size() && i < values.size(); i++) {
          m.emplace_back(keys[i].is_string() ? keys[i].string_value() : std::string(),
                         ToDatum(values[i], t.value()));
        }
        return Datum(std::move(m));
      }
      DatumList entries;
      for (size_t i = 0; i < keys.size() && i < values.size(); i++) {
        entries.push_back(
            Datum(DatumList{ToDatum(keys[i], t.key()), ToDatum(values[i], t.value())}));
      }
      return Datum(std::move(entries));
    }
    case TypeId::kRow: {
      if (!v.is_struct()) return Datum();
      DatumList fields;
      const auto& vals = v.struct_fields();
      for (size_t i = 0; i < t.fields().size(); i++) {
        fields.push_back(i < vals.size() ? ToDatum(vals[i], t.fields()[i].type) : Datum());
      }
      return Datum(std::move(fields));
    }
  }
  return Datum();
}

Result<Value> FromDatum(const Datum& d, const DataType& t, const std::string& what) {
  if (d.is_null()) return Value();
  auto mismatch = [&]() {
    return Status::Corruption(what + ": value does not match column type " + t.ToString());
  };
  auto as_i64 = [&](int64_t* out) {
    if (std::holds_alternative<int32_t>(d.rep))
      *out = d.as_int();
    else if (std::holds_alternative<int64_t>(d.rep))
      *out = d.as_long();
    else
      return false;
    return true;
  };
  int64_t i;
  switch (t.id) {
    case TypeId::kBoolean:
      if (!std::holds_alternative<bool>(d.rep)) return mismatch();
      return Value::Bool(d.as_bool());
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kTime:
      // Avro int: a long here was not written with this schema (its values may not fit).
      if (!std::holds_alternative<int32_t>(d.rep)) return mismatch();
      i = d.as_int();
      if ((t.id == TypeId::kTinyInt && (i < -128 || i > 127)) ||
          (t.id == TypeId::kSmallInt && (i < -32768 || i > 32767))) {
        return Status::Corruption(what + ": value " + std::to_string(i) + " is out of range for " +
                                  t.ToString());
      }
      return Value::Int(i);
    case TypeId::kBigInt:
      if (!as_i64(&i)) return mismatch();
      return Value::Int(i);
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (std::holds_alternative<float>(d.rep)) return Value::Double(d.as_float());
      if (std::holds_alternative<double>(d.rep)) return Value::Double(d.as_double());
      return mismatch();
    case TypeId::kDecimal:
      if (std::holds_alternative<std::string>(d.rep)) {
        return Value::Dec({format::DecimalFromBytes(d.as_string())});
      }
      return mismatch();
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      if (!std::holds_alternative<std::string>(d.rep)) return mismatch();
      return Value::String(d.as_string());
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      if (!as_i64(&i)) return mismatch();
      if (t.precision <= 3) return Value::Ts({i, 0});
      {
        int64_t ms = i >= 0 ? i / 1000 : -((-i + 999) / 1000);
        return Value::Ts({ms, static_cast<int32_t>((i - ms * 1000) * 1000)});
      }
    case TypeId::kArray: {
      if (!std::holds_alternative<DatumList>(d.rep)) return mismatch();
      std::vector<Value> items;
      for (const Datum& e : d.as_list()) {
        TRIB_ASSIGN_OR_RETURN(Value v, FromDatum(e, t.element(), what));
        items.push_back(std::move(v));
      }
      return Value::Array(std::move(items));
    }
    case TypeId::kMultiset:
    case TypeId::kMap: {
      std::vector<Value> keys, values;
      if (std::holds_alternative<avro::DatumMap>(d.rep)) {
        for (const auto& [k, v] : d.as_map()) {
          keys.push_back(Value::String(k));
          TRIB_ASSIGN_OR_RETURN(Value x, FromDatum(v, t.value(), what));
          values.push_back(std::move(x));
        }
      } else if (std::holds_alternative<DatumList>(d.rep)) {
        for (const Datum& e : d.as_list()) {
          if (!std::holds_alternative<DatumList>(e.rep) || e.as_list().size() != 2) {
            return mismatch();
          }
          TRIB_ASSIGN_OR_RETURN(Value k, FromDatum(e.as_list()[0], t.key(), what));
          TRIB_ASSIGN_OR_RETURN(Value x, FromDatum(e.as_list()[1], t.value(), what));
          keys.push_back(std::move(k));
          values.push_back(std::move(x));
        }
      } else {
        return mismatch();
      }
      return Value::Map(std::move(keys), std::move(values));
    }
    case TypeId::kRow: {
      if (!std::holds_alternative<DatumList>(d.rep)) return mismatch();
      const DatumList& l = d.as_list();
      if (l.size() != t.fields().size()) return mismatch();
      std::vector<Value> fields;
      for (size_t k = 0; k < l.size(); k++) {
        TRIB_ASSIGN_OR_RETURN(Value v, FromDatum(l[k], t.fields()[k].type, what));
        fields.push_back(std::move(v));
      }
      return Value::Struct(std::move(fields));
    }
  }
  return mismatch();
}

}  // namespace tributary::avro
