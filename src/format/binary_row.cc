#include "format/binary_row.h"

#include <cstring>

namespace tributary::format {
namespace {

int HeaderBytes(size_t arity) { return static_cast<int>(((arity + 63 + 8) / 64) * 8); }

bool IsCompactDecimal(const DataType& t) { return t.precision <= 18; }
bool IsCompactTimestamp(const DataType& t) { return t.precision <= 3; }

void PutU64(std::string* buf, size_t off, uint64_t v) {
  for (int i = 0; i < 8; i++) (*buf)[off + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint64_t GetU64(std::string_view b, size_t off) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= static_cast<uint64_t>(static_cast<uint8_t>(b[off + i])) << (8 * i);
  return v;
}

// Minimal big-endian two's complement bytes, as Java's BigInteger.toByteArray().
std::string BigIntegerBytes(__int128 v) {
  std::string out;
  for (int i = 15; i >= 0; i--)
    out += static_cast<char>((static_cast<unsigned __int128>(v) >> (8 * i)) & 0xFF);
  size_t start = 0;
  while (start + 1 < out.size()) {
    uint8_t b0 = static_cast<uint8_t>(out[start]);
    uint8_t b1 = static_cast<uint8_t>(out[start + 1]);
    if ((b0 == 0x00 && !(b1 & 0x80)) || (b0 == 0xFF && (b1 & 0x80))) {
      start++;
    } else {
      break;
    }
  }
  return out.substr(start);
}

__int128 FromBigIntegerBytes(std::string_view b) {
  if (b.empty()) return 0;
  __int128 v = (static_cast<int8_t>(b[0]) < 0) ? -1 : 0;
  for (char c : b)
    v = static_cast<__int128>((static_cast<unsigned __int128>(v) << 8) | static_cast<uint8_t>(c));
  return v;
}

}  // namespace

std::string DecimalToBytes(__int128 unscaled) { return BigIntegerBytes(unscaled); }
__int128 DecimalFromBytes(std::string_view bytes) { return FromBigIntegerBytes(bytes); }

std::string EncodeBinaryRow(const std::vector<DataType>& types, const Row& values, RowKind kind) {
  const size_t arity = types.size();
  const size_t header = HeaderBytes(arity);
  const size_t fixed = header + 8 * arity;
  std::string buf(fixed, '\0');
  buf[0] = static_cast<char>(kind);
  auto set_null = [&](size_t i) {
    size_t bit = i + 8;
    buf[bit / 8] = static_cast<char>(static_cast<uint8_t>(buf[bit / 8]) | (1u << (bit % 8)));
  };
  // Appends to the variable part, zero-padded to 8 bytes; returns the offset.
  auto append_var = [&](std::string_view data, size_t reserve) {
    size_t off = buf.size();
    size_t len = std::max(data.size(), reserve);
    size_t padded = (len + 7) / 8 * 8;
    buf.append(padded, '\0');
    std::memcpy(&buf[off], data.data(), data.size());
    return off;
  };
  for (size_t i = 0; i < arity; i++) {
    const DataType& t = types[i];
    const Value& v = i < values.size() ? values[i] : Value();
    const size_t slot = header + 8 * i;
    // Nested values are not encoded in BinaryRows (partitions, keys and stats never hold
    // them: CREATE TABLE refuses such keys); they are written as null rather than misread.
    if (v.is_null() || t.IsNested()) {
      set_null(i);
      // Non-compact decimals and timestamps keep their variable-part space even when null.
      if (t.id == TypeId::kDecimal && !IsCompactDecimal(t)) {
        size_t off = append_var({}, 16);
        PutU64(&buf, slot, static_cast<uint64_t>(off) << 32);
      } else if (t.IsTimestamp() && !IsCompactTimestamp(t)) {
        size_t off = append_var({}, 8);
        PutU64(&buf, slot, static_cast<uint64_t>(off) << 32);
      }
      continue;
    }
    switch (t.id) {
      case TypeId::kArray:
      case TypeId::kMultiset:
      case TypeId::kMap:
      case TypeId::kRow:
        break;  // handled above
      case TypeId::kBoolean:
        buf[slot] = v.bool_value() ? 1 : 0;
        break;
      case TypeId::kTinyInt:
        buf[slot] = static_cast<char>(v.int_value());
        break;
      case TypeId::kSmallInt:
        PutU64(&buf, slot, static_cast<uint16_t>(v.int_value()));
        break;
      case TypeId::kInt:
      case TypeId::kDate:
      case TypeId::kTime:
        PutU64(&buf, slot, static_cast<uint32_t>(v.int_value()));
        break;
      case TypeId::kBigInt:
        PutU64(&buf, slot, static_cast<uint64_t>(v.int_value()));
        break;
      case TypeId::kFloat: {
        float f = static_cast<float>(v.double_value());
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        PutU64(&buf, slot, bits);
        break;
      }
      case TypeId::kDouble: {
        double d = v.double_value();
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        PutU64(&buf, slot, bits);
        break;
      }
      case TypeId::kDecimal:
        if (IsCompactDecimal(t)) {
          PutU64(&buf, slot,
                 static_cast<uint64_t>(static_cast<int64_t>(v.decimal_value().unscaled)));
        } else {
          std::string bytes = BigIntegerBytes(v.decimal_value().unscaled);
          size_t off = append_var(bytes, 16);
          PutU64(&buf, slot, (static_cast<uint64_t>(off) << 32) | bytes.size());
        }
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampLtz: {
        Timestamp ts = v.timestamp_value();
        if (IsCompactTimestamp(t)) {
          PutU64(&buf, slot, static_cast<uint64_t>(ts.millis));
        } else {
          std::string millis(8, '\0');
          PutU64(&millis, 0, static_cast<uint64_t>(ts.millis));
          size_t off = append_var(millis, 8);
          PutU64(&buf, slot,
                 (static_cast<uint64_t>(off) << 32) | static_cast<uint32_t>(ts.nanos_of_milli));
        }
        break;
      }
      case TypeId::kChar:
      case TypeId::kVarChar:
      case TypeId::kBinary:
      case TypeId::kVarBinary: {
        const std::string& s = v.string_value();
        if (s.size() <= 7) {
          std::memcpy(&buf[slot], s.data(), s.size());
          buf[slot + 7] = static_cast<char>(0x80 | s.size());
        } else {
          size_t off = append_var(s, 0);
          PutU64(&buf, slot, (static_cast<uint64_t>(off) << 32) | s.size());
        }
        break;
      }
    }
  }
  return buf;
}

namespace {
Result<Row> DecodeRow(std::string_view b, size_t arity, const std::vector<DataType>& types) {
  const size_t header = HeaderBytes(arity);
  if (b.size() < header + 8 * arity) {
    return Status::Corruption("BinaryRow of " + std::to_string(arity) + " fields is truncated (" +
                              std::to_string(b.size()) + " bytes)");
  }
  Row row(types.size());
  for (size_t i = 0; i < types.size() && i < arity; i++) {
    size_t bit = i + 8;
    if (static_cast<uint8_t>(b[bit / 8]) & (1u << (bit % 8))) continue;
    const DataType& t = types[i];
    const size_t slot = header + 8 * i;
    uint64_t raw = GetU64(b, slot);
    auto var = [&](size_t* off, size_t* len) -> Status {
      *off = raw >> 32;
      *len = raw & 0xFFFFFFFFu;
      if (*off + *len > b.size()) return Status::Corruption("BinaryRow variable part out of range");
      return Status::OK();
    };
    switch (t.id) {
      case TypeId::kArray:
      case TypeId::kMultiset:
      case TypeId::kMap:
      case TypeId::kRow:
        break;  // not encoded: reads as null
      case TypeId::kBoolean:
        row[i] = Value::Bool(b[slot] != 0);
        break;
      case TypeId::kTinyInt:
        row[i] = Value::Int(static_cast<int8_t>(raw & 0xFF));
        break;
      case TypeId::kSmallInt:
        row[i] = Value::Int(static_cast<int16_t>(raw & 0xFFFF));
        break;
      case TypeId::kInt:
      case TypeId::kDate:
      case TypeId::kTime:
        row[i] = Value::Int(static_cast<int32_t>(raw & 0xFFFFFFFFu));
        break;
      case TypeId::kBigInt:
        row[i] = Value::Int(static_cast<int64_t>(raw));
        break;
      case TypeId::kFloat: {
        uint32_t bits = static_cast<uint32_t>(raw);
        float f;
        std::memcpy(&f, &bits, 4);
        row[i] = Value::Double(f);
        break;
      }
      case TypeId::kDouble: {
        double d;
        std::memcpy(&d, &raw, 8);
        row[i] = Value::Double(d);
        break;
      }
      case TypeId::kDecimal:
        if (IsCompactDecimal(t)) {
          row[i] = Value::Dec({static_cast<int64_t>(raw)});
        } else {
          size_t off, len;
          TRIB_RETURN_NOT_OK(var(&off, &len));
          row[i] = Value::Dec({FromBigIntegerBytes(b.substr(off, len))});
        }
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampLtz:
        if (IsCompactTimestamp(t)) {
          row[i] = Value::Ts({static_cast<int64_t>(raw), 0});
        } else {
          size_t off = raw >> 32;
          if (off + 8 > b.size()) return Status::Corruption("BinaryRow timestamp out of range");
          row[i] = Value::Ts(
              {static_cast<int64_t>(GetU64(b, off)), static_cast<int32_t>(raw & 0xFFFFFFFFu)});
        }
        break;
      case TypeId::kChar:
      case TypeId::kVarChar:
      case TypeId::kBinary:
      case TypeId::kVarBinary: {
        uint8_t mark = static_cast<uint8_t>(b[slot + 7]);
        if (mark & 0x80) {
          size_t len = mark & 0x7F;
          if (len > 7) return Status::Corruption("BinaryRow inline string longer than 7 bytes");
          row[i] = Value::String(std::string(b.substr(slot, len)));
        } else {
          size_t off, len;
          TRIB_RETURN_NOT_OK(var(&off, &len));
          row[i] = Value::String(std::string(b.substr(off, len)));
        }
        break;
      }
    }
  }
  return row;
}
}  // namespace

Result<Row> DecodeBinaryRow(std::string_view bytes, const std::vector<DataType>& types) {
  return DecodeRow(bytes, types.size(), types);
}

std::string SerializeBinaryRow(const std::vector<DataType>& types, const Row& values) {
  std::string row = EncodeBinaryRow(types, values);
  std::string out(4, '\0');
  uint32_t n = static_cast<uint32_t>(types.size());
  out[0] = static_cast<char>(n >> 24);
  out[1] = static_cast<char>(n >> 16);
  out[2] = static_cast<char>(n >> 8);
  out[3] = static_cast<char>(n);
  return out + row;
}

Result<int32_t> SerializedArity(std::string_view bytes) {
  if (bytes.size() < 4) return Status::Corruption("serialized BinaryRow shorter than 4 bytes");
  return static_cast<int32_t>((static_cast<uint32_t>(static_cast<uint8_t>(bytes[0])) << 24) |
                              (static_cast<uint32_t>(static_cast<uint8_t>(bytes[1])) << 16) |
                              (static_cast<uint32_t>(static_cast<uint8_t>(bytes[2])) << 8) |
                              static_cast<uint32_t>(static_cast<uint8_t>(bytes[3])));
}

Result<Row> DeserializeBinaryRow(std::string_view bytes, const std::vector<DataType>& types) {
  TRIB_ASSIGN_OR_RETURN(int32_t arity, SerializedArity(bytes));
  if (arity < 0 || static_cast<size_t>(arity) > types.size()) {
    return Status::Corruption("serialized BinaryRow has " + std::to_string(arity) +
                              " fields, expected at most " + std::to_string(types.size()));
  }
  return DecodeRow(bytes.substr(4), static_cast<size_t>(arity), types);
}

namespace {
inline uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
inline uint32_t MixK1(uint32_t k1) {
  k1 *= 0xcc9e2d51u;
  k1 = Rotl(k1, 15);
  return k1 * 0x1b873593u;
}
inline uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = Rotl(h1, 13);
  return h1 * 5 + 0xe6546b64u;
}
inline uint32_t Fmix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
}  // namespace

int32_t HashBytesByWords(std::string_view bytes) {
  uint32_t h1 = 42;
  size_t n = bytes.size() / 4 * 4;
  for (size_t i = 0; i < n; i += 4) {
    uint32_t k = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 2])) << 16) |
                 (static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 3])) << 24);
    h1 = MixH1(h1, MixK1(k));
  }
  return static_cast<int32_t>(Fmix(h1 ^ static_cast<uint32_t>(bytes.size())));
}

int32_t HashRow(const std::vector<DataType>& types, const Row& values) {
  return HashBytesByWords(EncodeBinaryRow(types, values));
}

int32_t BucketOf(int32_t hash, int32_t num_buckets) {
  int32_t r = hash % num_buckets;  // C++ % truncates toward zero, as Java's does
  return r < 0 ? -r : r;
}

}  // namespace tributary::format
