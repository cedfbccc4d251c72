#include "format/file_index.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "format/compression.h"

namespace tributary::format {
namespace {

constexpr int64_t kMagic = 1493475289347502LL;
constexpr int32_t kVersion = 1;
constexpr int32_t kEmptyIndex = -1;
// Tributary's use of the container's "redundant bytes" (which Paimon's readers skip): this
// marker, then a CRC-32 of every byte of the file but the redundant ones.
constexpr int32_t kChecksumMarker = 0x54524243;  // "TRBC"
constexpr int32_t kChecksumBytes = 8;

// The CRC-32 of `bytes` without [from, to) (the redundant bytes).
uint32_t CrcWithout(std::string_view bytes, size_t from, size_t to) {
  std::string covered(bytes.substr(0, from));
  covered.append(bytes.substr(to));
  return Crc32(covered);
}

void PutInt(std::string* out, int32_t v) {
  const uint32_t u = static_cast<uint32_t>(v);
  for (int s = 24; s >= 0; s -= 8) out->push_back(static_cast<char>((u >> s) & 0xff));
}
void PutLong(std::string* out, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  for (int s = 56; s >= 0; s -= 8) out->push_back(static_cast<char>((u >> s) & 0xff));
}

// UTF-16 code units of UTF-8 text (a malformed byte becomes U+FFFD).
std::u16string Utf16(std::string_view s) {
  std::u16string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp = 0xfffd;
    size_t n = 1;
    if (c < 0x80) {
      cp = c;
    } else if ((c >> 5) == 6 && i + 1 < s.size()) {
      cp = ((c & 0x1fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3fu);
      n = 2;
    } else if ((c >> 4) == 14 && i + 2 < s.size()) {
      cp = ((c & 0x0fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3fu) << 6) |
           (static_cast<unsigned char>(s[i + 2]) & 0x3fu);
      n = 3;
    } else if ((c >> 3) == 30 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3fu) << 12) |
           ((static_cast<unsigned char>(s[i + 2]) & 0x3fu) << 6) |
           (static_cast<unsigned char>(s[i + 3]) & 0x3fu);
      n = 4;
    }
    i += n;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xd800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xdc00 + (cp & 0x3ff)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

// java.io.DataOutputStream.writeUTF: a 2-byte length, then modified UTF-8 of the UTF-16 units.
void PutUtf(std::string* out, std::string_view s) {
  std::string bytes;
  for (char16_t c : Utf16(s)) {
    if (c >= 0x0001 && c <= 0x007f) {
      bytes.push_back(static_cast<char>(c));
    } else if (c > 0x07ff) {
      bytes.push_back(static_cast<char>(0xe0 | ((c >> 12) & 0x0f)));
      bytes.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
      bytes.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else {
      bytes.push_back(static_cast<char>(0xc0 | ((c >> 6) & 0x1f)));
      bytes.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    }
  }
  out->push_back(static_cast<char>((bytes.size() >> 8) & 0xff));
  out->push_back(static_cast<char>(bytes.size() & 0xff));
  out->append(bytes);
}

// Reads what PutInt / PutLong / PutUtf wrote.
class Cursor {
 public:
  Cursor(std::string_view b, const std::string& what) : b_(b), what_(what) {}
  Result<int64_t> Read(size_t n) {
    if (b_.size() - pos_ < n) return Bad("ends early");
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = (v << 8) | static_cast<unsigned char>(b_[pos_ + i]);
    pos_ += n;
    if (n == 4) return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)));
    return static_cast<int64_t>(v);
  }
  Result<std::string> ReadUtf() {
    TRIB_ASSIGN_OR_RETURN(int64_t n, Read(2));
    const size_t len = static_cast<size_t>(n & 0xffff);
    if (b_.size() - pos_ < len) return Bad("ends inside a name");
    std::string raw(b_.substr(pos_, len));
    pos_ += len;
    // Modified UTF-8 differs from UTF-8 only for U+0000 (C0 80); names never hold it.
    return raw;
  }
  size_t pos() const { return pos_; }
  Status Bad(const std::string& why) const {
    return Status::Corruption("file index of " + what_ + ": " + why);
  }

 private:
  std::string_view b_;
  const std::string& what_;
  size_t pos_ = 0;
};

int32_t JavaStringHash(std::string_view s) {
  uint32_t h = 0;
  for (char16_t c : Utf16(s)) h = 31 * h + c;
  return static_cast<int32_t>(h);
}

}  // namespace

bool BloomFilterSupports(const DataType& type) {
  switch (type.id) {
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return true;
    default:
      return false;
  }
}

uint64_t BloomFilterHashInt(int64_t v) {
  // Thomas Wang's 64-bit mix, Java's arithmetic shifts and wrapping arithmetic.
  uint64_t key = static_cast<uint64_t>(v);
  auto sar = [](uint64_t x, int s) { return static_cast<uint64_t>(static_cast<int64_t>(x) >> s); };
  key = ~key + (key << 21);
  key = key ^ sar(key, 24);
  key = key + (key << 3) + (key << 8);
  key = key ^ sar(key, 14);
  key = key + (key << 2) + (key << 4);
  key = key ^ sar(key, 28);
  key = key + (key << 31);
  return key;
}

uint64_t BloomFilterHashBytes(std::string_view bytes) {
  return XXH64(bytes.data(), bytes.size(), 0);
}

std::optional<uint64_t> BloomFilterHash(const Value& v, const DataType& type) {
  if (v.is_null()) return std::nullopt;
  // A value of another representation than the column's (a filter literal not converted) has
  // no hash the filter could have seen.
  const bool fits = type.IsFloating()                    ? v.is_double()
                    : type.IsTimestamp()                 ? v.is_timestamp()
                    : type.IsString() || type.IsBinary() ? v.is_string()
                                                         : v.is_int();
  if (!fits) return std::nullopt;
  switch (type.id) {
    case TypeId::kFloat: {
      const float f = static_cast<float>(v.double_value());
      int32_t bits = 0x7fc00000;  // floatToIntBits: every NaN as one
      if (!std::isnan(f)) std::memcpy(&bits, &f, sizeof bits);
      return BloomFilterHashInt(bits);
    }
    case TypeId::kDouble: {
      const double d = v.double_value();
      int64_t bits = 0x7ff8000000000000LL;
      if (!std::isnan(d)) std::memcpy(&bits, &d, sizeof bits);
      return BloomFilterHashInt(bits);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      const Timestamp ts = v.timestamp_value();
      return BloomFilterHashInt(type.precision <= 3 ? ts.millis
                                                    : ts.millis * 1000 + ts.nanos_of_milli / 1000);
    }
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return BloomFilterHashBytes(v.string_value());
    default:
      return BloomFilterHashInt(v.int_value());
  }
}

BloomFilter64::BloomFilter64(int64_t items, double fpp) {
  const double ln2 = std::log(2.0);
  items = std::max<int64_t>(items, 1);
  // At most 2^31 bits, as Paimon's int bit count (the options refuse larger filters).
  const int32_t nb = static_cast<int32_t>(
      std::min(-static_cast<double>(items) * std::log(fpp) / (ln2 * ln2), 2147483639.0));
  const int32_t num_bits = nb + (8 - nb % 8);
  k_ = std::max<int32_t>(
      1, static_cast<int32_t>(std::floor(static_cast<double>(num_bits) / items * ln2 + 0.5)));
  bits_.assign(static_cast<size_t>(num_bits / 8), '\0');
}

Result<BloomFilter64> BloomFilter64::Parse(std::string_view bytes) {
  if (bytes.size() < 5)
    return Status::Corruption("a bloom filter of " + std::to_string(bytes.size()) + " bytes");
  BloomFilter64 f;
  int32_t k = 0;
  for (int i = 0; i < 4; i++) k = (k << 8) | static_cast<unsigned char>(bytes[i]);
  if (k < 1 || k > 64)
    return Status::Corruption("a bloom filter of " + std::to_string(k) + " hash functions");
  f.k_ = k;
  f.bits_ = std::string(bytes.substr(4));
  return f;
}

void BloomFilter64::AddHash(uint64_t hash) {
  ForEachBit(hash, [&](int64_t pos) {
    bits_[static_cast<size_t>(pos >> 3)] |= static_cast<char>(1 << (pos & 7));
    return true;
  });
}

bool BloomFilter64::MightContainHash(uint64_t hash) const {
  return ForEachBit(hash, [&](int64_t pos) {
    return (static_cast<unsigned char>(bits_[static_cast<size_t>(pos >> 3)]) & (1u << (pos & 7))) !=
           0;
  });
}

std::string BloomFilter64::Serialize() const {
  std::string out;
  PutInt(&out, k_);
  out += bits_;
  return out;
}

std::vector<std::string> JavaHashMapOrder(const std::vector<std::string>& names) {
  size_t cap = 16;
  while (static_cast<double>(names.size()) > static_cast<double>(cap) * 0.75) cap *= 2;
  std::vector<std::pair<size_t, size_t>> order;  // (bucket, insertion)
  for (size_t i = 0; i < names.size(); i++) {
    const uint32_t h = static_cast<uint32_t>(JavaStringHash(names[i]));
    order.push_back({(h ^ (h >> 16)) & (cap - 1), i});
  }
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (const auto& [bucket, i] : order) out.push_back(names[i]);
  return out;
}

std::string SerializeFileIndex(std::vector<FileIndexColumn> columns, bool checksum) {
  std::vector<std::string> names;
  for (const auto& c : columns) names.push_back(c.column);
  std::vector<FileIndexColumn> ordered;
  for (const std::string& n : JavaHashMapOrder(names)) {
    for (auto& c : columns) {
      if (c.column == n) {
        ordered.push_back(std::move(c));
        break;
      }
    }
  }
  // The header's size does not depend on the offsets: write it once with placeholders.
  auto header = [&](int32_t head_length) {
    std::string h;
    PutLong(&h, kMagic);
    PutInt(&h, kVersion);
    PutInt(&h, head_length);
    PutInt(&h, static_cast<int32_t>(ordered.size()));
    int64_t offset = 0;
    for (const auto& c : ordered) {
      PutUtf(&h, c.column);
      PutInt(&h, static_cast<int32_t>(c.indexes.size()));
      for (const auto& [type, bytes] : c.indexes) {
        PutUtf(&h, type);
        if (bytes.empty()) {
          PutInt(&h, kEmptyIndex);
          PutInt(&h, 0);
        } else {
          PutInt(&h, static_cast<int32_t>(head_length + offset));
          PutInt(&h, static_cast<int32_t>(bytes.size()));
          offset += static_cast<int64_t>(bytes.size());
        }
      }
    }
    PutInt(&h, checksum ? kChecksumBytes : 0);  // redundant bytes
    if (checksum) {
      PutInt(&h, kChecksumMarker);
      PutInt(&h, 0);  // the CRC, filled in below
    }
    return h;
  };
  const int32_t head_length = static_cast<int32_t>(header(0).size());
  std::string out = header(head_length);
  for (const auto& c : ordered) {
    for (const auto& [type, bytes] : c.indexes) out += bytes;
  }
  if (checksum) {
    const size_t crc_at = static_cast<size_t>(head_length) - 4;
    const uint32_t crc = CrcWithout(out, crc_at - 4, crc_at + 4);
    for (int i = 0; i < 4; i++) out[crc_at + i] = static_cast<char>(crc >> (24 - 8 * i));
  }
  return out;
}

Result<std::vector<FileIndexColumn>> ParseFileIndex(std::string_view bytes,
                                                    const std::string& what) {
  Cursor in(bytes, what);
  TRIB_ASSIGN_OR_RETURN(int64_t magic, in.Read(8));
  if (magic != kMagic) return in.Bad("not a file index (wrong magic number)");
  TRIB_ASSIGN_OR_RETURN(int64_t version, in.Read(4));
  if (version != kVersion)
    return in.Bad("version " + std::to_string(version) + " is not supported");
  TRIB_ASSIGN_OR_RETURN(int64_t head_length, in.Read(4));
  TRIB_ASSIGN_OR_RETURN(int64_t columns, in.Read(4));
  if (head_length < 0 || static_cast<size_t>(head_length) > bytes.size() || columns < 0 ||
      columns > 100000) {
    return in.Bad("a damaged header");
  }
  std::vector<FileIndexColumn> out;
  for (int64_t c = 0; c < columns; c++) {
    FileIndexColumn col;
    TRIB_ASSIGN_OR_RETURN(col.column, in.ReadUtf());
    TRIB_ASSIGN_OR_RETURN(int64_t types, in.Read(4));
    if (types < 0 || types > 1000) return in.Bad("a damaged header");
    for (int64_t t = 0; t < types; t++) {
      TRIB_ASSIGN_OR_RETURN(std::string type, in.ReadUtf());
      TRIB_ASSIGN_OR_RETURN(int64_t start, in.Read(4));
      TRIB_ASSIGN_OR_RETURN(int64_t length, in.Read(4));
      std::string body;
      if (start != kEmptyIndex) {
        if (start < head_length || length < 0 ||
            static_cast<size_t>(start + length) > bytes.size()) {
          return in.Bad("index '" + type + "' of column '" + col.column + "' lies outside it");
        }
        body = std::string(bytes.substr(static_cast<size_t>(start), static_cast<size_t>(length)));
      }
      col.indexes.push_back({std::move(type), std::move(body)});
    }
    out.push_back(std::move(col));
  }
  TRIB_ASSIGN_OR_RETURN(int64_t redundant, in.Read(4));
  const size_t redundant_at = in.pos();
  if (redundant == kChecksumBytes &&
      redundant_at + kChecksumBytes == static_cast<size_t>(head_length)) {
    TRIB_ASSIGN_OR_RETURN(int64_t marker, in.Read(4));
    TRIB_ASSIGN_OR_RETURN(int64_t stored, in.Read(4));
    if (marker == kChecksumMarker &&
        static_cast<uint32_t>(stored) !=
            CrcWithout(bytes, redundant_at, redundant_at + kChecksumBytes)) {
      return in.Bad("its checksum does not match its bytes (the file is damaged)");
    }
  }
  return out;
}

}  // namespace tributary::format
