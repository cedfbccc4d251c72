#include "datafile/data_file.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>

#include <zlib.h>

#include "common/evolution_cast.h"
#include "common/json.h"
#include "format/avro.h"
#include "format/binary_row.h"
#include "format/compression.h"
#include "format/parquet/reader.h"
#include "format/parquet/writer.h"
#include "io/file_system.h"
#include "io/file_cache.h"
#include "common/predicate.h"

namespace tributary::datafile {

using io::FileCache;
using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;
using options::FileFormatOptions;

using avro::Datum;
using avro::DatumList;
using merge::KeyValue;

FileLayout FileLayout::Of(const TableSchema& schema) {
  FileLayout l;
  l.fields = schema.fields;
  l.primary_key = schema.HasPrimaryKey();
  l.schema_id = schema.id;
  for (const auto& k : schema.TrimmedPrimaryKeys()) l.key_columns.push_back(schema.FieldIndex(k));
  return l;
}

std::vector<DataType> FileLayout::KeyTypes() const {
  std::vector<DataType> t;
  for (int c : key_columns) t.push_back(fields[c].type);
  return t;
}

std::vector<DataType> FileLayout::FieldTypes() const {
  std::vector<DataType> t;
  for (const auto& f : fields) t.push_back(f.type);
  return t;
}

namespace {
constexpr int32_t kIntMax = 2147483647;
constexpr int32_t kKeyFieldIdStart = kIntMax / 2;
constexpr int32_t kSequenceFieldId = kIntMax - 1;
constexpr int32_t kValueKindFieldId = kIntMax - 2;
}  // namespace

std::vector<Field> FileLayout::PhysicalFields() const {
  std::vector<Field> out;
  if (primary_key) {
    for (int c : key_columns) {
      out.push_back({kKeyFieldIdStart + fields[c].id, "_KEY_" + fields[c].name,
                     fields[c].type.NotNull(), ""});
    }
    out.push_back({kSequenceFieldId, "_SEQUENCE_NUMBER", DataType::BigInt().NotNull(), ""});
    out.push_back({kValueKindFieldId, "_VALUE_KIND", DataType::TinyInt().NotNull(), ""});
  }
  for (const auto& f : fields) out.push_back(f);
  return out;
}

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
    case TypeId::kBoolean: base = "boolean"; break;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt: base = "int"; break;
    case TypeId::kBigInt: base = "long"; break;
    case TypeId::kFloat: base = "float"; break;
    case TypeId::kDouble: base = "double"; break;
    case TypeId::kDecimal:
      base = logical("bytes", "decimal");
      base["precision"] = t.precision;
      base["scale"] = t.scale;
      break;
    case TypeId::kChar:
    case TypeId::kVarChar: base = "string"; break;
    case TypeId::kBinary:
    case TypeId::kVarBinary: base = "bytes"; break;
    case TypeId::kDate: base = logical("int", "date"); break;
    case TypeId::kTime: base = logical("int", "time-millis"); break;
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

Result<avro::SchemaPtr> AvroSchemaFor(const FileLayout& l) {
  Json fields = Json::array();
  auto add = [&](const std::string& name, const Json& type) {
    Json f = Json::object();
    f["name"] = name;
    f["type"] = type;
    fields.push_back(f);
  };
  if (l.primary_key) {
    for (int c : l.key_columns) {
      std::string name = "_KEY_" + l.fields[c].name;
      TRIB_ASSIGN_OR_RETURN(Json t, AvroType(l.fields[c].type.NotNull(),
                                             std::string(kAvroRecordName) + "_" + name));
      add(name, t);
    }
    add("_SEQUENCE_NUMBER", "long");
    add("_VALUE_KIND", "int");
  }
  for (const auto& f : l.fields) {
    TRIB_ASSIGN_OR_RETURN(Json t, AvroType(f.type, std::string(kAvroRecordName) + "_" + f.name));
    add(f.name, t);
  }
  Json rec = Json::object();
  rec["type"] = "record";
  rec["name"] = "record";
  rec["namespace"] = "org.apache.paimon.avro.generated";
  rec["fields"] = fields;
  return avro::ParseSchema(rec.dump());
}

Datum ToDatum(const Value& v, const DataType& t) {
  if (v.is_null()) return Datum();
  switch (t.id) {
    case TypeId::kBoolean: return Datum(v.bool_value());
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kTime: return Datum(static_cast<int32_t>(v.int_value()));
    case TypeId::kBigInt: return Datum(v.int_value());
    case TypeId::kFloat: return Datum(static_cast<float>(v.double_value()));
    case TypeId::kDouble: return Datum(v.double_value());
    case TypeId::kDecimal: return Datum(format::DecimalToBytes(v.decimal_value().unscaled));
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary: return Datum(v.string_value());
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
        entries.push_back(Datum(DatumList{ToDatum(keys[i], t.key()), ToDatum(values[i], t.value())}));
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
    if (std::holds_alternative<int32_t>(d.rep)) *out = d.as_int();
    else if (std::holds_alternative<int64_t>(d.rep)) *out = d.as_long();
    else return false;
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

// Running min/max/null-count of a set of columns.
class StatsCollector {
 public:
  explicit StatsCollector(std::vector<DataType> types)
      : types_(std::move(types)), min_(types_.size()), max_(types_.size()),
        nulls_(types_.size(), 0) {}
  void Add(const Row& row, const std::vector<int>* columns) {
    for (size_t i = 0; i < types_.size(); i++) {
      const Value& v = columns ? row[(*columns)[i]] : row[i];
      if (v.is_null()) {
        nulls_[i]++;
        continue;
      }
      if (min_[i].is_null()) {
        min_[i] = v;
        max_[i] = v;
      } else if (merge::FastCompare(v, min_[i]) < 0) {
        min_[i] = v;
      } else if (merge::FastCompare(v, max_[i]) > 0) {
        max_[i] = v;
      }
    }
  }
  // Folds in the minimum, maximum (NULL: none) and NULL count of column i over more rows.
  void AddColumn(size_t i, const Value& mn, const Value& mx, int64_t nulls) {
    nulls_[i] += nulls;
    if (mn.is_null()) return;
    if (min_[i].is_null()) {
      min_[i] = mn;
      max_[i] = mx;
      return;
    }
    if (merge::FastCompare(mn, min_[i]) < 0) min_[i] = mn;
    if (merge::FastCompare(mx, max_[i]) > 0) max_[i] = mx;
  }
  meta::SimpleStats Finish() const {
    meta::SimpleStats s;
    s.min_values = format::SerializeBinaryRow(types_, min_);
    s.max_values = format::SerializeBinaryRow(types_, max_);
    for (int64_t n : nulls_) s.null_counts.push_back(n);
    return s;
  }

 private:
  std::vector<DataType> types_;
  Row min_, max_;
  std::vector<int64_t> nulls_;
};

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

namespace {
// Value statistics cover the flat columns only: BinaryRows hold no nested values. When a table
// has nested columns, the files name the columns their statistics cover (_VALUE_STATS_COLS).
std::optional<std::vector<int>> StatsColumns(const FileLayout& l) {
  bool nested = false;
  std::vector<int> flat;
  for (size_t i = 0; i < l.fields.size(); i++) {
    if (l.fields[i].type.IsNested()) {
      nested = true;
    } else {
      flat.push_back(static_cast<int>(i));
    }
  }
  if (!nested) return std::nullopt;
  return flat;
}

std::vector<DataType> StatsTypes(const FileLayout& l, const std::optional<std::vector<int>>& c) {
  if (!c) return l.FieldTypes();
  std::vector<DataType> t;
  for (int i : *c) t.push_back(l.fields[i].type);
  return t;
}
}  // namespace

int CompareKeys(const Row& a, const Row& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); i++) {
    int c = merge::FastCompare(a[i], b[i]);
    if (c != 0) return c;
  }
  return 0;
}

bool KeyRange::Contains(const Row& key) const {
  return CompareKeys(key, min) >= 0 && CompareKeys(key, max) <= 0;
}

bool KeyRange::Overlaps(const KeyRange& o) const {
  return CompareKeys(min, o.max) <= 0 && CompareKeys(o.min, max) <= 0;
}

std::optional<KeyRange> DecodeKeyRange(const meta::DataFileMeta& f,
                                       const std::vector<DataType>& key_types) {
  auto mn = format::DeserializeBinaryRow(f.min_key, key_types);
  auto mx = format::DeserializeBinaryRow(f.max_key, key_types);
  if (!mn.ok() || !mx.ok() || mn->size() != key_types.size() || key_types.empty()) {
    return std::nullopt;
  }
  return KeyRange{std::move(*mn), std::move(*mx)};
}

bool OptionIsTrue(const TableSchema& schema, const std::string& key) {
  auto v = schema.Option(key);
  if (!v) return false;
  std::string l = *v;
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l == "true";
}

struct DataFileWriter::OpenFile {
  std::string name;
  std::unique_ptr<avro::FileWriter> writer;            // Avro files
  std::unique_ptr<format::parquet::ParquetWriter> pq;  // Parquet files
  int64_t EstimatedSize() const {
    return pq ? pq->EstimatedSize() : static_cast<int64_t>(writer->EstimatedSize());
  }
  Result<std::string> Finish() { return pq ? pq->Finish() : writer->Finish(); }
  StatsCollector key_stats;
  StatsCollector value_stats;
  Row min_key, max_key;
  int64_t rows = 0;
  int64_t deletes = 0;
  int64_t min_seq = INT64_MAX, max_seq = INT64_MIN;
  std::optional<std::vector<int>> stats_columns;  // set when the table has nested columns
  OpenFile(const FileLayout& l, std::optional<std::vector<int>> stats)
      : key_stats(l.KeyTypes()), value_stats(StatsTypes(l, stats)),
        stats_columns(std::move(stats)) {}
};

DataFileWriter::DataFileWriter(FileLayout layout, std::string bucket_dir, meta::FileNamer* namer,
                               int64_t target_file_size, int32_t level, meta::FileSource source,
                               const FileFormatOptions& format,
                               std::optional<std::vector<std::string>> write_cols)
    : layout_(std::move(layout)), dir_(std::move(bucket_dir)), namer_(namer),
      target_file_size_(target_file_size), level_(level), source_(source), format_(format),
      write_cols_(std::move(write_cols)) {}

DataFileWriter::~DataFileWriter() = default;

Status DataFileWriter::Open() {
  {
    auto f = std::make_unique<OpenFile>(layout_, StatsColumns(layout_));
    std::string fmt = format_.FormatForLevel(level_);
    if (fmt == "parquet") {
      format::parquet::ParquetWriterOptions po;
      TRIB_ASSIGN_OR_RETURN(po.compression, format::CompressionCodecFromName(
                                                format_.compression == "none"
                                                    ? "uncompressed" : format_.compression));
      po.page_size = format_.parquet_page_size;
      po.row_group_size = format_.parquet_row_group_size;
      po.dictionary = format_.parquet_dictionary;
      TRIB_ASSIGN_OR_RETURN(f->pq, format::parquet::ParquetWriter::Make(layout_.PhysicalFields(), po));
    } else if (fmt == "avro") {
      TRIB_ASSIGN_OR_RETURN(avro::SchemaPtr schema, AvroSchemaFor(layout_));
      avro::Codec codec = avro::Codec::kZstandard;
      if (format_.compression == "none") codec = avro::Codec::kNull;
      if (format_.compression == "snappy") codec = avro::Codec::kSnappy;
      if (format_.compression == "gzip" || format_.compression == "deflate") {
        codec = avro::Codec::kDeflate;
      }
      TRIB_ASSIGN_OR_RETURN(f->writer, avro::FileWriter::Make(schema, codec));
    } else {
      return Status::NotSupported("file.format '" + fmt + "' cannot be written");
    }
    f->name = namer_->Next() + "." + fmt;
    file_ = std::move(f);
  }
  return Status::OK();
}

Status DataFileWriter::Write(const KeyValue& kv) {
  if (!file_) TRIB_RETURN_NOT_OK(Open());
  OpenFile& f = *file_;
  if (f.pq) {
    // The physical row points at the record's values: nothing is copied or moved.
    std::vector<const Value*>& cells = cells_;
    cells.clear();
    if (layout_.primary_key) {
      for (int c : layout_.key_columns) cells.push_back(&kv.value[c]);
      seq_value_ = Value::Int(kv.sequence);
      kind_value_ = Value::Int(static_cast<int64_t>(kv.kind));
      cells.push_back(&seq_value_);
      cells.push_back(&kind_value_);
    }
    for (const auto& v : kv.value) cells.push_back(&v);
    TRIB_RETURN_NOT_OK(f.pq->Append(cells));
  } else {
    DatumList rec;
    rec.reserve(layout_.fields.size() + layout_.key_columns.size() + 2);
    if (layout_.primary_key) {
      for (int c : layout_.key_columns) rec.push_back(ToDatum(kv.value[c], layout_.fields[c].type));
      rec.push_back(Datum(kv.sequence));
      rec.push_back(Datum(static_cast<int32_t>(kv.kind)));
    }
    for (size_t i = 0; i < layout_.fields.size(); i++) {
      rec.push_back(ToDatum(kv.value[i], layout_.fields[i].type));
    }
    TRIB_RETURN_NOT_OK(f.writer->Append(Datum(std::move(rec))));
  }
  if (layout_.primary_key) {
    // The key of the last record written (assigned in place: no allocation per record).
    f.max_key.resize(layout_.key_columns.size());
    for (size_t i = 0; i < layout_.key_columns.size(); i++) {
      f.max_key[i] = kv.value[layout_.key_columns[i]];
    }
    if (f.rows == 0) f.min_key = f.max_key;
    f.key_stats.Add(kv.value, &layout_.key_columns);
  }
  f.value_stats.Add(kv.value, f.stats_columns ? &*f.stats_columns : nullptr);
  f.rows++;
  if (IsRetract(kv.kind)) f.deletes++;
  f.min_seq = std::min(f.min_seq, kv.sequence);
  f.max_seq = std::max(f.max_seq, kv.sequence);
  // As Paimon's rolling writer: the size is checked every 1000 records (estimating it walks
  // every column writer).
  if (f.rows % 1000 == 0 && f.EstimatedSize() >= target_file_size_) return Roll();
  return Status::OK();
}

namespace {

// Row r of a column as the Value a row holds.
Value ValueAt(const format::parquet::ColumnValues& c, const DataType& type, size_t r) {
  if (c.nulls != nullptr && c.nulls[r]) return Value::Null();
  if (c.ints != nullptr) {
    return type.id == TypeId::kBoolean ? Value::Bool(c.ints[r] != 0) : Value::Int(c.ints[r]);
  }
  if (c.doubles != nullptr) return Value::Double(c.doubles[r]);
  if (c.HasBytes()) return Value::String(std::string(c.Bytes(r)));
  return c.values[r];
}

// Minimum, maximum (NULL when every value is NULL) and NULL count of rows[0..n) of a column,
// ordered as StatsCollector orders Values.
void ColumnStats(const format::parquet::ColumnValues& c, const DataType& type,
                 const uint32_t* rows, size_t n, Value* mn, Value* mx, int64_t* nulls) {
  *nulls = 0;
  size_t lo = SIZE_MAX, hi = SIZE_MAX;  // source rows of the extremes
  auto track = [&](auto less) {
    for (size_t k = 0; k < n; ++k) {
      const size_t r = rows[k];
      if (c.nulls != nullptr && c.nulls[r]) {
        ++*nulls;
      } else if (lo == SIZE_MAX) {
        lo = hi = r;
      } else if (less(r, lo)) {
        lo = r;
      } else if (less(hi, r)) {
        hi = r;
      }
    }
  };
  if (c.ints != nullptr && type.id != TypeId::kBoolean) {
    track([&](size_t a, size_t b) { return c.ints[a] < c.ints[b]; });
  } else if (c.HasBytes()) {
    track([&](size_t a, size_t b) { return c.Bytes(a) < c.Bytes(b); });
  } else {  // doubles and Values (flat types: no allocation per Value)
    track([&](size_t a, size_t b) {
      return merge::FastCompare(ValueAt(c, type, a), ValueAt(c, type, b)) < 0;
    });
  }
  *mn = lo == SIZE_MAX ? Value::Null() : ValueAt(c, type, lo);
  *mx = hi == SIZE_MAX ? Value::Null() : ValueAt(c, type, hi);
}

}  // namespace

bool DataFileWriter::CanWriteColumns() const {
  if (!layout_.primary_key || format_.FormatForLevel(level_) != "parquet") return false;
  for (const Field& f : layout_.fields) {
    if (f.type.IsNested()) return false;
  }
  return true;
}

Status DataFileWriter::WriteColumns(const std::vector<format::parquet::ColumnValues>& columns,
                                    const uint32_t* rows, const int64_t* sequences,
                                    const int64_t* kinds, size_t n) {
  if (!CanWriteColumns()) {
    return Status::Internal("data file writer: these files cannot be written column by column");
  }
  if (columns.size() != layout_.fields.size()) {
    return Status::Internal("data file writer: " + std::to_string(columns.size()) +
                            " columns given for " + std::to_string(layout_.fields.size()));
  }
  // The physical columns: the key columns, _SEQUENCE_NUMBER, _VALUE_KIND, then every column
  // (their rows are set per slice).
  std::vector<format::parquet::ColumnValues> physical;
  for (int c : layout_.key_columns) physical.push_back(columns[c]);
  physical.emplace_back();
  physical.emplace_back();
  for (const auto& c : columns) physical.push_back(c);
  const size_t seq_col = layout_.key_columns.size(), kind_col = seq_col + 1;
  size_t done = 0;
  Value mn, mx;
  int64_t nulls = 0;
  while (done < n) {
    if (!file_) TRIB_RETURN_NOT_OK(Open());
    OpenFile& f = *file_;
    // Slices end where Write checks the file's size (every 1000 records).
    const size_t slice = std::min<size_t>(n - done, 1000 - static_cast<size_t>(f.rows % 1000));
    // Rows of table column c for this slice.
    auto slice_rows = [&](int c) { return (columns[c].rows ? columns[c].rows : rows) + done; };
    for (size_t i = 0; i < layout_.key_columns.size(); ++i) {
      physical[i].rows = slice_rows(layout_.key_columns[i]);
    }
    physical[seq_col].ints = sequences + done;
    physical[kind_col].ints = kinds + done;
    for (size_t c = 0; c < columns.size(); ++c) {
      physical[kind_col + 1 + c].rows = slice_rows(static_cast<int>(c));
    }
    TRIB_RETURN_NOT_OK(f.pq->AppendColumns(physical, slice));
    // Keys: the records are in key order.
    f.max_key.resize(layout_.key_columns.size());
    for (size_t i = 0; i < layout_.key_columns.size(); ++i) {
      const int c = layout_.key_columns[i];
      const uint32_t* r = slice_rows(c);
      f.max_key[i] = ValueAt(columns[c], layout_.fields[c].type, r[slice - 1]);
      if (f.rows == 0) f.min_key.push_back(ValueAt(columns[c], layout_.fields[c].type, r[0]));
    }
    for (size_t i = 0; i < layout_.key_columns.size(); ++i) {
      const int c = layout_.key_columns[i];
      ColumnStats(columns[c], layout_.fields[c].type, slice_rows(c), slice, &mn, &mx, &nulls);
      f.key_stats.AddColumn(i, mn, mx, nulls);
    }
    const size_t stats_count = f.stats_columns ? f.stats_columns->size() : layout_.fields.size();
    for (size_t i = 0; i < stats_count; ++i) {
      const int c = f.stats_columns ? (*f.stats_columns)[i] : static_cast<int>(i);
      ColumnStats(columns[c], layout_.fields[c].type, slice_rows(c), slice, &mn, &mx, &nulls);
      f.value_stats.AddColumn(i, mn, mx, nulls);
    }
    for (size_t k = done; k < done + slice; ++k) {
      if (IsRetract(static_cast<RowKind>(kinds[k]))) f.deletes++;
      f.min_seq = std::min(f.min_seq, sequences[k]);
      f.max_seq = std::max(f.max_seq, sequences[k]);
    }
    f.rows += static_cast<int64_t>(slice);
    done += slice;
    if (f.rows % 1000 == 0 && f.EstimatedSize() >= target_file_size_) TRIB_RETURN_NOT_OK(Roll());
  }
  return Status::OK();
}

Status DataFileWriter::WriteMerged(std::vector<format::parquet::ColumnValues> sources,
                                   const ColumnMergeOutput& merged) {
  // Computed columns (aggregates) hold one value per merged record, in order.
  std::vector<uint32_t> in_order;
  for (size_t c = 0; c < sources.size(); c++) {
    if (c < merged.computed.size() && merged.computed[c]) {
      if (in_order.empty()) {
        in_order.resize(merged.size());
        for (uint32_t k = 0; k < in_order.size(); k++) in_order[k] = k;
      }
      sources[c] = ColumnValuesOf(*merged.computed[c]);
      sources[c].rows = in_order.data();
    } else if (c < merged.column_rows.size() && !merged.column_rows[c].empty()) {
      sources[c].rows = merged.column_rows[c].data();
    }
  }
  return WriteColumns(sources, merged.rows.data(), merged.sequences.data(), merged.kinds.data(),
                      merged.size());
}

Status DataFileWriter::Roll() {
  if (!file_) return Status::OK();
  std::unique_ptr<OpenFile> f = std::move(file_);
  TRIB_ASSIGN_OR_RETURN(std::string bytes, f->Finish());
  TRIB_RETURN_NOT_OK(io::LocalFs().MakeDirs(dir_));
  std::string path = io::JoinPath(dir_, f->name);
  // Data files are written once under a fresh name; WriteFile syncs them before the commit.
  TRIB_RETURN_NOT_OK(io::LocalFs().WriteFile(path, bytes));
  meta::DataFileMeta m;
  m.file_name = f->name;
  m.file_size = static_cast<int64_t>(bytes.size());
  m.row_count = f->rows;
  std::vector<DataType> key_types = layout_.KeyTypes();
  m.min_key = format::SerializeBinaryRow(key_types, f->min_key);
  m.max_key = format::SerializeBinaryRow(key_types, f->max_key);
  m.key_stats = f->key_stats.Finish();
  m.value_stats = f->value_stats.Finish();
  if (f->stats_columns) {
    m.value_stats_cols.emplace();
    for (int c : *f->stats_columns) m.value_stats_cols->push_back(layout_.fields[c].name);
  }
  m.min_sequence_number = f->min_seq;
  m.max_sequence_number = f->max_seq;
  m.schema_id = layout_.schema_id;
  m.level = level_;
  m.creation_time_millis = NowMillis();
  m.delete_row_count = f->deletes;
  m.file_source = source_;
  m.write_cols = write_cols_;
  done_.push_back(std::move(m));
  return Status::OK();
}

Result<std::vector<meta::DataFileMeta>> DataFileWriter::Finish() {
  TRIB_RETURN_NOT_OK(Roll());
  return std::move(done_);
}

void DataFileWriter::Abort() {
  file_.reset();
  for (const auto& m : done_) (void)io::LocalFs().Remove(io::JoinPath(dir_, m.file_name));
  done_.clear();
}

namespace {
// Where a read-schema column comes from in a file written with an older schema: the file's field
// with the same id (its name and type then), or nothing (the column was added later: NULL).
const Field* SourceField(const Field& read, const std::vector<Field>* file_fields) {
  if (!file_fields) return &read;
  for (const auto& f : *file_fields) {
    if (f.id == read.id) return &f;
  }
  return nullptr;
}

// Rows of row group `rg` that the page index (per-page min/max and null counts of the filter
// columns) cannot rule out, for the checks (projected position, predicate) all holding;
// nullopt when no filter column has a usable page index.
Result<std::optional<format::parquet::RowRanges>> PageIndexRows(
    const format::parquet::ParquetReader& reader, int rg, const std::vector<int>& projection,
    const std::vector<std::pair<size_t, const Predicate*>>& checks) {
  using format::parquet::RowRanges;
  const int64_t num_rows = reader.metadata().row_groups[rg].num_rows;
  std::optional<RowRanges> wanted;
  for (const auto& [pos, p] : checks) {
    TRIB_ASSIGN_OR_RETURN(auto pages, reader.PageStatistics(rg, projection[pos]));
    RowRanges ranges;
    int64_t start = 0;
    bool usable = !pages.empty();
    for (const auto& page : pages) {
      if (page.num_values <= 0) {  // no offset index: rows per page unknown
        usable = false;
        break;
      }
      bool may = true;
      if (p->op == Predicate::Op::kIsNull) {
        may = !page.null_count || *page.null_count > 0;
      } else if (page.min && page.max) {
        may = MayMatchRange(*p, *page.min, *page.max);
      } else if (page.null_count && *page.null_count == page.num_values) {
        may = p->op == Predicate::Op::kIsNull;  // only NULLs on the page
      }
      if (may) {
        if (!ranges.empty() && ranges.back().second == start) {
          ranges.back().second = start + page.num_values;
        } else {
          ranges.push_back({start, start + page.num_values});
        }
      }
      start += page.num_values;
    }
    if (!usable || start != num_rows) continue;
    if (!wanted) {
      wanted = std::move(ranges);
      continue;
    }
    RowRanges both;  // intersection of two sorted lists of ranges
    size_t a = 0, b = 0;
    while (a < wanted->size() && b < ranges.size()) {
      int64_t lo = std::max((*wanted)[a].first, ranges[b].first);
      int64_t hi = std::min((*wanted)[a].second, ranges[b].second);
      if (lo < hi) both.push_back({lo, hi});
      ((*wanted)[a].second < ranges[b].second ? a : b)++;
    }
    wanted = std::move(both);
  }
  return wanted;
}

// The file column holding table field `f`: by field id (as Paimon matches across renames), else
// by name; -1 when the file lacks it.
int FileColumnOf(const format::parquet::FileSchema& schema, const Field& f) {
  int c = schema.FindColumnById(f.id);
  return c >= 0 ? c : schema.FindColumn(f.name);
}

using ParquetReaderPtr = std::shared_ptr<const format::parquet::ParquetReader>;

// The rows of a Parquet file: its row groups' (some writers leave FileMetaData.num_rows wrong).
int64_t RowsOf(const format::parquet::ParquetReader& reader) {
  int64_t rows = 0;
  for (const auto& g : reader.metadata().row_groups) rows += g.num_rows;
  return rows;
}

// A file must hold the rows its manifest entry records: anything else is a damaged or swapped
// file (or manifest), and reading on would return wrong rows.
Status CheckRowCount(const DataFileRef& file, int64_t rows) {
  if (file.row_count < 0 || rows == file.row_count) return Status::OK();
  return Status::Corruption("data file '" + file.path + "' holds " + std::to_string(rows) +
                            " rows but its manifest entry records " +
                            std::to_string(file.row_count));
}

// An opened Parquet data file (its mapping and parsed footer), kept in the process-wide cache:
// data files are immutable, so later reads neither map the file nor parse its footer again.
Result<ParquetReaderPtr> OpenParquet(const DataFileRef& file) {
  const std::string& path = file.path;
  TRIB_ASSIGN_OR_RETURN(
      auto cached,
      FileCache::Instance().GetOrLoad<ParquetReaderPtr>(
          "parquet:" + path, [&]() -> Result<std::pair<ParquetReaderPtr, int64_t>> {
            TRIB_ASSIGN_OR_RETURN(auto file, io::MappedFile::Open(path));
            std::string_view view = file->data();
            const io::MappedFile* mapped = file.get();  // lives as long as the reader
            auto reader = format::parquet::ParquetReader::Open(
                std::move(file), view, [mapped]() { mapped->ReleasePages(); });
            if (!reader.ok()) return reader.status().WithContext("data file '" + path + "'");
            // The footer in memory (the mapped bytes are the kernel's page cache).
            int64_t charge = 4096;
            for (const auto& g : (*reader)->metadata().row_groups) {
              charge += 256 * static_cast<int64_t>(g.columns.size());
            }
            return std::make_pair(ParquetReaderPtr(std::move(*reader)), charge);
          }));
  TRIB_RETURN_NOT_OK(CheckRowCount(file, RowsOf(**cached)));
  return *cached;
}

// Row groups whose statistics rule out one of `skip_filters` are not decoded: the filter that
// says so, or an empty one.
format::parquet::RowGroupFilter RowGroupFilterFor(const format::parquet::FileSchema& schema,
                                                  const FileLayout& layout,
                                                  const std::vector<Field>* file_fields,
                                                  const std::vector<Predicate>* skip_filters) {
  if (!skip_filters || skip_filters->empty()) return {};
  std::vector<std::pair<int, const Predicate*>> checks;  // file column, predicate
  for (const auto& p : *skip_filters) {
    const Field* src = SourceField(layout.fields[p.column], file_fields);
    if (!src || !src->type.SameKind(layout.fields[p.column].type)) continue;
    int c = FileColumnOf(schema, *src);
    if (c >= 0) checks.push_back({c, &p});
  }
  if (checks.empty()) return {};
  return [checks](const format::parquet::RowGroupStats& stats) {
    for (const auto& [c, p] : checks) {
      if (c >= static_cast<int>(stats.columns.size())) continue;
      const auto& cs = stats.columns[c];
      if (!cs.min || !cs.max) continue;
      if (!MayMatchRange(*p, *cs.min, *cs.max)) return false;
    }
    return true;
  };
}

// A record of `n` NULL values (sequence = its position in the file until its own is read).
KeyValue EmptyRecord(int32_t level, const std::shared_ptr<const std::vector<bool>>& mask, size_t n,
                     int64_t position) {
  KeyValue kv;
  kv.level = level;
  kv.write_mask = mask;
  kv.value.resize(n);
  kv.sequence = position;
  return kv;
}

// The records of every row group `opts` keeps, built straight from the decoded column vectors
// (strings moved, not copied; sequence and kind read as integers). `target[i]`: the table column
// of projected file column i (-1 sequence, -2 kind); `cast[i]`: whether it changed type.
Result<std::vector<KeyValue>> ReadParquetRecords(
    const std::string& path, const format::parquet::ParquetReader& reader,
    const format::parquet::ParquetReadOptions& opts, const std::vector<int>& projection,
    const std::vector<int>& target, const std::vector<bool>& cast,
    const std::vector<const Field*>& sources, const FileLayout& layout, int32_t level,
    const std::shared_ptr<const std::vector<bool>>& mask, const TimeZone* time_zone) {
  auto fail = [&](const Status& st) { return st.WithContext("data file '" + path + "'"); };
  std::vector<KeyValue> out;
  int64_t row_number = 0;
  for (int rg = 0; rg < reader.num_row_groups(); rg++) {
    if (opts.row_group_filter && !opts.row_group_filter(reader.RowGroupStatistics(rg))) continue;
    auto cols = reader.ReadRowGroupVectors(rg, projection);
    if (!cols.ok()) return fail(cols.status());
    const size_t n = static_cast<size_t>(reader.metadata().row_groups[rg].num_rows);
    for (const auto& c : *cols) {
      if (c.size() != n) return fail(Status::Corruption("a column chunk's row count differs"));
    }
    out.reserve(out.size() + n);
    for (size_t r = 0; r < n; r++) {
      KeyValue kv = EmptyRecord(level, mask, layout.fields.size(), row_number++);
      for (size_t i = 0; i < target.size(); i++) {
        ColumnVector& col = (*cols)[i];
        if (target[i] < 0) {
          int64_t x = col.rep == ColumnVector::Rep::kInt && !col.IsNull(r) ? col.ints[r] : -1;
          if (target[i] == -1) {
            if (col.rep != ColumnVector::Rep::kInt || col.IsNull(r)) {
              return fail(Status::Corruption("bad _SEQUENCE_NUMBER"));
            }
            kv.sequence = x;
          } else {
            if (x < 0 || x > 3) return fail(Status::Corruption("invalid _VALUE_KIND"));
            kv.kind = static_cast<RowKind>(x);
          }
          continue;
        }
        Value v;
        if (!col.IsNull(r)) {
          switch (col.rep) {
            case ColumnVector::Rep::kInt:
              v = col.type.id == TypeId::kBoolean ? Value::Bool(col.ints[r] != 0)
                                                  : Value::Int(col.ints[r]);
              break;
            case ColumnVector::Rep::kDouble:
              v = Value::Double(col.doubles[r]);
              break;
            case ColumnVector::Rep::kString:
              v = Value::String(std::move(col.strings[r]));
              break;
            case ColumnVector::Rep::kValue:
              v = std::move(col.values[r]);
              break;
          }
        }
        if (cast[i]) {
          auto c = CastEvolvedValue(v, sources[i]->type, layout.fields[target[i]].type, time_zone);
          if (!c.ok()) return fail(c.status());
          v = std::move(*c);
        }
        kv.value[target[i]] = std::move(v);
      }
      out.push_back(std::move(kv));
    }
  }
  return out;
}

// Reads a Parquet data file: table columns are matched by field id (as Paimon does across renames),
// else by name; the system columns by name.
Result<std::vector<KeyValue>> ReadParquetFile(const std::string& path, ParquetReaderPtr reader,
                                              const FileLayout& layout, int32_t level,
                                              const std::shared_ptr<const std::vector<bool>>& mask,
                                              const std::vector<Field>* file_fields,
                                              const ReadPushdown& pushdown) {
  const std::vector<bool>* needed = pushdown.needed;
  const std::vector<Predicate>* skip_filters = pushdown.skip_filters;
  const auto& schema = reader->schema();
  std::vector<int> projection;
  std::vector<int> target;  // table column of each projected column; -1 seq, -2 kind
  std::vector<const Field*> sources;
  for (size_t i = 0; i < layout.fields.size(); i++) {
    if (needed && !(*needed)[i]) continue;
    const Field* src = SourceField(layout.fields[i], file_fields);
    if (!src) continue;
    int c = FileColumnOf(schema, *src);
    if (c < 0) continue;
    const auto& stored = schema.columns()[c].type;
    if (stored && !StoredTypeFits(*stored, src->type)) {
      return Status::Corruption("data file '" + path + "': column '" + src->name +
                                "' is stored as " + stored->ToString() +
                                " but the file's schema declares " + src->type.ToString());
    }
    projection.push_back(c);
    target.push_back(static_cast<int>(i));
    sources.push_back(src);
  }
  if (layout.primary_key) {
    int seq = schema.FindColumn("_SEQUENCE_NUMBER");
    int kind = schema.FindColumn("_VALUE_KIND");
    if (seq < 0 || kind < 0) {
      return Status::Corruption("data file '" + path +
                                "' lacks _SEQUENCE_NUMBER/_VALUE_KIND columns");
    }
    projection.push_back(seq);
    target.push_back(-1);
    projection.push_back(kind);
    target.push_back(-2);
  }
  format::parquet::ParquetReadOptions opts;
  opts.projection = projection;
  opts.row_group_filter = RowGroupFilterFor(schema, layout, file_fields, skip_filters);
  // Whether each column's type changed since the file was written (decided once, not per value).
  // Nested columns are read in the file's shape (no evolution inside nested types yet).
  std::vector<bool> cast(target.size(), false);
  for (size_t i = 0; i < target.size(); i++) {
    if (target[i] < 0) continue;
    const DataType& to = layout.fields[target[i]].type;
    cast[i] = !sources[i]->type.SameKind(to) && !to.IsNested();
  }
  // Late materialization: with row filters on projected, uncast columns, decode those columns
  // first and the others only for the rows that pass.
  std::vector<std::pair<size_t, const Predicate*>> row_checks;  // projected position, predicate
  bool late = pushdown.row_filters && !pushdown.row_filters->empty();
  for (size_t k = 0; late && k < pushdown.row_filters->size(); k++) {
    const Predicate& p = (*pushdown.row_filters)[k];
    auto it = std::find(target.begin(), target.end(), p.column);
    if (it == target.end() || cast[it - target.begin()]) {
      late = false;
    } else {
      row_checks.push_back({static_cast<size_t>(it - target.begin()), &p});
    }
  }
  Result<std::vector<Row>> rows = std::vector<Row>{};
  if (late) {
    std::vector<size_t> filter_pos, other_pos;
    for (size_t i = 0; i < projection.size(); i++) {
      bool f = std::any_of(row_checks.begin(), row_checks.end(),
                           [&](const auto& c) { return c.first == i; });
      (f ? filter_pos : other_pos).push_back(i);
    }
    // Where each check's column lands among the filter columns.
    std::vector<size_t> check_col;
    for (const auto& c : row_checks) {
      check_col.push_back(std::find(filter_pos.begin(), filter_pos.end(), c.first) -
                          filter_pos.begin());
    }
    auto pick = [&](const std::vector<size_t>& pos) {
      std::vector<int> cols;
      for (size_t i : pos) cols.push_back(projection[i]);
      return cols;
    };
    const std::vector<int> filter_cols = pick(filter_pos), other_cols = pick(other_pos);
    for (int rg = 0; rg < reader->num_row_groups(); rg++) {
      if (opts.row_group_filter && !opts.row_group_filter(reader->RowGroupStatistics(rg))) {
        continue;
      }
      // The page index narrows the row group to pages whose statistics allow a match; the
      // other pages are not decoded.
      auto wanted = PageIndexRows(*reader, rg, projection, row_checks);
      if (!wanted.ok()) return wanted.status().WithContext("data file '" + path + "'");
      if (*wanted && (*wanted)->empty()) continue;
      const format::parquet::RowRanges* rows_wanted = *wanted ? &**wanted : nullptr;
      auto fcols = reader->ReadRowGroupColumns(rg, filter_cols, rows_wanted);
      if (!fcols.ok()) return fcols.status().WithContext("data file '" + path + "'");
      // With page ranges the columns hold only the rows of those ranges, all in the same order.
      const size_t n = fcols->empty() ? 0 : (*fcols)[0].size();
      std::vector<uint32_t> selected;
      for (size_t r = 0; r < n; r++) {
        bool pass = true;
        for (size_t k = 0; k < row_checks.size() && pass; k++) {
          pass = EvalPredicate(*row_checks[k].second, (*fcols)[check_col[k]][r]);
        }
        if (pass) selected.push_back(static_cast<uint32_t>(r));
      }
      if (selected.empty()) continue;
      std::vector<std::vector<Value>> ocols;
      if (!other_cols.empty()) {
        auto o = reader->ReadRowGroupColumns(rg, other_cols, rows_wanted);
        if (!o.ok()) return o.status().WithContext("data file '" + path + "'");
        ocols = std::move(*o);
      }
      for (uint32_t r : selected) {
        Row row(projection.size());
        for (size_t j = 0; j < filter_pos.size(); j++) row[filter_pos[j]] = std::move((*fcols)[j][r]);
        for (size_t j = 0; j < other_pos.size(); j++) row[other_pos[j]] = std::move(ocols[j][r]);
        rows->push_back(std::move(row));
      }
    }
  } else {
    return ReadParquetRecords(path, *reader, opts, projection, target, cast, sources, layout, level,
                              mask, pushdown.time_zone);
  }
  if (!rows.ok()) return rows.status().WithContext("data file '" + path + "'");
  std::vector<KeyValue> out;
  out.reserve(rows->size());
  int64_t row_number = 0;
  for (auto& r : *rows) {
    KeyValue kv = EmptyRecord(level, mask, layout.fields.size(), row_number++);
    for (size_t i = 0; i < target.size(); i++) {
      if (target[i] >= 0) {
        const DataType& to = layout.fields[target[i]].type;
        if (cast[i]) {
          auto cast = CastEvolvedValue(r[i], sources[i]->type, to, pushdown.time_zone);
          if (!cast.ok()) return cast.status().WithContext("data file '" + path + "'");
          kv.value[target[i]] = std::move(*cast);
        } else {
          kv.value[target[i]] = std::move(r[i]);
        }
      } else if (target[i] == -1) {
        if (!r[i].is_int()) return Status::Corruption("data file '" + path + "': bad _SEQUENCE_NUMBER");
        kv.sequence = r[i].int_value();
      } else {
        if (!r[i].is_int() || r[i].int_value() < 0 || r[i].int_value() > 3) {
          return Status::Corruption("data file '" + path + "' has an invalid _VALUE_KIND");
        }
        kv.kind = static_cast<RowKind>(r[i].int_value());
      }
    }
    out.push_back(std::move(kv));
  }
  return out;
}
}  // namespace

namespace {
// Paimon's `.blob` files hold the values of one BLOB column of an append table, one record per
// row: a 4-byte magic, the value, the record's total length (8 bytes, little-endian) and a CRC32,
// then an index footer. Records are found by their length fields.
Result<std::vector<KeyValue>> ReadBlobFile(const std::string& path, const std::string& bytes,
                                           const FileLayout& layout,
                                           const std::optional<std::vector<std::string>>& write_cols,
                                           const std::vector<Field>* file_fields, int32_t level) {
  static const char kMagic[4] = {'\xcf', '\x11', '\x4e', '\x58'};
  auto bad = [&](const std::string& why) {
    return Status::Corruption("blob file '" + path + "': " + why);
  };
  // The column it holds: the one its _WRITE_COLS names (in the schema it was written with).
  int column = -1;
  if (write_cols && write_cols->size() == 1) {
    const std::vector<Field>& ff = file_fields ? *file_fields : layout.fields;
    for (const auto& f : ff) {
      if (f.name != (*write_cols)[0]) continue;
      for (size_t i = 0; i < layout.fields.size(); i++) {
        if (layout.fields[i].id == f.id) column = static_cast<int>(i);
      }
    }
  }
  if (column < 0) return bad("cannot tell which column it holds");
  std::vector<KeyValue> out;
  size_t p = 0;
  while (p + 4 <= bytes.size() && std::memcmp(bytes.data() + p, kMagic, 4) == 0) {
    // The smallest end e with LE64(e - 12) == e - p whose CRC matches is this record's end.
    size_t end = 0;
    for (size_t e = p + 16; e <= bytes.size(); e++) {
      uint64_t len = 0;
      for (int b = 7; b >= 0; b--) len = (len << 8) | static_cast<uint8_t>(bytes[e - 12 + b]);
      if (len != e - p) continue;
      // CRC32 of the record up to it (magic, value, length), stored little-endian.
      uint32_t crc = 0;
      for (int b = 3; b >= 0; b--) crc = (crc << 8) | static_cast<uint8_t>(bytes[e - 4 + b]);
      uint32_t want = static_cast<uint32_t>(
          ::crc32(0, reinterpret_cast<const Bytef*>(bytes.data() + p), static_cast<uInt>(e - 4 - p)));
      if (crc == want) {
        end = e;
        break;
      }
    }
    if (!end) return bad("a record without a valid length and CRC at offset " + std::to_string(p));
    KeyValue kv;
    kv.level = level;
    kv.sequence = static_cast<int64_t>(out.size());
    kv.value.resize(layout.fields.size());
    kv.value[column] = Value::String(bytes.substr(p + 4, end - 16 - p));
    out.push_back(std::move(kv));
    p = end;
  }
  return out;
}
}  // namespace

Result<std::vector<KeyValue>> ReadDataFile(const DataFileRef& file, const FileLayout& layout,
                                           int32_t level,
                                           const std::optional<std::vector<std::string>>& write_cols,
                                           const std::vector<Field>* file_fields,
                                           const ReadPushdown& pushdown) {
  const std::string& path = file.path;
  const std::vector<bool>* needed = pushdown.needed;
  std::shared_ptr<const std::vector<bool>> mask;
  if (write_cols) {
    auto m = std::make_shared<std::vector<bool>>(layout.fields.size(), false);
    for (const auto& c : *write_cols) {
      for (size_t i = 0; i < layout.fields.size(); i++) {
        if (layout.fields[i].name == c) (*m)[i] = true;
      }
    }
    mask = std::move(m);
  }
  if (path.size() > 8 && path.compare(path.size() - 8, 8, ".parquet") == 0) {
    // Mapped, not read: only the pages of the decoded columns are touched.
    TRIB_ASSIGN_OR_RETURN(auto reader, OpenParquet(file));
    return ReadParquetFile(path, std::move(reader), layout, level, mask, file_fields, pushdown);
  }
  auto bytes = io::LocalFs().ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".blob") == 0) {
    return ReadBlobFile(path, *bytes, layout, write_cols, file_fields, level);
  }
  if (!(path.size() > 5 && path.compare(path.size() - 5, 5, ".avro") == 0)) {
    std::string ext = path.substr(path.rfind('.') == std::string::npos ? path.size()
                                                                        : path.rfind('.'));
    return Status::NotSupported("data file '" + path + "' has format '" + ext +
                                "', which Tributary cannot read (it reads .parquet and .avro)");
  }
  auto reader = avro::FileReader::Open(std::move(*bytes));
  if (!reader.ok()) return reader.status().WithContext("data file '" + path + "'");
  const avro::Schema& schema = (*reader)->schema()->NonNull();
  // Where each table column sits in the file's records.
  std::vector<DataType> src_types;
  std::vector<int> pos(layout.fields.size(), -1);
  for (size_t i = 0; i < layout.fields.size(); i++) {
    const Field* src = (needed && !(*needed)[i]) ? nullptr : SourceField(layout.fields[i], file_fields);
    pos[i] = src ? schema.FieldIndex(src->name) : -1;
    src_types.push_back(src ? src->type : layout.fields[i].type);
  }
  int seq_pos = schema.FieldIndex("_SEQUENCE_NUMBER");
  int kind_pos = schema.FieldIndex("_VALUE_KIND");
  if (layout.primary_key && (seq_pos < 0 || kind_pos < 0)) {
    return Status::Corruption("data file '" + path +
                              "' lacks _SEQUENCE_NUMBER/_VALUE_KIND columns");
  }
  std::vector<KeyValue> out;
  Datum d;
  int64_t row_number = 0;
  while (true) {
    auto more = (*reader)->Next(&d);
    if (!more.ok()) return more.status().WithContext("data file '" + path + "'");
    if (!*more) break;
    const DatumList& rec = d.as_list();
    KeyValue kv;
    kv.level = level;
    kv.write_mask = mask;
    kv.value.resize(layout.fields.size());
    for (size_t i = 0; i < layout.fields.size(); i++) {
      if (pos[i] < 0) continue;
      auto v = FromDatum(rec[pos[i]], src_types[i], path);
      if (!v.ok()) {
        std::string m = v.status().message();
        if (m.rfind(path + ": ", 0) == 0) m = m.substr(path.size() + 2);
        return Status::Corruption("data file '" + path + "': column '" + layout.fields[i].name +
                                  "': " + m);
      }
      kv.value[i] = std::move(*v);
      if (!src_types[i].SameKind(layout.fields[i].type) && !layout.fields[i].type.IsNested()) {
        auto cast = CastEvolvedValue(kv.value[i], src_types[i], layout.fields[i].type,
                                     pushdown.time_zone);
        if (!cast.ok()) return cast.status().WithContext("data file '" + path + "'");
        kv.value[i] = std::move(*cast);
      }
    }
    if (layout.primary_key) {
      if (!std::holds_alternative<int64_t>(rec[seq_pos].rep) ||
          !std::holds_alternative<int32_t>(rec[kind_pos].rep)) {
        return Status::Corruption("data file '" + path +
                                  "': _SEQUENCE_NUMBER or _VALUE_KIND has the wrong type");
      }
      kv.sequence = std::get<int64_t>(rec[seq_pos].rep);
      int32_t kind = rec[kind_pos].as_int();
      if (kind < 0 || kind > 3) {
        return Status::Corruption("data file '" + path + "' has an invalid _VALUE_KIND " +
                                  std::to_string(kind));
      }
      kv.kind = static_cast<RowKind>(kind);
    } else {
      kv.sequence = row_number;
    }
    row_number++;
    out.push_back(std::move(kv));
  }
  TRIB_RETURN_NOT_OK(CheckRowCount(file, row_number));
  return out;
}

namespace {

// Clears keep[r] for the rows of `col` failing `p`. Integer comparisons with an integer literal
// run on the raw vector; everything else through EvalPredicate.
void FilterColumn(const Predicate& p, const ColumnVector& col, std::vector<uint8_t>* keep) {
  const size_t n = keep->size();
  const bool raw = col.rep == ColumnVector::Rep::kInt && col.type.IsInteger() &&
                   p.literals.size() == 1 && p.literals[0].is_int() &&
                   p.op != Predicate::Op::kIn && p.op != Predicate::Op::kIsNull &&
                   p.op != Predicate::Op::kIsNotNull;
  if (!raw) {
    for (size_t r = 0; r < n; r++) {
      if ((*keep)[r] && !EvalPredicate(p, col.Get(r))) (*keep)[r] = 0;
    }
    return;
  }
  const int64_t lit = p.literals[0].int_value();
  const int64_t* v = col.ints.data();
  uint8_t* k = keep->data();
  switch (p.op) {
    case Predicate::Op::kEq: for (size_t r = 0; r < n; r++) k[r] &= v[r] == lit; break;
    case Predicate::Op::kNe: for (size_t r = 0; r < n; r++) k[r] &= v[r] != lit; break;
    case Predicate::Op::kLt: for (size_t r = 0; r < n; r++) k[r] &= v[r] < lit; break;
    case Predicate::Op::kLe: for (size_t r = 0; r < n; r++) k[r] &= v[r] <= lit; break;
    case Predicate::Op::kGt: for (size_t r = 0; r < n; r++) k[r] &= v[r] > lit; break;
    case Predicate::Op::kGe: for (size_t r = 0; r < n; r++) k[r] &= v[r] >= lit; break;
    default: break;
  }
  if (!col.nulls.empty()) {
    for (size_t r = 0; r < n; r++) k[r] &= !col.nulls[r];  // a comparison with NULL fails
  }
}

}  // namespace

struct ColumnFileReader::State {
  DataFileRef file{std::string()};
  const FileLayout* layout = nullptr;
  std::vector<int> columns;
  std::vector<Predicate> filters;
  ParquetReaderPtr reader;
  std::vector<int> table_cols;  // the output columns, then filter columns
  std::vector<int> file_col;    // file column of each
  int kind_col = -1;
  std::vector<size_t> first_pos, other_pos;  // positions in table_cols
  std::vector<int> first_cols, other_cols;   // their file columns (first: + the row kind)
  format::parquet::RowGroupFilter group_filter;
  int rg = -1;          // the row group being read
  int64_t rg_rows = 0;  // its rows
  int64_t at = 0;       // the next row of it to read
};

ColumnFileReader::ColumnFileReader() = default;
ColumnFileReader::~ColumnFileReader() = default;

Result<std::unique_ptr<ColumnFileReader>> ColumnFileReader::Open(
    const DataFileRef& file, const FileLayout& layout, const std::vector<int>& columns,
    const std::vector<Predicate>* skip_filters, const std::vector<Predicate>* row_filters) {
  const std::string& path = file.path;
  if (!(path.size() > 8 && path.compare(path.size() - 8, 8, ".parquet") == 0)) return std::unique_ptr<ColumnFileReader>();
  auto st = std::make_unique<State>();
  st->file = file;
  st->layout = &layout;
  st->columns = columns;
  if (row_filters) st->filters = *row_filters;
  TRIB_ASSIGN_OR_RETURN(st->reader, OpenParquet(file));
  const auto& schema = st->reader->schema();
  st->table_cols = columns;
  for (const auto& p : st->filters) {
    if (std::find(st->table_cols.begin(), st->table_cols.end(), p.column) ==
        st->table_cols.end()) {
      st->table_cols.push_back(p.column);
    }
  }
  st->file_col.resize(st->table_cols.size());
  for (size_t i = 0; i < st->table_cols.size(); i++) {
    const Field& f = layout.fields[st->table_cols[i]];
    int c = FileColumnOf(schema, f);
    if (c < 0) return std::unique_ptr<ColumnFileReader>();  // missing columns read as NULL: the row path does that
    auto type = st->reader->ColumnType(c);
    // The file was written with the read schema; its Parquet type may still say less (STRING
    // for VARCHAR(n)), so only the kind of value is compared.
    if (!type || type->id != f.type.id) return std::unique_ptr<ColumnFileReader>();
    st->file_col[i] = c;
  }
  if (layout.primary_key) {
    st->kind_col = schema.FindColumn("_VALUE_KIND");
    if (st->kind_col < 0) {
      return Status::Corruption("data file '" + path + "' lacks the _VALUE_KIND column");
    }
  }
  // Filter columns (and the row kind) are decoded first.
  for (size_t i = 0; i < st->table_cols.size(); i++) {
    bool f = std::any_of(st->filters.begin(), st->filters.end(),
                         [&](const Predicate& p) { return p.column == st->table_cols[i]; });
    (f ? st->first_pos : st->other_pos).push_back(i);
  }
  for (size_t i : st->first_pos) st->first_cols.push_back(st->file_col[i]);
  if (st->kind_col >= 0) st->first_cols.push_back(st->kind_col);
  for (size_t i : st->other_pos) st->other_cols.push_back(st->file_col[i]);
  st->group_filter = RowGroupFilterFor(schema, layout, nullptr, skip_filters);
  std::unique_ptr<ColumnFileReader> r(new ColumnFileReader());
  r->state_ = std::move(st);
  return r;
}

Result<bool> ColumnFileReader::Next(size_t max_rows, ColumnBatch* out) {
  State& st = *state_;
  const auto& reader = st.reader;
  const std::string& path = st.file.path;
  auto fail = [&](const Status& s) { return s.WithContext("data file '" + path + "'"); };
  while (true) {
    if (st.rg < 0 || st.at >= st.rg_rows) {
      // The next row group the statistics keep.
      do {
        st.rg++;
        if (st.rg >= reader->num_row_groups()) return false;
      } while (st.group_filter && !st.group_filter(reader->RowGroupStatistics(st.rg)));
      st.rg_rows = reader->metadata().row_groups[st.rg].num_rows;
      st.at = 0;
      if (st.rg_rows == 0) continue;
    }
    const int rg = st.rg;
    // A slice of the row group, or all of it.
    const bool whole = max_rows == 0 || st.rg_rows <= static_cast<int64_t>(max_rows);
    const int64_t begin = st.at;
    const int64_t end = whole ? st.rg_rows : std::min<int64_t>(st.rg_rows, begin + max_rows);
    st.at = end;
    const format::parquet::RowRanges slice = {{begin, end}};
    const size_t n = static_cast<size_t>(end - begin);
    std::vector<ColumnVector> got(st.table_cols.size());
    // Decodes file columns `cols` into got[pos[k]] (a trailing extra column stays in *rest).
    // Integer and floating-point chunks read whole are kept decoded in the process-wide cache
    // (the file is immutable), so repeated scans copy them instead of decompressing again.
    auto decode = [&](const std::vector<int>& cols, const std::vector<size_t>& pos,
                      std::vector<ColumnVector>* rest) -> Status {
      rest->assign(cols.size(), ColumnVector());
      std::vector<int> fresh;
      std::vector<size_t> fresh_at;
      for (size_t k = 0; k < cols.size(); k++) {
        auto type = reader->ColumnType(cols[k]);
        auto rep = type ? ColumnVector::RepOf(*type) : ColumnVector::Rep::kValue;
        if (!whole || (rep != ColumnVector::Rep::kInt && rep != ColumnVector::Rep::kDouble)) {
          fresh.push_back(cols[k]);
          fresh_at.push_back(k);
          continue;
        }
        TRIB_ASSIGN_OR_RETURN(
            auto cached,
            FileCache::Instance().GetOrLoad<ColumnVector>(
                "column:" + path + ":" + std::to_string(rg) + ":" + std::to_string(cols[k]),
                [&]() -> Result<std::pair<ColumnVector, int64_t>> {
                  auto one = reader->ReadRowGroupVectors(rg, {cols[k]});
                  if (!one.ok()) return one.status().WithContext("data file '" + path + "'");
                  ColumnVector& c = (*one)[0];
                  int64_t size = 64 + static_cast<int64_t>(c.ints.size() * 8 +
                                                           c.doubles.size() * 8 + c.nulls.size());
                  return std::make_pair(std::move(c), size);
                }));
        (*rest)[k] = *cached;
      }
      if (!fresh.empty()) {
        auto decoded = reader->ReadRowGroupVectors(rg, fresh, whole ? nullptr : &slice);
        if (!decoded.ok()) return decoded.status().WithContext("data file '" + path + "'");
        for (size_t k = 0; k < fresh.size(); k++) (*rest)[fresh_at[k]] = std::move((*decoded)[k]);
      }
      for (auto& v : *rest) {
        if (v.size() != n) {
          return Status::Corruption("data file '" + path + "': a column chunk's row count differs");
        }
      }
      for (size_t k = 0; k < pos.size(); k++) got[pos[k]] = std::move((*rest)[k]);
      return Status::OK();
    };
    std::vector<uint8_t> keep(n, 1);
    if (!st.first_cols.empty()) {
      std::vector<ColumnVector> first;
      Status s = decode(st.first_cols, st.first_pos, &first);
      if (!s.ok()) return fail(s);
      if (st.kind_col >= 0) {
        const ColumnVector& kinds = first.back();
        for (size_t r = 0; r < n; r++) {
          int64_t kind = kinds.rep == ColumnVector::Rep::kInt && !kinds.IsNull(r) ? kinds.ints[r]
                                                                                  : -1;
          if (kind < 0 || kind > 3) {
            return fail(Status::Corruption("invalid _VALUE_KIND in row " +
                                           std::to_string(begin + static_cast<int64_t>(r))));
          }
          if (IsRetract(static_cast<RowKind>(kind))) keep[r] = 0;
        }
      }
      for (const auto& p : st.filters) {
        size_t i = std::find(st.table_cols.begin(), st.table_cols.end(), p.column) -
                   st.table_cols.begin();
        FilterColumn(p, got[i], &keep);
      }
    }
    std::vector<uint32_t> selected;
    selected.reserve(n);
    for (size_t r = 0; r < n; r++) {
      if (keep[r]) selected.push_back(static_cast<uint32_t>(r));
    }
    if (selected.empty()) continue;
    if (!st.other_cols.empty()) {
      std::vector<ColumnVector> other;
      Status s = decode(st.other_cols, st.other_pos, &other);
      if (!s.ok()) return fail(s);
    }
    ColumnBatch batch;
    batch.num_rows = selected.size();
    for (size_t i = 0; i < st.columns.size(); i++) {
      ColumnVector& v = got[i];
      // Values read with the file's type; the column's declared type (nullability, length) is
      // the table's.
      v.type = st.layout->fields[st.columns[i]].type;
      if (selected.size() == n) {
        batch.columns.push_back(std::move(v));
      } else {
        ColumnVector picked;
        picked.type = v.type;
        picked.rep = v.rep;
        picked.AppendRows(v, selected);
        batch.columns.push_back(std::move(picked));
      }
    }
    *out = std::move(batch);
    return true;
  }
}

Result<std::optional<std::vector<ColumnBatch>>> ReadDataFileColumns(
    const DataFileRef& file, const FileLayout& layout, const std::vector<int>& columns,
    const std::vector<Predicate>* skip_filters, const std::vector<Predicate>* row_filters) {
  using Batches = std::optional<std::vector<ColumnBatch>>;
  TRIB_ASSIGN_OR_RETURN(auto reader,
                        ColumnFileReader::Open(file, layout, columns, skip_filters, row_filters));
  if (!reader) return Batches();
  std::vector<ColumnBatch> out;
  ColumnBatch b;
  while (true) {
    TRIB_ASSIGN_OR_RETURN(bool more, reader->Next(0, &b));
    if (!more) break;
    out.push_back(std::move(b));
  }
  return Batches(std::move(out));
}

namespace {

// One Parquet file of a bucket merged column by column: its key, sequence and kind columns over
// the row groups read.
struct DedupFile {
  std::string path;
  ParquetReaderPtr reader;
  std::vector<int> groups;
  std::vector<int64_t> keys;              // a key of one integer column: its values
  std::vector<ColumnVector> key_columns;  // any other key: its columns
  std::vector<int64_t> seqs, kinds;
  size_t size() const { return seqs.size(); }
};

// The records of one key across files (ForEachKeyGroup's members: file, position), in merge
// order, as ColumnMergePlan::Merge reads them; `base[f]` numbers file f's first record among all.
struct KeyGroup {
  const std::vector<DedupFile>* files;
  const std::vector<uint32_t>* base;
  const std::vector<std::pair<uint32_t, uint32_t>>* members;
  size_t size() const { return members->size(); }
  RowKind kind(size_t m) const {
    const auto& [f, pos] = (*members)[m];
    return static_cast<RowKind>((*files)[f].kinds[pos]);
  }
  int64_t seq(size_t m) const {
    const auto& [f, pos] = (*members)[m];
    return (*files)[f].seqs[pos];
  }
  uint32_t row(size_t m) const {
    const auto& [f, pos] = (*members)[m];
    return (*base)[f] + pos;
  }
};

// -1, 0, 1 as CompareValues orders value i of `a` and value j of `b` (same type and rep).
int CompareCells(const ColumnVector& a, size_t i, const ColumnVector& b, size_t j) {
  const bool na = a.IsNull(i), nb = b.IsNull(j);
  if (na || nb) return na == nb ? 0 : (na ? -1 : 1);
  switch (a.rep) {
    case ColumnVector::Rep::kInt:
      return a.ints[i] < b.ints[j] ? -1 : (a.ints[i] > b.ints[j] ? 1 : 0);
    case ColumnVector::Rep::kString: {
      int c = a.strings[i].compare(b.strings[j]);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    default:
      return CompareValues(a.Get(i), b.Get(j));
  }
}

// -1, 0, 1 as record i of `a` and record j of `b` order by key.
int CompareKeyAt(const DedupFile& a, size_t i, const DedupFile& b, size_t j) {
  if (a.key_columns.empty()) return a.keys[i] < b.keys[j] ? -1 : (a.keys[i] > b.keys[j] ? 1 : 0);
  for (size_t c = 0; c < a.key_columns.size(); c++) {
    int r = CompareCells(a.key_columns[c], i, b.key_columns[c], j);
    if (r != 0) return r;
  }
  return 0;
}

// Opens `path` and reads its key, sequence and kind columns over the row groups `skip_filters`
// keep. False: the file holds something this path does not read (not Parquet, columns missing
// or of other types, NULL sequence numbers or kinds).
Result<bool> LoadDedupKeys(const DataFileRef& ref, const FileLayout& layout,
                           const std::vector<Predicate>* skip_filters, DedupFile* file) {
  const std::string& path = ref.path;
  if (layout.key_columns.empty()) return false;
  if (!(path.size() > 8 && path.compare(path.size() - 8, 8, ".parquet") == 0)) return false;
  file->path = path;
  TRIB_ASSIGN_OR_RETURN(file->reader, OpenParquet(ref));
  const auto& schema = file->reader->schema();
  std::vector<int> cols;  // the key columns, then _SEQUENCE_NUMBER and _VALUE_KIND
  for (int k : layout.key_columns) {
    const Field& f = layout.fields[k];
    int c = FileColumnOf(schema, f);
    auto type = c >= 0 ? file->reader->ColumnType(c) : std::nullopt;
    if (!type || type->id != f.type.id || f.type.IsNested()) return false;
    cols.push_back(c);
  }
  const size_t nk = cols.size();
  cols.push_back(schema.FindColumn("_SEQUENCE_NUMBER"));
  cols.push_back(schema.FindColumn("_VALUE_KIND"));
  if (cols[nk] < 0 || cols[nk + 1] < 0) return false;
  const bool int_key = nk == 1 && layout.fields[layout.key_columns[0]].type.IsInteger();
  if (!int_key) file->key_columns.resize(nk);
  auto group_filter = RowGroupFilterFor(schema, layout, nullptr, skip_filters);
  for (int rg = 0; rg < file->reader->num_row_groups(); rg++) {
    if (group_filter && !group_filter(file->reader->RowGroupStatistics(rg))) continue;
    file->groups.push_back(rg);
    auto v = file->reader->ReadRowGroupVectors(rg, cols);
    if (!v.ok()) return v.status().WithContext("data file '" + path + "'");
    for (size_t i = nk; i < v->size(); i++) {
      if ((*v)[i].rep != ColumnVector::Rep::kInt || !(*v)[i].nulls.empty()) return false;
    }
    auto append = [](const std::vector<int64_t>& from, std::vector<int64_t>* to) {
      to->insert(to->end(), from.begin(), from.end());
    };
    if (int_key) {
      if ((*v)[0].rep != ColumnVector::Rep::kInt || !(*v)[0].nulls.empty()) return false;
      append((*v)[0].ints, &file->keys);
    } else {
      for (size_t k = 0; k < nk; k++) {
        if (file->key_columns[k].size() == 0) {
          file->key_columns[k] = std::move((*v)[k]);
        } else if ((*v)[k].rep != file->key_columns[k].rep) {
          return false;
        } else {
          file->key_columns[k].AppendAll(std::move((*v)[k]));
        }
      }
    }
    append((*v)[nk].ints, &file->seqs);
    append((*v)[nk + 1].ints, &file->kinds);
  }
  // Keys strictly ascending; anything else (keys that compare equal, like -0.0 and 0.0 of a
  // DOUBLE key, in a file another writer wrote) is left to the row merge.
  for (size_t i = 1; i < file->size(); i++) {
    if (CompareKeyAt(*file, i - 1, *file, i) >= 0) return false;
  }
  return true;
}

// Whether the files' key columns decoded to the same representations (CompareCells compares
// across files by the first one's).
bool SameKeyReps(const std::vector<DedupFile>& files) {
  for (const DedupFile& f : files) {
    if (f.key_columns.size() != files[0].key_columns.size()) return false;
    for (size_t k = 0; k < f.key_columns.size(); k++) {
      if (f.size() > 0 && files[0].size() > 0 &&
          f.key_columns[k].rep != files[0].key_columns[k].rep) {
        return false;
      }
    }
  }
  return true;
}

// The records of each key in key order, as (file, position) pairs in merge order (ascending
// sequence, a later file on equal sequences), passed to fn(members); fn returns false to stop.
template <typename Fn>
Status ForEachKeyGroup(const std::vector<DedupFile>& files, Fn&& fn) {
  std::vector<size_t> pos(files.size(), 0);
  std::vector<std::pair<uint32_t, uint32_t>> members;
  const bool int_keys = !files.empty() && files[0].key_columns.empty();
  auto compare = [&](size_t f, size_t i, size_t g, size_t j) {
    if (int_keys) {
      const int64_t x = files[f].keys[i], y = files[g].keys[j];
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    return CompareKeyAt(files[f], i, files[g], j);
  };
  while (true) {
    int lowest = -1;
    for (size_t f = 0; f < files.size(); f++) {
      if (pos[f] >= files[f].size()) continue;
      if (lowest < 0 || compare(f, pos[f], static_cast<size_t>(lowest), pos[lowest]) < 0) {
        lowest = static_cast<int>(f);
      }
    }
    if (lowest < 0) return Status::OK();
    const size_t at = static_cast<size_t>(lowest), at_pos = pos[at];
    members.clear();
    for (size_t f = 0; f < files.size(); f++) {
      if (pos[f] >= files[f].size()) continue;
      if (f != at && compare(f, pos[f], at, at_pos) != 0) continue;
      const int64_t kind = files[f].kinds[pos[f]];
      if (kind < 0 || kind > 3) {
        return Status::Corruption("data file '" + files[f].path +
                                  "' has an invalid _VALUE_KIND " + std::to_string(kind));
      }
      members.push_back({static_cast<uint32_t>(f), static_cast<uint32_t>(pos[f])});
      pos[f]++;
    }
    // Files are in order already: a stable sort by sequence keeps a later file later on ties.
    if (members.size() > 1) {
      std::stable_sort(members.begin(), members.end(), [&](const auto& x, const auto& y) {
        return files[x.first].seqs[x.second] < files[y.first].seqs[y.second];
      });
    }
    if (!fn(members)) return Status::OK();
  }
}

// plan->Merge over every key group of `files`, each seen through make_group(members); false
// (stopping at once) when a key needs the row merge.
template <typename MakeGroup>
Result<bool> MergeEveryKey(const std::vector<DedupFile>& files, ColumnMergePlan* plan,
                           const std::vector<bool>* needed, uint32_t null_row,
                           ColumnMergeOutput* out, const MakeGroup& make_group) {
  bool row_merge = false;
  Status failed;
  TRIB_RETURN_NOT_OK(ForEachKeyGroup(files, [&](const auto& members) {
    auto merged = plan->Merge(make_group(members), needed, null_row, out);
    if (!merged.ok()) {
      failed = merged.status();
      return false;
    }
    row_merge = !*merged;
    return !row_merge;
  }));
  TRIB_RETURN_NOT_OK(failed);
  return !row_merge;
}

// The winning record of each key, in key order, as (file, position): the highest sequence, a
// later file on ties. Winning retractions are kept only with `keep_retracts`.
Result<std::vector<std::pair<uint32_t, uint32_t>>> MergeLatest(const std::vector<DedupFile>& files,
                                                               bool keep_retracts) {
  std::vector<std::pair<uint32_t, uint32_t>> winners;
  TRIB_RETURN_NOT_OK(ForEachKeyGroup(files, [&](const auto& members) {
    const auto& w = members.back();
    if (keep_retracts || !IsRetract(static_cast<RowKind>(files[w.first].kinds[w.second]))) {
      winners.push_back(w);
    }
    return true;
  }));
  return winners;
}

// File column `file_col` over the row groups read, concatenated (positions as LoadDedupKeys').
Result<ColumnVector> ReadDedupColumn(const DedupFile& file, int file_col) {
  ColumnVector all;
  bool first = true;
  for (int rg : file.groups) {
    auto one = file.reader->ReadRowGroupVectors(rg, {file_col});
    if (!one.ok()) return one.status().WithContext("data file '" + file.path + "'");
    if (first) {
      all = std::move((*one)[0]);
      first = false;
    } else {
      all.AppendAll(std::move((*one)[0]));
    }
  }
  if (all.size() != file.size()) {
    return Status::Corruption("data file '" + file.path + "': column lengths differ");
  }
  return all;
}

}  // namespace

Result<std::optional<ColumnBatch>> ReadDeduplicatedColumns(
    const std::vector<DataFileRef>& paths, const FileLayout& layout,
    const std::vector<int>& columns, const std::vector<Predicate>* skip_filters,
    const std::vector<Predicate>* row_filters) {
  using Out = std::optional<ColumnBatch>;
  const std::vector<Predicate> no_filters;
  const std::vector<Predicate>& filters = row_filters ? *row_filters : no_filters;
  // Table columns to gather: the output columns, then the filter columns.
  std::vector<int> table_cols = columns;
  for (const auto& p : filters) {
    if (std::find(table_cols.begin(), table_cols.end(), p.column) == table_cols.end()) {
      table_cols.push_back(p.column);
    }
  }
  std::vector<DedupFile> files(paths.size());
  std::vector<std::vector<int>> file_cols(paths.size());  // file column of table_cols[i]
  for (size_t f = 0; f < paths.size(); f++) {
    TRIB_ASSIGN_OR_RETURN(bool readable, LoadDedupKeys(paths[f], layout, skip_filters, &files[f]));
    if (!readable) return Out();
    for (int t : table_cols) {
      int c = FileColumnOf(files[f].reader->schema(), layout.fields[t]);
      auto type = c >= 0 ? files[f].reader->ColumnType(c) : std::nullopt;
      if (!type || type->id != layout.fields[t].type.id) return Out();
      file_cols[f].push_back(c);
    }
  }
  if (!SameKeyReps(files)) return Out();
  TRIB_ASSIGN_OR_RETURN(auto winners, MergeLatest(files, /*keep_retracts=*/false));
  std::vector<std::vector<ColumnVector>> data(files.size(),
                                              std::vector<ColumnVector>(table_cols.size()));
  std::vector<std::vector<bool>> loaded(files.size(), std::vector<bool>(table_cols.size(), false));
  auto column_of = [&](size_t f, size_t i) -> Result<const ColumnVector*> {
    if (!loaded[f][i]) {
      TRIB_ASSIGN_OR_RETURN(data[f][i], ReadDedupColumn(files[f], file_cols[f][i]));
      loaded[f][i] = true;
    }
    return &data[f][i];
  };
  // Filters on the winners' values.
  std::vector<uint8_t> keep(winners.size(), 1);
  for (const auto& p : filters) {
    size_t i = std::find(table_cols.begin(), table_cols.end(), p.column) - table_cols.begin();
    for (size_t w = 0; w < winners.size(); w++) {
      if (!keep[w]) continue;
      TRIB_ASSIGN_OR_RETURN(const ColumnVector* col, column_of(winners[w].first, i));
      keep[w] = EvalPredicate(p, col->Get(winners[w].second)) ? 1 : 0;
    }
  }
  ColumnBatch batch;
  for (size_t i = 0; i < columns.size(); i++) {
    ColumnVector out;
    out.type = layout.fields[columns[i]].type;
    out.rep = ColumnVector::RepOf(out.type);
    for (size_t w = 0; w < winners.size(); w++) {
      if (!keep[w]) continue;
      TRIB_ASSIGN_OR_RETURN(const ColumnVector* col, column_of(winners[w].first, i));
      if (col->rep != out.rep) return Out();
      out.AppendRow(*col, winners[w].second);
    }
    batch.columns.push_back(std::move(out));
  }
  for (uint8_t k : keep) batch.num_rows += k;
  return Out(std::move(batch));
}

Result<std::optional<MergedColumns>> MergeFilesByColumns(const std::vector<DataFileRef>& paths,
                                                         const FileLayout& layout,
                                                         ColumnMergePlan* plan,
                                                         const std::vector<bool>* needed,
                                                         const std::vector<Predicate>* skip_filters) {
  using Out = std::optional<MergedColumns>;
  std::vector<DedupFile> files(paths.size());
  size_t total = 0;
  for (size_t f = 0; f < paths.size(); f++) {
    TRIB_ASSIGN_OR_RETURN(bool readable,
                          LoadDedupKeys(paths[f], layout, skip_filters, &files[f]));
    if (!readable) return Out();
    total += files[f].size();
  }
  if (total >= UINT32_MAX || !SameKeyReps(files)) return Out();  // rows: 32-bit numbers
  MergedColumns out;
  // Every table column of every file, concatenated, then one NULL row (partial-update columns
  // without a value point at it); the merged records index into them.
  std::vector<uint32_t> base(files.size(), 0);
  for (size_t f = 1; f < files.size(); f++) {
    base[f] = base[f - 1] + static_cast<uint32_t>(files[f - 1].size());
  }
  const uint32_t null_row = static_cast<uint32_t>(total);
  const bool partial_update = plan->kind() == ColumnMergePlan::Kind::kPartialUpdate;
  for (size_t t = 0; t < layout.fields.size(); t++) {
    const Field& field = layout.fields[t];
    ColumnVector all;
    all.type = field.type;
    all.rep = ColumnVector::RepOf(field.type);
    if (needed != nullptr && !(*needed)[t]) {
      out.columns.push_back(std::move(all));  // not read: no rows
      continue;
    }
    all.Reserve(total + 1);  // no regrowth while the files are appended
    for (DedupFile& file : files) {
      if (file.size() == 0) continue;  // every row group skipped: nothing to read
      int c = FileColumnOf(file.reader->schema(), field);
      auto type = c >= 0 ? file.reader->ColumnType(c) : std::nullopt;
      if (!type || type->id != field.type.id || type->IsNested()) return Out();
      TRIB_ASSIGN_OR_RETURN(ColumnVector one, ReadDedupColumn(file, c));
      if (one.rep != all.rep) return Out();
      all.AppendAll(std::move(one));
    }
    if (partial_update) all.Append(Value::Null());
    out.columns.push_back(std::move(all));
  }
  // The records of one key across the files, in merge order, with every file's columns.
  struct Group : KeyGroup {
    const std::vector<ColumnVector>* columns;
    bool IsNull(size_t c, size_t m) const {
      const ColumnVector& col = (*columns)[c];
      const uint32_t r = row(m);
      return col.IsNull(r) || (col.rep == ColumnVector::Rep::kValue && col.values[r].is_null());
    }
    Value Get(size_t c, size_t m) const { return (*columns)[c].Get(row(m)); }
  };
  plan->Start(layout.fields.size(), &out.merged);
  TRIB_ASSIGN_OR_RETURN(bool merged, MergeEveryKey(files, plan, needed, null_row, &out.merged,
                                                   [&](const auto& members) {
                                                     return Group{{&files, &base, &members},
                                                                  &out.columns};
                                                   }));
  if (!merged) return Out();
  return Out(std::move(out));
}

namespace {

// Positions [begin, end) of file column `c` in the concatenation of the row groups the file's
// keys were loaded from (DedupFile::groups), read as one column: only the pages holding them
// are decoded.
Result<ColumnVector> ReadDedupRange(const DedupFile& file, int c, int64_t begin, int64_t end) {
  ColumnVector out;
  bool first = true;
  int64_t at = 0;  // position of the current row group's first row
  for (int rg : file.groups) {
    const int64_t rows = file.reader->metadata().row_groups[rg].num_rows;
    const int64_t lo = std::max(begin, at), hi = std::min(end, at + rows);
    if (lo < hi) {
      const format::parquet::RowRanges range = {{lo - at, hi - at}};
      auto v = file.reader->ReadRowGroupVectors(rg, {c}, lo == at && hi == at + rows ? nullptr
                                                                                   : &range);
      if (!v.ok()) return v.status().WithContext("data file '" + file.path + "'");
      if (first) {
        out = std::move((*v)[0]);
        first = false;
      } else {
        if ((*v)[0].rep != out.rep) {
          return Status::Corruption("data file '" + file.path + "': row groups disagree");
        }
        out.AppendAll(std::move((*v)[0]));
      }
    }
    at += rows;
    if (at >= end) break;
  }
  if (static_cast<int64_t>(out.size()) != end - begin) {
    return Status::Corruption("data file '" + file.path + "': column lengths differ");
  }
  return out;
}

}  // namespace

Result<bool> CompactFilesByChunks(const std::vector<DataFileRef>& paths, const FileLayout& layout,
                                  ColumnMergePlan* plan, size_t chunk_rows,
                                  DataFileWriter* writer) {
  if (plan->kind() != ColumnMergePlan::Kind::kDeduplicate &&
      plan->kind() != ColumnMergePlan::Kind::kFirstRow) {
    return false;  // their merges read values
  }
  std::vector<DedupFile> files(paths.size());
  size_t total = 0;
  for (size_t f = 0; f < paths.size(); f++) {
    TRIB_ASSIGN_OR_RETURN(bool readable, LoadDedupKeys(paths[f], layout, nullptr, &files[f]));
    if (!readable) return false;
    total += files[f].size();
  }
  if (total >= UINT32_MAX || !SameKeyReps(files)) return false;  // rows: 32-bit numbers
  // Every column of every file must be readable column by column before anything is written.
  std::vector<std::vector<int>> file_cols(files.size());
  for (size_t f = 0; f < files.size(); f++) {
    for (const Field& field : layout.fields) {
      int c = FileColumnOf(files[f].reader->schema(), field);
      auto type = c >= 0 ? files[f].reader->ColumnType(c) : std::nullopt;
      if (!type || type->id != field.type.id || type->IsNested()) return false;
      file_cols[f].push_back(c);
    }
  }
  std::vector<uint32_t> base(files.size(), 0);
  for (size_t f = 1; f < files.size(); f++) {
    base[f] = base[f - 1] + static_cast<uint32_t>(files[f - 1].size());
  }
  // The merge on keys, sequences and kinds alone: which record of which file wins.
  struct Group : KeyGroup {
    bool IsNull(size_t, size_t) const { return false; }  // not asked by these engines
    Value Get(size_t, size_t) const { return Value::Null(); }
  };
  ColumnMergeOutput merged;
  plan->Start(layout.fields.size(), &merged);
  TRIB_ASSIGN_OR_RETURN(bool done, MergeEveryKey(files, plan, nullptr, 0, &merged,
                                                 [&](const auto& members) {
                                                   return Group{{&files, &base, &members}};
                                                 }));
  if (!done) return false;
  // The winners' columns, a chunk of merged records at a time: within a chunk each file's
  // records are one range of its rows (files and merge are in key order).
  auto file_of = [&](uint32_t row) {
    return static_cast<size_t>(std::upper_bound(base.begin(), base.end(), row) - base.begin() - 1);
  };
  std::vector<uint32_t> local(std::min(chunk_rows, merged.size()));
  for (size_t k0 = 0; k0 < merged.size(); k0 += chunk_rows) {
    const size_t k1 = std::min(merged.size(), k0 + chunk_rows);
    std::vector<int64_t> lo(files.size(), INT64_MAX), hi(files.size(), -1);
    for (size_t k = k0; k < k1; k++) {
      const uint32_t r = merged.rows[k];
      const size_t f = file_of(r);
      const int64_t pos = r - base[f];
      lo[f] = std::min(lo[f], pos);
      hi[f] = std::max(hi[f], pos);
    }
    // Where each file's range starts among the chunk's rows.
    std::vector<uint32_t> start(files.size(), 0);
    uint32_t next = 0;
    for (size_t f = 0; f < files.size(); f++) {
      start[f] = next;
      if (hi[f] >= 0) next += static_cast<uint32_t>(hi[f] - lo[f] + 1);
    }
    std::vector<ColumnVector> columns(layout.fields.size());
    for (size_t t = 0; t < layout.fields.size(); t++) {
      ColumnVector& all = columns[t];
      all.type = layout.fields[t].type;
      all.rep = ColumnVector::RepOf(all.type);
      all.Reserve(next);
      for (size_t f = 0; f < files.size(); f++) {
        if (hi[f] < 0) continue;
        TRIB_ASSIGN_OR_RETURN(ColumnVector one,
                              ReadDedupRange(files[f], file_cols[f][t], lo[f], hi[f] + 1));
        if (one.rep != all.rep) {
          return Status::Corruption("data file '" + files[f].path + "': column '" +
                                    layout.fields[t].name + "' changed its representation");
        }
        all.AppendAll(std::move(one));
      }
    }
    // Each input is read once: the pages this chunk touched need not stay in memory (the next
    // chunk pages in again the few it shares with this one).
    for (const DedupFile& file : files) file.reader->ReleasePages();
    for (size_t k = k0; k < k1; k++) {
      const uint32_t r = merged.rows[k];
      const size_t f = file_of(r);
      local[k - k0] = start[f] + static_cast<uint32_t>(r - base[f] - lo[f]);
    }
    std::vector<format::parquet::ColumnValues> sources;
    for (const auto& c : columns) sources.push_back(ColumnValuesOf(c));
    TRIB_RETURN_NOT_OK(writer->WriteColumns(sources, local.data(), merged.sequences.data() + k0,
                                            merged.kinds.data() + k0, k1 - k0));
  }
  return true;
}

format::parquet::ColumnValues ColumnValuesOf(const ColumnVector& c) {
  format::parquet::ColumnValues v;
  switch (c.rep) {
    case ColumnVector::Rep::kInt:
      v.ints = c.ints.data();
      break;
    case ColumnVector::Rep::kDouble:
      v.doubles = c.doubles.data();
      break;
    case ColumnVector::Rep::kString:
      v.strings = c.strings.data();
      break;
    case ColumnVector::Rep::kValue:
      v.values = c.values.data();
      break;
  }
  if (!c.nulls.empty()) v.nulls = c.nulls.data();
  return v;
}

}  // namespace tributary::datafile
