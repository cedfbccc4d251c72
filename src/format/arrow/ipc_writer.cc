// Arrow IPC stream writer (format/arrow/ipc.h): rows are appended into column builders (validity
// bitmaps, values, offsets and data, children for nested types), laid out at Finish as one
// record batch.

#include <cstring>
#include <deque>
#include <limits>

#include "format/arrow/ipc.h"
#include "format/arrow/ipc_types.h"
#include "format/compression.h"

namespace tributary::format::arrow {

FlatType FlatTypeOf(const DataType& t) {
  FlatType f;
  switch (t.id) {
    case TypeId::kBoolean:
      f.type = fb::Type::Bool;
      break;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
      f.type = fb::Type::Int;
      f.width = t.id == TypeId::kTinyInt    ? 8
                : t.id == TypeId::kSmallInt ? 16
                : t.id == TypeId::kInt      ? 32
                                            : 64;
      f.scale = 1;
      break;
    case TypeId::kFloat:
    case TypeId::kDouble:
      f.type = fb::Type::FloatingPoint;
      f.unit = static_cast<int16_t>(t.id == TypeId::kFloat ? fb::Precision::SINGLE
                                                           : fb::Precision::DOUBLE);
      break;
    case TypeId::kDecimal:
      f.type = fb::Type::Decimal;
      f.width = t.precision;
      f.scale = t.scale;
      break;
    case TypeId::kChar:
    case TypeId::kVarChar:
      f.type = fb::Type::Utf8;
      break;
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      f.type = fb::Type::Binary;
      break;
    case TypeId::kDate:
      f.type = fb::Type::Date;
      f.unit = static_cast<int16_t>(fb::DateUnit::DAY);
      break;
    case TypeId::kTime:
      f.type = fb::Type::Time;
      f.unit = static_cast<int16_t>(fb::TimeUnit::MILLISECOND);
      f.width = 32;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      f.type = fb::Type::Timestamp;
      f.unit = static_cast<int16_t>(TimestampUnit(t.precision));
      if (t.id == TypeId::kTimestampLtz) f.tz = "UTC";
      break;
    default:
      break;
  }
  return f;
}

namespace {

template <typename T>
void PutLE(std::string* out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // the format is little-endian, as this machine
  out->append(b, sizeof(T));
}

void PushBit(std::string* bits, int64_t i, bool on) {
  if (i % 8 == 0) bits->push_back('\0');
  if (on) (*bits)[i / 8] = static_cast<char>((*bits)[i / 8] | (1 << (i % 8)));
}

int FixedWidth(const DataType& t) {
  switch (t.id) {
    case TypeId::kTinyInt:
      return 1;
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInt:
    case TypeId::kFloat:
    case TypeId::kDate:
    case TypeId::kTime:
      return 4;
    case TypeId::kBigInt:
    case TypeId::kDouble:
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      return 8;
    case TypeId::kDecimal:
      return 16;
    default:
      return 0;
  }
}

bool InNanoseconds(const DataType& t) {
  return t.IsTimestamp() && TimestampUnit(t.precision) == fb::TimeUnit::NANOSECOND;
}

bool HasOffsets(const DataType& t) {
  return t.IsString() || t.IsBinary() || t.id == TypeId::kArray || t.id == TypeId::kMap ||
         t.id == TypeId::kMultiset;
}

}  // namespace

// One column being built (and, for nested types, its children: an ARRAY's element; a MAP's or
// MULTISET's entries struct holding keys and values; a ROW's fields).
struct IpcColumn {
  DataType type;
  bool nullable = true;
  int64_t length = 0;
  int64_t nulls = 0;
  std::string validity;
  std::string values;  // fixed-width values, or a BOOLEAN's bits
  std::string offsets;
  std::string data;
  std::vector<IpcColumn> children;
  bool entries = false;  // a map's entries struct (children: key, value)
  // TIMESTAMP(7..9): `values` holds milliseconds and `nanos` each one's nanoseconds of the
  // millisecond (int32), made one nanosecond count at Finish unless a value is outside its range
  // (`wide`: the column is written as the struct of both, ipc_types.h).
  std::string nanos;
  bool wide = false;
};

struct IpcColumns {
  std::vector<IpcColumn> columns;
};

namespace {

IpcColumn MakeColumn(const DataType& t, bool nullable) {
  IpcColumn c;
  c.type = t;
  c.nullable = nullable;
  if (HasOffsets(t)) PutLE<int32_t>(&c.offsets, 0);
  switch (t.id) {
    case TypeId::kArray:
      c.children.push_back(MakeColumn(t.element(), t.element().nullable));
      break;
    case TypeId::kMap:
    case TypeId::kMultiset: {
      IpcColumn entries;
      entries.type = DataType::Row({});
      entries.nullable = false;
      entries.entries = true;
      entries.children.push_back(MakeColumn(t.key(), false));
      entries.children.push_back(MakeColumn(t.value(), t.value().nullable));
      c.children.push_back(std::move(entries));
      break;
    }
    case TypeId::kRow:
      for (const Field& f : t.fields()) c.children.push_back(MakeColumn(f.type, f.type.nullable));
      break;
    default:
      break;
  }
  return c;
}

Status Mismatch(const IpcColumn& c, const Value& v) {
  return Status::Invalid("arrow: value " + DebugString(v) + " does not fit a column of type " +
                         c.type.ToString());
}

Status AppendValue(IpcColumn* c, const Value* v);

// A slot holding no value: NULL where the column may hold one, else its type's zero (a field of
// a NULL row, which readers never look at).
void AppendEmpty(IpcColumn* c) {
  const int width = FixedWidth(c->type);
  if (width > 0) {
    c->values.append(static_cast<size_t>(width), '\0');
    if (InNanoseconds(c->type)) c->nanos.append(4, '\0');
  } else if (c->type.id == TypeId::kBoolean) {
    PushBit(&c->values, c->length, false);
  } else if (c->type.IsString() || c->type.IsBinary()) {
    PutLE<int32_t>(&c->offsets, static_cast<int32_t>(c->data.size()));
  } else if (HasOffsets(c->type)) {
    PutLE<int32_t>(&c->offsets, static_cast<int32_t>(c->children[0].length));
  } else {  // a struct: each child gets an empty slot of its own
    for (IpcColumn& child : c->children) {
      const bool null = child.nullable;
      PushBit(&child.validity, child.length, !null);
      if (null) child.nulls++;
      AppendEmpty(&child);
      child.length++;
    }
  }
}

// The nanoseconds since the epoch of `millis` and `nanos`, if an int64 holds them.
bool ToNanoseconds(int64_t millis, int32_t nanos, int64_t* out) {
  return !__builtin_mul_overflow(millis, int64_t{1000000}, out) &&
         !__builtin_add_overflow(*out, int64_t{nanos}, out);
}

Status AppendTimestamp(IpcColumn* c, const Timestamp& ts) {
  if (ts.nanos_of_milli < 0 || ts.nanos_of_milli > 999999) return Mismatch(*c, Value::Ts(ts));
  int64_t v = ts.millis;
  switch (TimestampUnit(c->type.precision)) {
    case fb::TimeUnit::MICROSECOND:
      v = ts.millis * 1000 + ts.nanos_of_milli / 1000;  // +-292,000 years: cannot overflow
      break;
    case fb::TimeUnit::NANOSECOND: {
      int64_t unused = 0;
      if (!ToNanoseconds(ts.millis, ts.nanos_of_milli, &unused)) c->wide = true;
      PutLE<int32_t>(&c->nanos, ts.nanos_of_milli);
      break;
    }
    default:
      break;
  }
  PutLE<int64_t>(&c->values, v);
  return Status::OK();
}

Status AppendInt(IpcColumn* c, const Value& v) {
  if (!v.is_int()) return Mismatch(*c, v);
  const int64_t i = v.int_value();
  switch (FixedWidth(c->type)) {
    case 1:
      if (i < INT8_MIN || i > INT8_MAX) return Mismatch(*c, v);
      PutLE<int8_t>(&c->values, static_cast<int8_t>(i));
      break;
    case 2:
      if (i < INT16_MIN || i > INT16_MAX) return Mismatch(*c, v);
      PutLE<int16_t>(&c->values, static_cast<int16_t>(i));
      break;
    case 4:
      if (i < INT32_MIN || i > INT32_MAX) return Mismatch(*c, v);
      PutLE<int32_t>(&c->values, static_cast<int32_t>(i));
      break;
    default:
      PutLE<int64_t>(&c->values, i);
  }
  return Status::OK();
}

// Appends the end of the slot just filled to an offsets buffer (32-bit: 2 GiB per batch).
Status PushOffset(IpcColumn* c, size_t end) {
  if (end > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Status::Invalid("arrow: more than 2 GiB of " + c->type.ToString() +
                           " values in one record batch");
  }
  PutLE<int32_t>(&c->offsets, static_cast<int32_t>(end));
  return Status::OK();
}

Status AppendNested(IpcColumn* c, const Value& v) {
  switch (c->type.id) {
    case TypeId::kArray:
      if (!v.is_array()) return Mismatch(*c, v);
      for (const Value& e : v.array_elements())
        TRIB_RETURN_NOT_OK(AppendValue(&c->children[0], &e));
      return PushOffset(c, static_cast<size_t>(c->children[0].length));
    case TypeId::kMap:
    case TypeId::kMultiset: {
      if (!v.is_map()) return Mismatch(*c, v);
      IpcColumn& entries = c->children[0];
      for (size_t i = 0; i < v.map_keys().size(); i++) {
        TRIB_RETURN_NOT_OK(AppendValue(&entries.children[0], &v.map_keys()[i]));
        TRIB_RETURN_NOT_OK(AppendValue(&entries.children[1], &v.map_values()[i]));
        PushBit(&entries.validity, entries.length, true);
        entries.length++;
      }
      return PushOffset(c, static_cast<size_t>(entries.length));
    }
    default: {  // ROW
      if (!v.is_struct() || v.struct_fields().size() != c->children.size()) {
        return Mismatch(*c, v);
      }
      for (size_t i = 0; i < c->children.size(); i++) {
        TRIB_RETURN_NOT_OK(AppendValue(&c->children[i], &v.struct_fields()[i]));
      }
      return Status::OK();
    }
  }
}

Status AppendNonNull(IpcColumn* c, const Value& v) {
  const DataType& t = c->type;
  switch (t.id) {
    case TypeId::kBoolean:
      if (!v.is_bool()) return Mismatch(*c, v);
      PushBit(&c->values, c->length, v.bool_value());
      return Status::OK();
    case TypeId::kFloat:
      if (!v.is_double()) return Mismatch(*c, v);
      PutLE<float>(&c->values, static_cast<float>(v.double_value()));
      return Status::OK();
    case TypeId::kDouble:
      if (!v.is_double()) return Mismatch(*c, v);
      PutLE<double>(&c->values, v.double_value());
      return Status::OK();
    case TypeId::kDecimal:
      if (!v.is_decimal()) return Mismatch(*c, v);
      PutLE<__int128>(&c->values, v.decimal_value().unscaled);
      return Status::OK();
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      if (!v.is_timestamp()) return Mismatch(*c, v);
      return AppendTimestamp(c, v.timestamp_value());
    default:
      break;
  }
  if (t.IsString() || t.IsBinary()) {
    if (!v.is_string()) return Mismatch(*c, v);
    c->data += v.string_value();
    return PushOffset(c, c->data.size());
  }
  if (t.IsNested()) return AppendNested(c, v);
  return AppendInt(c, v);  // TINYINT..BIGINT, DATE, TIME
}

Status AppendValue(IpcColumn* c, const Value* v) {
  const bool null = v == nullptr || v->is_null();
  if (null && !c->nullable) {
    return Status::Invalid("arrow: NULL in a NOT NULL column of type " + c->type.ToString());
  }
  PushBit(&c->validity, c->length, !null);
  if (null) {
    c->nulls++;
    AppendEmpty(c);
  } else {
    TRIB_RETURN_NOT_OK(AppendNonNull(c, *v));
  }
  c->length++;
  return Status::OK();
}

// ---- Layout: the schema message, the record batch's nodes, buffers and body ----

using Builder = flatbuffers::FlatBufferBuilder;
using FieldOffset = flatbuffers::Offset<fb::Field>;

flatbuffers::Offset<void> BuildFlatType(Builder& b, const FlatType& f) {
  switch (f.type) {
    case fb::Type::Bool:
      return fb::CreateBool(b).Union();
    case fb::Type::Int:
      return fb::CreateInt(b, f.width, f.scale == 1).Union();
    case fb::Type::FloatingPoint:
      return fb::CreateFloatingPoint(b, static_cast<fb::Precision>(f.unit)).Union();
    case fb::Type::Decimal:
      return fb::CreateDecimal(b, f.width, f.scale, 128).Union();
    case fb::Type::Utf8:
      return fb::CreateUtf8(b).Union();
    case fb::Type::Binary:
      return fb::CreateBinary(b).Union();
    case fb::Type::Date:
      return fb::CreateDate(b, static_cast<fb::DateUnit>(f.unit)).Union();
    case fb::Type::Time:
      return fb::CreateTime(b, static_cast<fb::TimeUnit>(f.unit), f.width).Union();
    default: {  // Timestamp
      auto tz = f.tz.empty() ? 0 : b.CreateString(f.tz);
      return fb::CreateTimestamp(b, static_cast<fb::TimeUnit>(f.unit), tz).Union();
    }
  }
}

// Field `name` of column `c` (its type: c.type). `id`, `description`: a ROW's or the schema's
// field's.
FieldOffset BuildField(Builder& b, const std::string& name, const IpcColumn& c, bool nullable,
                       const int32_t* id, const std::string& description = "") {
  const DataType& t = c.type;
  std::vector<FieldOffset> children;
  std::vector<flatbuffers::Offset<fb::KeyValue>> meta;
  if (id != nullptr) {
    meta.push_back(fb::CreateKeyValueDirect(b, kFieldIdKey, std::to_string(*id).c_str()));
  }
  if (!description.empty()) {
    meta.push_back(fb::CreateKeyValueDirect(b, kDescriptionKey, description.c_str()));
  }
  if (t.nullable && !nullable) meta.push_back(fb::CreateKeyValueDirect(b, kNullableKey, "true"));
  fb::Type type_type;
  flatbuffers::Offset<void> type;
  switch (t.id) {
    case TypeId::kArray:
      children.push_back(BuildField(b, "item", c.children[0], t.element().nullable, nullptr));
      type_type = fb::Type::List;
      type = fb::CreateList(b).Union();
      break;
    case TypeId::kMap:
    case TypeId::kMultiset: {
      const IpcColumn& entries = c.children[0];
      std::vector<FieldOffset> kv = {
          BuildField(b, "key", entries.children[0], false, nullptr),
          BuildField(b, "value", entries.children[1], t.value().nullable, nullptr)};
      children.push_back(fb::CreateFieldDirect(b, "entries", false, fb::Type::Struct_,
                                               fb::CreateStruct_(b).Union(), 0, &kv));
      if (t.id == TypeId::kMultiset) {
        meta.push_back(fb::CreateKeyValueDirect(b, kTypeKey, kMultisetMark));
      }
      type_type = fb::Type::Map;
      type = fb::CreateMap(b, false).Union();
      break;
    }
    case TypeId::kRow:
      for (size_t i = 0; i < t.fields().size(); i++) {
        const Field& f = t.fields()[i];
        children.push_back(
            BuildField(b, f.name, c.children[i], f.type.nullable, &f.id, f.description));
      }
      type_type = fb::Type::Struct_;
      type = fb::CreateStruct_(b).Union();
      break;
    default: {
      meta.push_back(
          fb::CreateKeyValueDirect(b, kTypeKey, t.WithNullable(true).ToString().c_str()));
      if (c.wide) {  // milliseconds and nanoseconds of the millisecond
        meta.push_back(fb::CreateKeyValueDirect(b, kEncodingKey, kMillisNanos));
        children.push_back(fb::CreateFieldDirect(b, "millis", false, fb::Type::Int,
                                                 fb::CreateInt(b, 64, true).Union()));
        children.push_back(fb::CreateFieldDirect(b, "nanos_of_milli", false, fb::Type::Int,
                                                 fb::CreateInt(b, 32, true).Union()));
        type_type = fb::Type::Struct_;
        type = fb::CreateStruct_(b).Union();
        break;
      }
      const FlatType flat = FlatTypeOf(t);
      type_type = flat.type;
      type = BuildFlatType(b, flat);
    }
  }
  return fb::CreateFieldDirect(b, name.c_str(), nullable, type_type, type, 0, &children, &meta);
}

void AppendMessage(const Builder& b, std::string_view body, std::string* out) {
  const size_t size = b.GetSize();
  const size_t padded = (size + 7) & ~size_t{7};
  PutLE<uint32_t>(out, 0xFFFFFFFFu);
  PutLE<int32_t>(out, static_cast<int32_t>(padded));
  out->append(reinterpret_cast<const char*>(b.GetBufferPointer()), size);
  out->append(padded - size, '\0');
  out->append(body);
}

struct Layout {
  std::vector<fb::FieldNode> nodes;
  std::vector<std::string_view> buffers;
  std::deque<std::string> made;  // buffers made for the layout (nanosecond counts)
};

void Collect(const IpcColumn& c, Layout* l) {
  l->nodes.emplace_back(c.length, c.nulls);
  l->buffers.push_back(c.nulls > 0 ? std::string_view(c.validity) : std::string_view());
  if (c.type.IsString() || c.type.IsBinary()) {
    l->buffers.push_back(c.offsets);
    l->buffers.push_back(c.data);
  } else if (HasOffsets(c.type)) {
    l->buffers.push_back(c.offsets);
  } else if (c.wide) {  // the struct's children: milliseconds, nanoseconds of the millisecond
    l->nodes.emplace_back(c.length, 0);
    l->buffers.push_back({});
    l->buffers.push_back(c.values);
    l->nodes.emplace_back(c.length, 0);
    l->buffers.push_back({});
    l->buffers.push_back(c.nanos);
  } else if (InNanoseconds(c.type)) {
    std::string& ns = l->made.emplace_back();
    for (int64_t i = 0; i < c.length; i++) {
      int64_t millis = 0, v = 0;
      int32_t nanos = 0;
      std::memcpy(&millis, c.values.data() + i * 8, 8);
      std::memcpy(&nanos, c.nanos.data() + i * 4, 4);
      ToNanoseconds(millis, nanos, &v);  // (in range: the column is not wide)
      PutLE<int64_t>(&ns, v);
    }
    l->buffers.push_back(ns);
  } else if (!c.type.IsNested() && !c.entries) {
    l->buffers.push_back(c.values);
  }
  for (const IpcColumn& child : c.children) Collect(child, l);
}

}  // namespace

IpcStreamWriter::IpcStreamWriter(std::vector<Field> fields, IpcWriteOptions options)
    : fields_(std::move(fields)), options_(options), columns_(std::make_unique<IpcColumns>()) {
  for (const Field& f : fields_) columns_->columns.push_back(MakeColumn(f.type, f.type.nullable));
}

IpcStreamWriter::~IpcStreamWriter() = default;

Result<std::unique_ptr<IpcStreamWriter>> IpcStreamWriter::Make(std::vector<Field> fields,
                                                               IpcWriteOptions options) {
  if (options.zstd_level < 1 || options.zstd_level > 22) {
    return Status::Invalid("arrow: zstd level " + std::to_string(options.zstd_level) +
                           " is outside 1..22");
  }
  return std::unique_ptr<IpcStreamWriter>(new IpcStreamWriter(std::move(fields), options));
}

int64_t IpcStreamWriter::rows() const {
  return columns_->columns.empty() ? 0 : columns_->columns[0].length;
}

Status IpcStreamWriter::Append(const std::vector<const Value*>& cells) {
  TRIB_RETURN_NOT_OK(broken_);
  if (cells.size() != fields_.size()) {
    return Status::Invalid("arrow: a row of " + std::to_string(cells.size()) + " values for " +
                           std::to_string(fields_.size()) + " columns");
  }
  for (size_t i = 0; i < cells.size(); i++) {
    Status s = AppendValue(&columns_->columns[i], cells[i]);
    if (!s.ok()) {  // the row is in some columns and not others: nothing more is taken
      broken_ = s.WithContext("column '" + fields_[i].name + "'");
      return broken_;
    }
  }
  return Status::OK();
}

Result<std::string> IpcStreamWriter::Finish() {
  TRIB_RETURN_NOT_OK(broken_);
  std::string out;
  {
    Builder b;
    std::vector<FieldOffset> fields;
    for (size_t i = 0; i < fields_.size(); i++) {
      const Field& f = fields_[i];
      fields.push_back(
          BuildField(b, f.name, columns_->columns[i], f.type.nullable, &f.id, f.description));
    }
    auto schema = fb::CreateSchemaDirect(b, fb::Endianness::Little, &fields);
    b.Finish(fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::Schema,
                               schema.Union(), 0));
    AppendMessage(b, {}, &out);
  }
  if (rows() > 0) {
    Layout layout;
    for (const IpcColumn& c : columns_->columns) Collect(c, &layout);
    std::string body;
    std::vector<fb::Buffer> buffers;
    for (std::string_view raw : layout.buffers) {
      const size_t at = body.size();
      if (options_.compression == IpcCompression::kNone || raw.empty()) {
        body.append(raw);
      } else {
        Result<std::string> packed =
            Compress(options_.compression == IpcCompression::kZstd ? CompressionCodec::kZstd
                                                                   : CompressionCodec::kLz4Frame,
                     raw, options_.zstd_level);
        TRIB_RETURN_NOT_OK(packed.status());
        const bool smaller = packed->size() < raw.size();
        PutLE<int64_t>(&body, smaller ? static_cast<int64_t>(raw.size()) : -1);
        body.append(smaller ? std::string_view(*packed) : raw);
      }
      buffers.emplace_back(static_cast<int64_t>(at), static_cast<int64_t>(body.size() - at));
      body.append(((body.size() + 7) & ~size_t{7}) - body.size(), '\0');
    }
    Builder b;
    flatbuffers::Offset<fb::BodyCompression> compression = 0;
    if (options_.compression != IpcCompression::kNone) {
      compression = fb::CreateBodyCompression(b, options_.compression == IpcCompression::kZstd
                                                     ? fb::CompressionType::ZSTD
                                                     : fb::CompressionType::LZ4_FRAME);
    }
    auto batch = fb::CreateRecordBatchDirect(b, rows(), &layout.nodes, &buffers, compression);
    b.Finish(fb::CreateMessage(b, fb::MetadataVersion::V5, fb::MessageHeader::RecordBatch,
                               batch.Union(), static_cast<int64_t>(body.size())));
    AppendMessage(b, body, &out);
  }
  PutLE<uint32_t>(&out, 0xFFFFFFFFu);
  PutLE<int32_t>(&out, 0);
  return out;
}

}  // namespace tributary::format::arrow
