// The Avro binary encoding of one datum: zigzag varints, little-endian floats, length-prefixed
// bytes, blocked arrays and maps, index-prefixed unions.
#include <cstring>
#include <limits>

#include "format/avro.h"

namespace tributary::avro {
namespace {

// Arrays of zero-byte items (null, empty records) cannot be bounded by the input size; a
// damaged count must not make us loop or allocate forever.
constexpr int64_t kMaxZeroSizeItems = int64_t{1} << 24;

const char* AlternativeName(const Datum& d) {
  static constexpr const char* kNames[] = {"null",   "bool",   "int32", "int64", "float",
                                           "double", "string", "list",  "map"};
  return kNames[d.rep.index()];
}

Status Mismatch(const char* expected, const Datum& d) {
  return Status::Invalid(std::string("avro encode: expected ") + expected + ", got " +
                         AlternativeName(d));
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutLong(int64_t v, std::string* out) {
  PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63), out);
}

void PutBytes(std::string_view s, std::string* out) {
  PutLong(static_cast<int64_t>(s.size()), out);
  out->append(s);
}

template <typename T>
void PutFixedWidth(T v, std::string* out) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));  // Avro floats are little-endian, as is every target we build
  out->append(buf, sizeof(T));
}

bool IntegerValue(const Datum& d, int64_t* v) {
  if (const auto* i = std::get_if<int32_t>(&d.rep)) {
    *v = *i;
    return true;
  }
  if (const auto* l = std::get_if<int64_t>(&d.rep)) {
    *v = *l;
    return true;
  }
  return false;
}

// Whether `d` can be written as `s`. `exact` demands the natural alternative; otherwise the
// lossless conversions the encoder also accepts (int32 -> long, float -> double, ...) count.
bool Accepts(const Schema& s, const Datum& d, bool exact) {
  const auto& r = d.rep;
  switch (s.type) {
    case Type::kNull:
      return d.is_null();
    case Type::kBoolean:
      return std::holds_alternative<bool>(r);
    case Type::kInt: {
      if (std::holds_alternative<int32_t>(r)) return true;
      const auto* l = std::get_if<int64_t>(&r);
      return !exact && l != nullptr && *l >= std::numeric_limits<int32_t>::min() &&
             *l <= std::numeric_limits<int32_t>::max();
    }
    case Type::kLong:
      return std::holds_alternative<int64_t>(r) || (!exact && std::holds_alternative<int32_t>(r));
    case Type::kFloat:
      return std::holds_alternative<float>(r);
    case Type::kDouble:
      return std::holds_alternative<double>(r) || (!exact && std::holds_alternative<float>(r));
    case Type::kBytes:
    case Type::kString:
      return std::holds_alternative<std::string>(r);
    case Type::kFixed: {
      const auto* str = std::get_if<std::string>(&r);
      return str != nullptr && str->size() == static_cast<size_t>(s.fixed_size);
    }
    case Type::kEnum: {
      const auto* i = std::get_if<int32_t>(&r);
      return i != nullptr && *i >= 0 && static_cast<size_t>(*i) < s.symbols.size();
    }
    case Type::kRecord: {
      const auto* list = std::get_if<DatumList>(&r);
      return list != nullptr && list->size() == s.fields.size();
    }
    case Type::kArray:
      return std::holds_alternative<DatumList>(r);
    case Type::kMap:
      return std::holds_alternative<DatumMap>(r);
    case Type::kUnion:
      return false;
  }
  return false;
}

Status EncodeUnion(const Schema& schema, const Datum& datum, std::string* out) {
  int branch = datum.union_branch;
  if (branch >= static_cast<int>(schema.branches.size())) {
    return Status::Invalid("avro encode: union branch " + std::to_string(branch) + " out of range");
  }
  for (bool exact : {true, false}) {
    for (size_t i = 0; branch < 0 && i < schema.branches.size(); ++i) {
      if (Accepts(*schema.branches[i], datum, exact)) branch = static_cast<int>(i);
    }
  }
  if (branch < 0) {
    return Status::Invalid(std::string("avro encode: no union branch accepts a ") +
                           AlternativeName(datum));
  }
  PutLong(branch, out);
  return Encode(*schema.branches[branch], datum, out);
}

// ---- decoding ----

class Decoder {
 public:
  Decoder(std::string_view data, size_t* pos) : data_(data), pos_(*pos), out_pos_(pos) {}
  ~Decoder() { *out_pos_ = pos_; }

  Status Read(const Schema& schema, Datum* out) {
    out->union_branch = -1;
    switch (schema.type) {
      case Type::kNull:
        out->rep = std::monostate{};
        return Status::OK();
      case Type::kBoolean: {
        if (pos_ >= data_.size()) return Truncated("boolean");
        const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
        if (b > 1) return Status::Corruption("avro: invalid boolean byte " + std::to_string(b));
        out->rep = b == 1;
        return Status::OK();
      }
      case Type::kInt: {
        int32_t v;
        TRIB_RETURN_NOT_OK(ReadInt(&v, "int"));
        out->rep = v;
        return Status::OK();
      }
      case Type::kLong: {
        int64_t v;
        TRIB_RETURN_NOT_OK(ReadLong(&v, "long"));
        out->rep = v;
        return Status::OK();
      }
      case Type::kFloat:
        return ReadFixedWidth<float>(out, "float");
      case Type::kDouble:
        return ReadFixedWidth<double>(out, "double");
      case Type::kBytes:
      case Type::kString: {
        std::string_view s;
        TRIB_RETURN_NOT_OK(ReadBytes(&s, schema.type == Type::kString ? "string" : "bytes"));
        out->rep = std::string(s);
        return Status::OK();
      }
      case Type::kFixed: {
        if (data_.size() - pos_ < static_cast<size_t>(schema.fixed_size)) return Truncated("fixed");
        out->rep = std::string(data_.substr(pos_, schema.fixed_size));
        pos_ += schema.fixed_size;
        return Status::OK();
      }
      case Type::kEnum: {
        int32_t v;
        TRIB_RETURN_NOT_OK(ReadInt(&v, "enum"));
        if (v < 0 || static_cast<size_t>(v) >= schema.symbols.size()) {
          return Status::Corruption("avro: enum index " + std::to_string(v) + " out of range");
        }
        out->rep = v;
        return Status::OK();
      }
      case Type::kRecord: {
        DatumList fields(schema.fields.size());
        for (size_t i = 0; i < fields.size(); ++i) {
          Status st = Read(*schema.fields[i].schema, &fields[i]);
          if (!st.ok()) return st.WithContext("field " + schema.fields[i].name);
        }
        out->rep = std::move(fields);
        return Status::OK();
      }
      case Type::kArray:
        return ReadArray(*schema.items, out);
      case Type::kMap:
        return ReadMap(*schema.values, out);
      case Type::kUnion: {
        int64_t index;
        TRIB_RETURN_NOT_OK(ReadLong(&index, "union index"));
        if (index < 0 || static_cast<uint64_t>(index) >= schema.branches.size()) {
          return Status::Corruption("avro: union index " + std::to_string(index) + " out of range");
        }
        TRIB_RETURN_NOT_OK(Read(*schema.branches[index], out));
        out->union_branch = static_cast<int32_t>(index);
        return Status::OK();
      }
    }
    return Status::Internal("avro: unknown schema type");
  }

 private:
  static Status Truncated(const char* what) {
    return Status::Corruption(std::string("avro: truncated ") + what);
  }

  Status ReadLong(int64_t* v, const char* what) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Truncated(what);
      const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = static_cast<int64_t>(result >> 1) ^ -static_cast<int64_t>(result & 1);
        return Status::OK();
      }
    }
    return Status::Corruption(std::string("avro: varint too long in ") + what);
  }

  Status ReadInt(int32_t* v, const char* what) {
    int64_t l;
    TRIB_RETURN_NOT_OK(ReadLong(&l, what));
    if (l < std::numeric_limits<int32_t>::min() || l > std::numeric_limits<int32_t>::max()) {
      return Status::Corruption(std::string("avro: ") + what + " out of int range");
    }
    *v = static_cast<int32_t>(l);
    return Status::OK();
  }

  Status ReadBytes(std::string_view* s, const char* what) {
    int64_t len;
    TRIB_RETURN_NOT_OK(ReadLong(&len, what));
    if (len < 0) return Status::Corruption(std::string("avro: negative length of ") + what);
    if (static_cast<uint64_t>(len) > data_.size() - pos_) return Truncated(what);
    *s = data_.substr(pos_, len);
    pos_ += len;
    return Status::OK();
  }

  template <typename T>
  Status ReadFixedWidth(Datum* out, const char* what) {
    if (data_.size() - pos_ < sizeof(T)) return Truncated(what);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    out->rep = v;
    return Status::OK();
  }

  // Reads a block header: the item count (0 ends the array or map). A negative count is
  // followed by the block's byte size, which we do not need. Bounds the count by the input.
  Status ReadBlockCount(int64_t min_item_size, int64_t* count, const char* what) {
    TRIB_RETURN_NOT_OK(ReadLong(count, what));
    if (*count < 0) {
      if (*count == std::numeric_limits<int64_t>::min()) {
        return Status::Corruption(std::string("avro: invalid block count in ") + what);
      }
      *count = -*count;
      int64_t byte_size;
      TRIB_RETURN_NOT_OK(ReadLong(&byte_size, what));
      if (byte_size < 0) return Status::Corruption(std::string("avro: negative block size"));
    }
    const int64_t remaining = static_cast<int64_t>(data_.size() - pos_);
    const bool too_many =
        min_item_size > 0 ? *count > remaining / min_item_size : *count > kMaxZeroSizeItems;
    if (too_many) return Truncated(what);
    return Status::OK();
  }

  Status ReadArray(const Schema& items, Datum* out) {
    const int64_t min_size = MinEncodedSize(items);
    DatumList list;
    while (true) {
      int64_t count;
      TRIB_RETURN_NOT_OK(ReadBlockCount(min_size, &count, "array"));
      if (count == 0) break;
      list.reserve(list.size() + count);
      for (int64_t i = 0; i < count; ++i) {
        list.emplace_back();
        TRIB_RETURN_NOT_OK(Read(items, &list.back()));
      }
    }
    out->rep = std::move(list);
    return Status::OK();
  }

  Status ReadMap(const Schema& values, Datum* out) {
    const int64_t min_size = 1 + MinEncodedSize(values);
    DatumMap map;
    while (true) {
      int64_t count;
      TRIB_RETURN_NOT_OK(ReadBlockCount(min_size, &count, "map"));
      if (count == 0) break;
      map.reserve(map.size() + count);
      for (int64_t i = 0; i < count; ++i) {
        std::string_view key;
        TRIB_RETURN_NOT_OK(ReadBytes(&key, "map key"));
        map.emplace_back(std::string(key), Datum());
        TRIB_RETURN_NOT_OK(Read(values, &map.back().second));
      }
    }
    out->rep = std::move(map);
    return Status::OK();
  }

  std::string_view data_;
  size_t pos_;
  size_t* out_pos_;
};

}  // namespace

Status Encode(const Schema& schema, const Datum& datum, std::string* out) {
  const auto& r = datum.rep;
  switch (schema.type) {
    case Type::kNull:
      if (!datum.is_null()) return Mismatch("null", datum);
      return Status::OK();
    case Type::kBoolean: {
      const auto* b = std::get_if<bool>(&r);
      if (b == nullptr) return Mismatch("bool for boolean", datum);
      out->push_back(*b ? 1 : 0);
      return Status::OK();
    }
    case Type::kInt:
    case Type::kLong: {
      if (!Accepts(schema, datum, /*exact=*/false)) {
        return Mismatch(schema.type == Type::kInt ? "int32 for int" : "int64 for long", datum);
      }
      int64_t v = 0;
      IntegerValue(datum, &v);
      PutLong(v, out);
      return Status::OK();
    }
    case Type::kFloat: {
      const auto* f = std::get_if<float>(&r);
      if (f == nullptr) return Mismatch("float", datum);
      PutFixedWidth(*f, out);
      return Status::OK();
    }
    case Type::kDouble: {
      if (const auto* d = std::get_if<double>(&r)) {
        PutFixedWidth(*d, out);
      } else if (const auto* f = std::get_if<float>(&r)) {
        PutFixedWidth(static_cast<double>(*f), out);
      } else {
        return Mismatch("double", datum);
      }
      return Status::OK();
    }
    case Type::kBytes:
    case Type::kString: {
      const auto* s = std::get_if<std::string>(&r);
      if (s == nullptr) return Mismatch("string for bytes/string", datum);
      PutBytes(*s, out);
      return Status::OK();
    }
    case Type::kFixed: {
      const auto* s = std::get_if<std::string>(&r);
      if (s == nullptr) return Mismatch("string for fixed", datum);
      if (s->size() != static_cast<size_t>(schema.fixed_size)) {
        return Status::Invalid("avro encode: fixed '" + schema.name + "' needs " +
                               std::to_string(schema.fixed_size) + " bytes, got " +
                               std::to_string(s->size()));
      }
      out->append(*s);
      return Status::OK();
    }
    case Type::kEnum: {
      if (!Accepts(schema, datum, /*exact=*/true)) {
        return Status::Invalid("avro encode: enum '" + schema.name +
                               "' needs a symbol index in range");
      }
      PutLong(datum.as_int(), out);
      return Status::OK();
    }
    case Type::kRecord: {
      const auto* list = std::get_if<DatumList>(&r);
      if (list == nullptr) return Mismatch("list for record", datum);
      if (list->size() != schema.fields.size()) {
        return Status::Invalid("avro encode: record '" + schema.name + "' has " +
                               std::to_string(schema.fields.size()) + " fields, datum has " +
                               std::to_string(list->size()));
      }
      for (size_t i = 0; i < list->size(); ++i) {
        Status st = Encode(*schema.fields[i].schema, (*list)[i], out);
        if (!st.ok()) return st.WithContext("field " + schema.fields[i].name);
      }
      return Status::OK();
    }
    case Type::kArray: {
      const auto* list = std::get_if<DatumList>(&r);
      if (list == nullptr) return Mismatch("list for array", datum);
      if (!list->empty()) {
        PutLong(static_cast<int64_t>(list->size()), out);
        for (const Datum& item : *list) TRIB_RETURN_NOT_OK(Encode(*schema.items, item, out));
      }
      out->push_back(0);
      return Status::OK();
    }
    case Type::kMap: {
      const auto* map = std::get_if<DatumMap>(&r);
      if (map == nullptr) return Mismatch("map", datum);
      if (!map->empty()) {
        PutLong(static_cast<int64_t>(map->size()), out);
        for (const auto& [key, value] : *map) {
          PutBytes(key, out);
          TRIB_RETURN_NOT_OK(Encode(*schema.values, value, out));
        }
      }
      out->push_back(0);
      return Status::OK();
    }
    case Type::kUnion:
      return EncodeUnion(schema, datum, out);
  }
  return Status::Internal("avro encode: unknown schema type");
}

Status Decode(const Schema& schema, std::string_view data, size_t* pos, Datum* out) {
  if (*pos > data.size()) return Status::Invalid("avro decode: position past the end");
  Decoder decoder(data, pos);
  return decoder.Read(schema, out);
}

}  // namespace tributary::avro
