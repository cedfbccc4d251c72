// Arrow IPC stream reader (format/arrow/ipc.h): every message's metadata is checked by the
// flatbuffers verifier before it is read, every buffer and offset against the bounds it must keep.

#include <cstring>
#include <deque>
#include <limits>
#include <memory>

#include "format/arrow/ipc.h"
#include "format/arrow/ipc_types.h"
#include "format/compression.h"

namespace tributary::format::arrow {

namespace {

constexpr int kMaxDepth = 64;
// A compressed buffer says how long it is once decompressed: at most this (offsets are 32-bit).
constexpr int64_t kMaxBuffer = std::numeric_limits<int32_t>::max();

Status Damaged(const std::string& what) { return Status::Corruption("arrow IPC stream: " + what); }

template <typename T>
T GetLE(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

const char* MetaValue(const fb::Field* f, const char* key) {
  if (f->custom_metadata() == nullptr) return nullptr;
  for (const fb::KeyValue* kv : *f->custom_metadata()) {
    if (kv != nullptr && kv->key() != nullptr && kv->value() != nullptr &&
        kv->key()->str() == key) {
      return kv->value()->c_str();
    }
  }
  return nullptr;
}

std::string NameOf(const fb::Field* f) { return f->name() ? f->name()->str() : std::string(); }

bool IsMillisNanos(const fb::Field* f) {
  const char* encoding = MetaValue(f, kEncodingKey);
  return f->type_type() == fb::Type::Struct_ && encoding != nullptr &&
         std::string_view(encoding) == kMillisNanos;
}

Status Unsupported(const fb::Field* f, const std::string& what) {
  return Status::NotSupported("arrow: field '" + NameOf(f) + "' of " + what +
                              " has no Tributary type");
}

// The flat type a field's metadata gives, as FlatTypeOf would write it.
FlatType FlatTypeOfField(const fb::Field* f) {
  FlatType t;
  t.type = f->type_type();
  switch (t.type) {
    case fb::Type::Int:
      t.width = f->type_as_Int()->bit_width();
      t.scale = f->type_as_Int()->is_signed() ? 1 : 0;
      break;
    case fb::Type::FloatingPoint:
      t.unit = static_cast<int16_t>(f->type_as_FloatingPoint()->precision());
      break;
    case fb::Type::Decimal:
      t.width = f->type_as_Decimal()->precision();
      t.scale = f->type_as_Decimal()->scale();
      break;
    case fb::Type::Date:
      t.unit = static_cast<int16_t>(f->type_as_Date()->unit());
      break;
    case fb::Type::Time:
      t.unit = static_cast<int16_t>(f->type_as_Time()->unit());
      t.width = f->type_as_Time()->bit_width();
      break;
    case fb::Type::Timestamp:
      t.unit = static_cast<int16_t>(f->type_as_Timestamp()->unit());
      if (f->type_as_Timestamp()->timezone()) t.tz = f->type_as_Timestamp()->timezone()->str();
      break;
    default:
      break;
  }
  return t;
}

int32_t PrecisionOfUnit(fb::TimeUnit u) {
  switch (u) {
    case fb::TimeUnit::SECOND:
      return 0;
    case fb::TimeUnit::MILLISECOND:
      return 3;
    case fb::TimeUnit::MICROSECOND:
      return 6;
    default:
      return 9;
  }
}

// The plain mapping of a flat Arrow type back to a Tributary type.
Result<DataType> FlatDataType(const fb::Field* f) {
  switch (f->type_type()) {
    case fb::Type::Bool:
      return DataType::Boolean();
    case fb::Type::Int: {
      const fb::Int* i = f->type_as_Int();
      if (!i->is_signed()) return Unsupported(f, "an unsigned integer type");
      switch (i->bit_width()) {
        case 8:
          return DataType::TinyInt();
        case 16:
          return DataType::SmallInt();
        case 32:
          return DataType::Int();
        case 64:
          return DataType::BigInt();
        default:
          return Damaged("field '" + NameOf(f) + "' is an integer of " +
                         std::to_string(i->bit_width()) + " bits");
      }
    }
    case fb::Type::FloatingPoint:
      switch (f->type_as_FloatingPoint()->precision()) {
        case fb::Precision::SINGLE:
          return DataType::Float();
        case fb::Precision::DOUBLE:
          return DataType::Double();
        default:
          return Unsupported(f, "half floats");
      }
    case fb::Type::Decimal: {
      const fb::Decimal* d = f->type_as_Decimal();
      if (d->bit_width() != 128) return Unsupported(f, "a 256-bit decimal type");
      if (d->precision() < 1 || d->precision() > 38 || d->scale() < 0 ||
          d->scale() > d->precision()) {
        return Unsupported(f, "DECIMAL(" + std::to_string(d->precision()) + ", " +
                                  std::to_string(d->scale()) + ")");
      }
      return DataType::Decimal(d->precision(), d->scale());
    }
    case fb::Type::Utf8:
    case fb::Type::LargeUtf8:
      return DataType::String();
    case fb::Type::Binary:
    case fb::Type::LargeBinary:
      return DataType::Bytes();
    case fb::Type::FixedSizeBinary: {
      const int32_t n = f->type_as_FixedSizeBinary()->byte_width();
      if (n < 1)
        return Damaged("field '" + NameOf(f) + "' has a byte width of " + std::to_string(n));
      return DataType{TypeId::kBinary, true, n};
    }
    case fb::Type::Date:
      if (f->type_as_Date()->unit() != fb::DateUnit::DAY &&
          f->type_as_Date()->unit() != fb::DateUnit::MILLISECOND) {
        return Damaged("field '" + NameOf(f) + "' is a date of an unknown unit");
      }
      return DataType::Date();
    case fb::Type::Time: {
      const fb::Time* t = f->type_as_Time();
      if (t->unit() < fb::TimeUnit::SECOND || t->unit() > fb::TimeUnit::NANOSECOND) {
        return Damaged("field '" + NameOf(f) + "' is a time of an unknown unit");
      }
      const int32_t want = t->unit() <= fb::TimeUnit::MILLISECOND ? 32 : 64;
      if (t->bit_width() != want) {
        return Damaged("field '" + NameOf(f) + "' is a time of " + std::to_string(t->bit_width()) +
                       " bits");
      }
      return DataType::Time(PrecisionOfUnit(t->unit()));
    }
    case fb::Type::Timestamp: {
      const fb::Timestamp* t = f->type_as_Timestamp();
      if (t->unit() < fb::TimeUnit::SECOND || t->unit() > fb::TimeUnit::NANOSECOND) {
        return Damaged("field '" + NameOf(f) + "' is a timestamp of an unknown unit");
      }
      const int32_t p = PrecisionOfUnit(t->unit());
      const bool zoned = t->timezone() != nullptr && t->timezone()->size() > 0;
      return zoned ? DataType::TimestampLtz(p) : DataType::Timestamp(p);
    }
    default:
      return Unsupported(f, "Arrow type " + std::string(fb::EnumNameType(f->type_type())));
  }
}

Result<DataType> TypeOfField(const fb::Field* f, int depth);

Result<Field> FieldOf(const fb::Field* f, int32_t default_id, int depth) {
  Field out;
  out.name = NameOf(f);
  out.id = default_id;
  if (const char* id = MetaValue(f, kFieldIdKey)) {
    char* end = nullptr;
    const long long v = std::strtoll(id, &end, 10);
    if (end == id || *end != '\0' || v < 0 || v > std::numeric_limits<int32_t>::max()) {
      return Damaged("field '" + out.name + "' has the field id '" + id + "'");
    }
    out.id = static_cast<int32_t>(v);
  }
  if (const char* description = MetaValue(f, kDescriptionKey)) out.description = description;
  TRIB_ASSIGN_OR_RETURN(out.type, TypeOfField(f, depth));
  return out;
}

Result<DataType> TypeOfField(const fb::Field* f, int depth) {
  if (depth > kMaxDepth) return Damaged("types nested more than 64 deep");
  if (f->type() == nullptr) return Damaged("field '" + NameOf(f) + "' without its type");
  if (f->dictionary() != nullptr) {
    return Status::NotSupported("arrow: field '" + NameOf(f) +
                                "' is dictionary-encoded: not supported yet");
  }
  const auto* children = f->children();
  const size_t n = children ? children->size() : 0;
  for (size_t i = 0; i < n; i++) {
    if (children->Get(static_cast<flatbuffers::uoffset_t>(i)) == nullptr) {
      return Damaged("field '" + NameOf(f) + "' has a missing child");
    }
  }
  DataType t;
  switch (f->type_type()) {
    case fb::Type::List: {
      if (n != 1) return Damaged("list field '" + NameOf(f) + "' without one child");
      TRIB_ASSIGN_OR_RETURN(DataType element, TypeOfField(children->Get(0), depth + 1));
      t = DataType::Array(element);
      break;
    }
    case fb::Type::Map: {
      const fb::Field* entries = n == 1 ? children->Get(0) : nullptr;
      if (entries == nullptr || entries->type_type() != fb::Type::Struct_ ||
          entries->children() == nullptr || entries->children()->size() != 2 ||
          entries->children()->Get(0) == nullptr || entries->children()->Get(1) == nullptr) {
        return Damaged("map field '" + NameOf(f) + "' without an entries struct of two fields");
      }
      TRIB_ASSIGN_OR_RETURN(DataType key, TypeOfField(entries->children()->Get(0), depth + 2));
      TRIB_ASSIGN_OR_RETURN(DataType value, TypeOfField(entries->children()->Get(1), depth + 2));
      const char* mark = MetaValue(f, kTypeKey);
      if (mark != nullptr && std::string_view(mark) == kMultisetMark) {
        if (value.id != TypeId::kInt || value.nullable) {
          return Damaged("multiset field '" + NameOf(f) + "' whose counts are not INT NOT NULL");
        }
        t = DataType::Multiset(key);
      } else {
        t = DataType::Map(key, value);
      }
      break;
    }
    case fb::Type::Struct_: {
      if (IsMillisNanos(f)) {  // a TIMESTAMP(7..9) outside the nanosecond range
        const char* exact = MetaValue(f, kTypeKey);
        Result<DataType> parsed = exact ? DataType::Parse(exact) : Status::Invalid("");
        const fb::Field* millis = n == 2 ? children->Get(0) : nullptr;
        const fb::Field* nanos = n == 2 ? children->Get(1) : nullptr;
        if (!parsed.ok() || !parsed->IsTimestamp() || millis == nullptr || nanos == nullptr ||
            millis->type_type() != fb::Type::Int || millis->type_as_Int() == nullptr ||
            millis->type_as_Int()->bit_width() != 64 || nanos->type_type() != fb::Type::Int ||
            nanos->type_as_Int() == nullptr || nanos->type_as_Int()->bit_width() != 32) {
          return Damaged("field '" + NameOf(f) +
                         "' is not a timestamp of milliseconds and "
                         "nanoseconds");
        }
        t = *parsed;
        break;
      }
      if (n == 0) return Unsupported(f, "a struct of no fields");
      std::vector<Field> fields;
      for (size_t i = 0; i < n; i++) {
        TRIB_ASSIGN_OR_RETURN(Field child,
                              FieldOf(children->Get(static_cast<flatbuffers::uoffset_t>(i)),
                                      static_cast<int32_t>(i), depth + 1));
        fields.push_back(std::move(child));
      }
      t = DataType::Row(std::move(fields));
      break;
    }
    default: {
      if (n != 0) return Damaged("field '" + NameOf(f) + "' of a flat type has children");
      TRIB_ASSIGN_OR_RETURN(t, FlatDataType(f));
      if (const char* exact = MetaValue(f, kTypeKey)) {
        Result<DataType> parsed = DataType::Parse(exact);
        if (!parsed.ok() || parsed->IsNested() || !(FlatTypeOf(*parsed) == FlatTypeOfField(f))) {
          return Damaged("field '" + NameOf(f) + "' says it is " + exact +
                         ", which is not its Arrow type");
        }
        t = *parsed;
      }
    }
  }
  const char* declared = MetaValue(f, kNullableKey);
  return t.WithNullable(f->nullable() || (declared && std::string_view(declared) == "true"));
}

// ---- Record batches ----

struct Batch {
  const fb::RecordBatch* meta = nullptr;
  std::string_view body;
  size_t node = 0;
  size_t buffer = 0;
  std::deque<std::string> decompressed;
  // What the stream has made the reader hold so far, against its limits.
  const IpcReadLimits* limits = nullptr;
  int64_t* decompressed_bytes = nullptr;
  int64_t* values = nullptr;
};

// Counts `n` more values decoded, before they are allocated.
Status CountValues(Batch* b, int64_t n) {
  if (n > b->limits->max_values - *b->values) {
    return Damaged("more than " + std::to_string(b->limits->max_values) + " values");
  }
  *b->values += n;
  return Status::OK();
}

Result<fb::FieldNode> TakeNode(Batch* b) {
  const auto* nodes = b->meta->nodes();
  if (nodes == nullptr || b->node >= nodes->size()) return Damaged("fewer field nodes than fields");
  const fb::FieldNode* n = nodes->Get(static_cast<flatbuffers::uoffset_t>(b->node++));
  if (n->length() < 0 || n->null_count() < 0 || n->null_count() > n->length()) {
    return Damaged("a field node of length " + std::to_string(n->length()) + " and " +
                   std::to_string(n->null_count()) + " nulls");
  }
  return *n;
}

Result<std::string_view> TakeBuffer(Batch* b) {
  const auto* buffers = b->meta->buffers();
  if (buffers == nullptr || b->buffer >= buffers->size())
    return Damaged("fewer buffers than fields need");
  const fb::Buffer* buf = buffers->Get(static_cast<flatbuffers::uoffset_t>(b->buffer++));
  if (buf->offset() < 0 || buf->length() < 0 ||
      static_cast<uint64_t>(buf->offset()) > b->body.size() ||
      static_cast<uint64_t>(buf->length()) > b->body.size() - buf->offset()) {
    return Damaged("a buffer outside the message body");
  }
  std::string_view raw = b->body.substr(buf->offset(), buf->length());
  if (b->meta->compression() == nullptr || raw.empty()) return raw;
  if (raw.size() < 8) return Damaged("a compressed buffer without its length");
  const int64_t size = GetLE<int64_t>(raw.data());
  raw.remove_prefix(8);
  if (size == -1) return raw;
  if (size < 0 || size > kMaxBuffer) {
    return Damaged("a compressed buffer of " + std::to_string(size) + " bytes");
  }
  if (size > b->limits->max_decompressed_bytes - *b->decompressed_bytes) {
    return Damaged("more than " + std::to_string(b->limits->max_decompressed_bytes) +
                   " bytes once decompressed");
  }
  *b->decompressed_bytes += size;
  // (Arrow's Java codecs write an empty buffer as its length 0 and nothing after it.)
  if (size == 0 && raw.empty()) return raw;
  // Into at most the length it says: a buffer that would be longer fails as one shorter does.
  const CompressionCodec codec = b->meta->compression()->codec() == fb::CompressionType::ZSTD
                                     ? CompressionCodec::kZstd
                                     : CompressionCodec::kLz4Frame;
  Result<std::string> unpacked =
      Decompress(codec, raw, static_cast<size_t>(size), static_cast<size_t>(size));
  if (!unpacked.ok()) return Damaged(unpacked.status().message());
  std::string out = std::move(*unpacked);
  if (static_cast<int64_t>(out.size()) != size) {
    return Damaged("a buffer of another length once decompressed than it says");
  }
  b->decompressed.push_back(std::move(out));
  return std::string_view(b->decompressed.back());
}

// Whether `buf` holds `count` items of `width` bytes (width 0: bits).
Status NeedBytes(std::string_view buf, int64_t count, int64_t width, const std::string& what) {
  const uint64_t have = buf.size();
  const bool ok = width == 0 ? static_cast<uint64_t>(count) / 8 + (count % 8 != 0) <= have
                             : static_cast<uint64_t>(count) <= have / static_cast<uint64_t>(width);
  if (!ok) return Damaged(what + " buffer too short");
  return Status::OK();
}

bool Bit(std::string_view bits, int64_t i) { return (bits[i / 8] >> (i % 8)) & 1; }

// Offsets of `length` slots: 32-bit, or 64-bit for the Large types; checked to be in order and
// to end within `limit`.
Result<std::vector<int64_t>> ReadOffsets(std::string_view buf, int64_t length, bool large,
                                         uint64_t limit) {
  const int width = large ? 8 : 4;
  if (length == 0 && buf.empty()) return std::vector<int64_t>{0};  // (Arrow Java writes none)
  if (length == std::numeric_limits<int64_t>::max()) return Damaged("too many offsets");
  TRIB_RETURN_NOT_OK(NeedBytes(buf, length + 1, width, "an offsets"));
  std::vector<int64_t> out(static_cast<size_t>(length + 1));
  for (int64_t i = 0; i <= length; i++) {
    out[i] = large ? GetLE<int64_t>(buf.data() + i * 8) : GetLE<int32_t>(buf.data() + i * 4);
    if (out[i] < 0 || (i > 0 && out[i] < out[i - 1]) || static_cast<uint64_t>(out[i]) > limit) {
      return Damaged("offsets out of order or past their data");
    }
  }
  return out;
}

Result<std::vector<Value>> ReadColumn(const fb::Field* f, Batch* b, int depth);

Value FlatValue(const fb::Field* f, std::string_view values, int64_t i) {
  const char* p = values.data();
  switch (f->type_type()) {
    case fb::Type::Bool:
      return Value::Bool(Bit(values, i));
    case fb::Type::Int:
      switch (f->type_as_Int()->bit_width()) {
        case 8:
          return Value::Int(GetLE<int8_t>(p + i));
        case 16:
          return Value::Int(GetLE<int16_t>(p + i * 2));
        case 32:
          return Value::Int(GetLE<int32_t>(p + i * 4));
        default:
          return Value::Int(GetLE<int64_t>(p + i * 8));
      }
    case fb::Type::FloatingPoint:
      if (f->type_as_FloatingPoint()->precision() == fb::Precision::SINGLE) {
        return Value::Double(GetLE<float>(p + i * 4));
      }
      return Value::Double(GetLE<double>(p + i * 8));
    case fb::Type::Decimal:
      return Value::Dec(Decimal{GetLE<__int128>(p + i * 16)});
    case fb::Type::Date:
      if (f->type_as_Date()->unit() == fb::DateUnit::DAY)
        return Value::Int(GetLE<int32_t>(p + i * 4));
      {
        const int64_t ms = GetLE<int64_t>(p + i * 8);
        return Value::Int(ms / 86400000 - (ms % 86400000 < 0 ? 1 : 0));
      }
    case fb::Type::Time:
      switch (f->type_as_Time()->unit()) {
        case fb::TimeUnit::SECOND:
          return Value::Int(int64_t{GetLE<int32_t>(p + i * 4)} * 1000);
        case fb::TimeUnit::MILLISECOND:
          return Value::Int(GetLE<int32_t>(p + i * 4));
        case fb::TimeUnit::MICROSECOND:
          return Value::Int(GetLE<int64_t>(p + i * 8) / 1000);
        default:
          return Value::Int(GetLE<int64_t>(p + i * 8) / 1000000);
      }
    default: {  // Timestamp
      const int64_t v = GetLE<int64_t>(p + i * 8);
      int64_t per_milli = 1;  // units per millisecond
      switch (f->type_as_Timestamp()->unit()) {
        case fb::TimeUnit::SECOND: {
          int64_t ms = 0;
          if (__builtin_mul_overflow(v, int64_t{1000}, &ms)) return Value::Null();
          return Value::Ts(Timestamp{ms, 0});
        }
        case fb::TimeUnit::MILLISECOND:
          return Value::Ts(Timestamp{v, 0});
        case fb::TimeUnit::MICROSECOND:
          per_milli = 1000;
          break;
        default:
          per_milli = 1000000;
      }
      int64_t ms = v / per_milli, rest = v % per_milli;
      if (rest < 0) {
        ms--;
        rest += per_milli;
      }
      return Value::Ts(Timestamp{ms, static_cast<int32_t>(rest * (1000000 / per_milli))});
    }
  }
}

int64_t FlatWidth(const fb::Field* f) {  // bytes per value; 0 for bits
  switch (f->type_type()) {
    case fb::Type::Bool:
      return 0;
    case fb::Type::Int:
      return f->type_as_Int()->bit_width() / 8;
    case fb::Type::FloatingPoint:
      return f->type_as_FloatingPoint()->precision() == fb::Precision::SINGLE ? 4 : 8;
    case fb::Type::Decimal:
      return 16;
    case fb::Type::Date:
      return f->type_as_Date()->unit() == fb::DateUnit::DAY ? 4 : 8;
    case fb::Type::Time:
      return f->type_as_Time()->bit_width() / 8;
    default:
      return 8;  // Timestamp
  }
}

Result<std::vector<Value>> ReadNested(const fb::Field* f, Batch* b, const fb::FieldNode& node,
                                      std::string_view validity, int depth) {
  const int64_t n = node.length();
  const bool nulls = node.null_count() > 0;
  std::vector<Value> out;
  const fb::Type type = f->type_type();
  if (type == fb::Type::Struct_ && IsMillisNanos(f)) {
    TRIB_ASSIGN_OR_RETURN(std::vector<Value> millis,
                          ReadColumn(f->children()->Get(0), b, depth + 1));
    TRIB_ASSIGN_OR_RETURN(std::vector<Value> nanos,
                          ReadColumn(f->children()->Get(1), b, depth + 1));
    if (static_cast<int64_t>(millis.size()) < n || static_cast<int64_t>(nanos.size()) < n) {
      return Damaged("a timestamp's parts shorter than it");
    }
    out.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) {
      if (nulls && !Bit(validity, i)) continue;
      if (!millis[i].is_int() || !nanos[i].is_int()) return Damaged("a timestamp without parts");
      const int64_t ns = nanos[i].int_value();
      if (ns < 0 || ns > 999999) return Damaged("a timestamp of " + std::to_string(ns) + " ns");
      out[i] = Value::Ts(Timestamp{millis[i].int_value(), static_cast<int32_t>(ns)});
    }
    return out;
  }
  if (type == fb::Type::Struct_) {
    std::vector<std::vector<Value>> children;
    for (const fb::Field* child : *f->children()) {
      TRIB_ASSIGN_OR_RETURN(std::vector<Value> values, ReadColumn(child, b, depth + 1));
      if (static_cast<int64_t>(values.size()) < n)
        return Damaged("a struct's child shorter than it");
      children.push_back(std::move(values));
    }
    out.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) {
      if (nulls && !Bit(validity, i)) continue;
      std::vector<Value> fields;
      for (auto& c : children) fields.push_back(std::move(c[i]));
      out[i] = Value::Struct(std::move(fields));
    }
    return out;
  }
  TRIB_ASSIGN_OR_RETURN(std::string_view offsets_buf, TakeBuffer(b));
  if (type == fb::Type::List) {
    TRIB_ASSIGN_OR_RETURN(std::vector<Value> items,
                          ReadColumn(f->children()->Get(0), b, depth + 1));
    TRIB_ASSIGN_OR_RETURN(auto offsets, ReadOffsets(offsets_buf, n, false, items.size()));
    out.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) {
      if (nulls && !Bit(validity, i)) continue;
      out[i] =
          Value::Array(std::vector<Value>(std::make_move_iterator(items.begin() + offsets[i]),
                                          std::make_move_iterator(items.begin() + offsets[i + 1])));
    }
    return out;
  }
  // Map: an entries struct (never null) of keys and values.
  const fb::Field* entries = f->children()->Get(0);
  TRIB_ASSIGN_OR_RETURN(fb::FieldNode entries_node, TakeNode(b));
  TRIB_RETURN_NOT_OK(CountValues(b, entries_node.length()));
  TRIB_RETURN_NOT_OK(TakeBuffer(b).status());
  if (entries_node.null_count() != 0) return Damaged("a map with null entries");
  TRIB_ASSIGN_OR_RETURN(std::vector<Value> keys,
                        ReadColumn(entries->children()->Get(0), b, depth + 2));
  TRIB_ASSIGN_OR_RETURN(std::vector<Value> vals,
                        ReadColumn(entries->children()->Get(1), b, depth + 2));
  const uint64_t limit =
      std::min<uint64_t>({static_cast<uint64_t>(entries_node.length()), keys.size(), vals.size()});
  TRIB_ASSIGN_OR_RETURN(auto offsets, ReadOffsets(offsets_buf, n, false, limit));
  out.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) {
    if (nulls && !Bit(validity, i)) continue;
    std::vector<Value> k, v;
    for (int64_t j = offsets[i]; j < offsets[i + 1]; j++) {
      if (keys[j].is_null()) return Damaged("a map with a null key");
      k.push_back(std::move(keys[j]));
      v.push_back(std::move(vals[j]));
    }
    out[i] = Value::Map(std::move(k), std::move(v));
  }
  return out;
}

Result<std::vector<Value>> ReadColumn(const fb::Field* f, Batch* b, int depth) {
  TRIB_ASSIGN_OR_RETURN(fb::FieldNode node, TakeNode(b));
  TRIB_RETURN_NOT_OK(CountValues(b, node.length()));
  TRIB_ASSIGN_OR_RETURN(std::string_view validity, TakeBuffer(b));
  const int64_t n = node.length();
  const bool nulls = node.null_count() > 0;
  if (nulls && !f->nullable()) return Damaged("NULLs in NOT NULL field '" + NameOf(f) + "'");
  if (nulls) TRIB_RETURN_NOT_OK(NeedBytes(validity, n, 0, "a validity"));
  const fb::Type type = f->type_type();
  if (type == fb::Type::Struct_ || type == fb::Type::List || type == fb::Type::Map) {
    return ReadNested(f, b, node, validity, depth);
  }
  if (type == fb::Type::Utf8 || type == fb::Type::Binary || type == fb::Type::LargeUtf8 ||
      type == fb::Type::LargeBinary) {
    TRIB_ASSIGN_OR_RETURN(std::string_view offsets_buf, TakeBuffer(b));
    TRIB_ASSIGN_OR_RETURN(std::string_view data, TakeBuffer(b));
    const bool large = type == fb::Type::LargeUtf8 || type == fb::Type::LargeBinary;
    TRIB_ASSIGN_OR_RETURN(auto offsets, ReadOffsets(offsets_buf, n, large, data.size()));
    std::vector<Value> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) {
      if (nulls && !Bit(validity, i)) continue;
      out[i] = Value::String(std::string(data.substr(offsets[i], offsets[i + 1] - offsets[i])));
    }
    return out;
  }
  TRIB_ASSIGN_OR_RETURN(std::string_view values, TakeBuffer(b));
  if (type == fb::Type::FixedSizeBinary) {
    const int64_t w = f->type_as_FixedSizeBinary()->byte_width();
    TRIB_RETURN_NOT_OK(NeedBytes(values, n, w, "a values"));
    std::vector<Value> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; i++) {
      if (!nulls || Bit(validity, i)) out[i] = Value::String(std::string(values.substr(i * w, w)));
    }
    return out;
  }
  const int64_t w = FlatWidth(f);
  TRIB_RETURN_NOT_OK(NeedBytes(values, n, w, "a values"));
  std::vector<Value> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) {
    if (!nulls || Bit(validity, i)) {
      out[i] = FlatValue(f, values, i);
      if (out[i].is_null())
        return Damaged("field '" + NameOf(f) + "' holds a timestamp out of range");
    }
  }
  return out;
}

Status ReadBatch(const fb::RecordBatch* meta, std::string_view body, const fb::Schema* schema,
                 const IpcReadLimits& limits, int64_t* decompressed_bytes, int64_t* values,
                 std::vector<Row>* rows) {
  Batch b;
  b.meta = meta;
  b.body = body;
  b.limits = &limits;
  b.decompressed_bytes = decompressed_bytes;
  b.values = values;
  if (meta->length() < 0) return Damaged("a record batch of negative length");
  const auto* fields = schema->fields();
  const size_t width = fields ? fields->size() : 0;
  std::vector<std::vector<Value>> columns;
  for (size_t i = 0; i < width; i++) {
    TRIB_ASSIGN_OR_RETURN(std::vector<Value> c,
                          ReadColumn(fields->Get(static_cast<flatbuffers::uoffset_t>(i)), &b, 0));
    if (static_cast<int64_t>(c.size()) != meta->length()) {
      return Damaged("a column of " + std::to_string(c.size()) + " values in a batch of " +
                     std::to_string(meta->length()) + " rows");
    }
    columns.push_back(std::move(c));
  }
  const size_t first = rows->size();
  if (width == 0) return Status::OK();
  rows->resize(first + static_cast<size_t>(meta->length()));
  for (int64_t r = 0; r < meta->length(); r++) {
    Row& row = (*rows)[first + r];
    row.reserve(width);
    for (size_t c = 0; c < width; c++) row.push_back(std::move(columns[c][r]));
  }
  return Status::OK();
}

}  // namespace

bool LooksLikeIpcStream(std::string_view bytes) {
  return bytes.size() >= 4 && GetLE<uint32_t>(bytes.data()) == 0xFFFFFFFFu;
}

Result<IpcStream> ReadIpcStream(std::string_view bytes, const IpcReadLimits& limits) {
  IpcStream out;
  int64_t decompressed_bytes = 0, values = 0;
  std::vector<uint64_t> schema_meta;  // the schema message's metadata, kept aligned
  const fb::Schema* schema = nullptr;
  size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.size() - at < 4) return Damaged("a message cut short");
    uint32_t length = GetLE<uint32_t>(bytes.data() + at);
    at += 4;
    if (length == 0xFFFFFFFFu) {
      if (bytes.size() - at < 4) return Damaged("a message cut short");
      length = GetLE<uint32_t>(bytes.data() + at);
      at += 4;
    }
    if (length == 0) break;  // end of stream
    if (length > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()) ||
        length > bytes.size() - at) {
      return Damaged("a message longer than the stream");
    }
    std::vector<uint64_t> aligned((size_t{length} + 7) / 8);
    std::memcpy(aligned.data(), bytes.data() + at, length);
    at += length;
    const auto* base = reinterpret_cast<const uint8_t*>(aligned.data());
    flatbuffers::Verifier verifier(base, length, kMaxDepth * 2, 1000000);
    if (!fb::VerifyMessageBuffer(verifier)) return Damaged("a message whose metadata is damaged");
    const fb::Message* message = fb::GetMessage(base);
    if (message->body_length() < 0 ||
        static_cast<uint64_t>(message->body_length()) > bytes.size() - at) {
      return Damaged("a message body past the end of the stream");
    }
    const std::string_view body = bytes.substr(at, message->body_length());
    at += message->body_length();
    switch (message->header_type()) {
      case fb::MessageHeader::Schema: {
        if (schema != nullptr) return Damaged("a second schema");
        schema = message->header_as_Schema();
        if (schema == nullptr) return Damaged("a schema message without its schema");
        if (schema->endianness() != fb::Endianness::Little) {
          return Status::NotSupported("arrow: big-endian streams are not supported");
        }
        if (schema->fields() != nullptr) {
          for (flatbuffers::uoffset_t i = 0; i < schema->fields()->size(); i++) {
            const fb::Field* f = schema->fields()->Get(i);
            if (f == nullptr) return Damaged("a missing field");
            TRIB_ASSIGN_OR_RETURN(Field field, FieldOf(f, static_cast<int32_t>(i), 0));
            out.fields.push_back(std::move(field));
          }
        }
        schema_meta = std::move(aligned);  // `schema` points into it (a move keeps the storage)
        break;
      }
      case fb::MessageHeader::RecordBatch:
        if (schema == nullptr) return Damaged("a record batch before the schema");
        if (message->header_as_RecordBatch() == nullptr) {
          return Damaged("a record batch message without its batch");
        }
        TRIB_RETURN_NOT_OK(ReadBatch(message->header_as_RecordBatch(), body, schema, limits,
                                     &decompressed_bytes, &values, &out.rows));
        break;
      case fb::MessageHeader::DictionaryBatch:
        return Status::NotSupported("arrow: dictionary batches are not supported yet");
      default:
        return Status::NotSupported("arrow: a message of type " +
                                    std::string(fb::EnumNameMessageHeader(message->header_type())));
    }
  }
  if (schema == nullptr) return Damaged("no schema");
  return out;
}

}  // namespace tributary::format::arrow
