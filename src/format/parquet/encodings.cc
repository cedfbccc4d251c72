#include "format/parquet/encodings.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tributary::format::parquet {

namespace {

Status Truncated(const char* what) {
  return Status::Corruption(std::string("parquet ") + what + ": data truncated");
}

uint32_t LoadLe32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

uint64_t LoadLe64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void StoreLe32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutZigZag(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

bool GetVarint(std::string_view data, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && *pos < data.size(); shift += 7) {
    uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

bool GetZigZag(std::string_view data, size_t* pos, int64_t* out) {
  uint64_t v;
  if (!GetVarint(data, pos, &v)) return false;
  *out = static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  return true;
}

// Reads `bw` (0..64) bits starting at bit `bit_offset` of `p`, least significant bit first.
// REQUIRES: the bytes touched are inside the buffer.
uint64_t ReadBits(const uint8_t* p, uint64_t bit_offset, int bw) {
  uint64_t result = 0;
  int got = 0;
  uint64_t byte = bit_offset >> 3;
  int shift = static_cast<int>(bit_offset & 7);
  while (got < bw) {
    uint64_t b = p[byte++] >> shift;
    int take = std::min(8 - shift, bw - got);
    b &= (take == 64) ? ~0ull : ((1ull << take) - 1);
    result |= b << got;
    got += take;
    shift = 0;
  }
  return result;
}

// Appends `bw` bits of `v` to a bit stream held in `out` with `*bit_len` bits used.
void WriteBits(std::string* out, uint64_t* bit_len, uint64_t v, int bw) {
  int put = 0;
  while (put < bw) {
    int used = static_cast<int>(*bit_len & 7);
    if (used == 0) out->push_back(0);
    int take = std::min(8 - used, bw - put);
    uint8_t bits = static_cast<uint8_t>((v >> put) & ((1u << take) - 1));
    out->back() = static_cast<char>(static_cast<uint8_t>(out->back()) | (bits << used));
    put += take;
    *bit_len += take;
  }
}

}  // namespace

int FixedWidth(PhysicalType type, int32_t type_length) {
  switch (type) {
    case PhysicalType::kInt32:
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kInt64:
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFixedLenByteArray:
      return type_length;
    default:
      return 0;
  }
}

void PhysicalValues::AppendFrom(const PhysicalValues& from, size_t i) {
  if (!from.ints.empty()) {
    ints.push_back(from.ints[i]);
  } else if (!from.doubles.empty()) {
    doubles.push_back(from.doubles[i]);
  } else {
    bytes.push_back(from.bytes[i]);
  }
}

int BitWidth(uint64_t max_value) { return static_cast<int>(std::bit_width(max_value)); }

// ============================================================================ RLE / bit-packed

Status RleBitPackedDecoder::NextRun() {
  uint64_t header;
  if (!GetVarint(data_, &pos_, &header)) return Truncated("RLE/bit-packed run");
  if (header & 1) {
    uint64_t groups = header >> 1;
    uint64_t want_bytes = groups * static_cast<uint64_t>(bit_width_);
    if (groups > (1ull << 40)) return Status::Corruption("parquet RLE: bit-packed run too long");
    size_t avail = data_.size() - pos_;
    size_t bytes = static_cast<size_t>(std::min<uint64_t>(want_bytes, avail));
    packed_ = data_.substr(pos_, bytes);
    pos_ += bytes;
    rle_ = false;
    packed_index_ = 0;
    // A final run may be cut short; only whole values count.
    run_left_ = bit_width_ == 0 ? static_cast<int64_t>(groups * 8)
                                : static_cast<int64_t>(std::min<uint64_t>(
                                      groups * 8, bytes * 8 / static_cast<uint64_t>(bit_width_)));
  } else {
    uint64_t count = header >> 1;
    int nbytes = (bit_width_ + 7) / 8;
    if (data_.size() - pos_ < static_cast<size_t>(nbytes)) return Truncated("RLE run");
    uint32_t v = 0;
    for (int i = 0; i < nbytes; ++i)
      v |= static_cast<uint32_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
    pos_ += nbytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0) {
      return Status::Corruption("parquet RLE: run value wider than the bit width");
    }
    rle_ = true;
    rle_value_ = v;
    run_left_ = static_cast<int64_t>(std::min<uint64_t>(count, 1ull << 62));
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Get(int64_t n, std::vector<uint32_t>* out) {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Corruption("parquet RLE: bad bit width " + std::to_string(bit_width_));
  }
  while (n > 0) {
    if (run_left_ == 0) {
      if (pos_ >= data_.size()) return Truncated("RLE/bit-packed data");
      TRIB_RETURN_NOT_OK(NextRun());
      continue;
    }
    int64_t take = std::min(n, run_left_);
    if (rle_) {
      out->insert(out->end(), static_cast<size_t>(take), rle_value_);
    } else {
      const uint8_t* p = reinterpret_cast<const uint8_t*>(packed_.data());
      for (int64_t i = 0; i < take; ++i) {
        out->push_back(static_cast<uint32_t>(
            ReadBits(p, static_cast<uint64_t>(packed_index_ + i) * bit_width_, bit_width_)));
      }
      packed_index_ += take;
    }
    run_left_ -= take;
    n -= take;
  }
  return Status::OK();
}

std::string EncodeRleBitPacked(const std::vector<uint32_t>& values, int bit_width) {
  std::string out;
  std::vector<uint32_t> pending;  // values waiting for a bit-packed run
  // Pending values are flushed in whole groups of 8, except at the very end of the stream,
  // where the last group is padded with zeros (readers stop at their value count).
  auto flush_packed = [&]() {
    if (pending.empty()) return;
    size_t groups = (pending.size() + 7) / 8;
    pending.resize(groups * 8, 0);
    PutVarint(&out, (groups << 1) | 1);
    uint64_t bit_len = 0;
    std::string packed;
    for (uint32_t v : pending) WriteBits(&packed, &bit_len, v, bit_width);
    packed.resize(groups * static_cast<size_t>(bit_width), '\0');
    out += packed;
    pending.clear();
  };
  auto put_rle = [&](uint32_t v, size_t count) {
    PutVarint(&out, static_cast<uint64_t>(count) << 1);
    int nbytes = (bit_width + 7) / 8;
    for (int i = 0; i < nbytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  size_t i = 0;
  while (i < values.size()) {
    size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    size_t run = j - i;
    if (run >= 8) {
      // Complete the pending bit-packed group with values of this run first.
      size_t fill = pending.size() % 8 == 0 ? 0 : 8 - pending.size() % 8;
      pending.insert(pending.end(), fill, values[i]);
      run -= fill;
      if (run >= 8) {
        flush_packed();
        put_rle(values[i], run);
      } else {
        pending.insert(pending.end(), run, values[i]);
      }
    } else {
      pending.insert(pending.end(), run, values[i]);
    }
    i = j;
  }
  flush_packed();
  return out;
}

// ============================================================================ PLAIN

Status DecodePlain(std::string_view data, PhysicalType type, int32_t type_length, int64_t n,
                   PhysicalValues* out, size_t* consumed) {
  if (n < 0) return Status::Corruption("parquet PLAIN: negative value count");
  size_t pos = 0;
  auto need = [&](uint64_t bytes) { return bytes <= data.size() - pos; };
  switch (type) {
    case PhysicalType::kBoolean: {
      uint64_t bytes = (static_cast<uint64_t>(n) + 7) / 8;
      if (!need(bytes)) return Truncated("PLAIN booleans");
      ReserveMore(&out->ints, n);
      for (int64_t i = 0; i < n; ++i) {
        out->ints.push_back((static_cast<uint8_t>(data[i >> 3]) >> (i & 7)) & 1);
      }
      pos = bytes;
      break;
    }
    case PhysicalType::kInt32:
    case PhysicalType::kInt64:
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
    case PhysicalType::kInt96:
    case PhysicalType::kFixedLenByteArray: {
      int w = FixedWidth(type, type_length);
      if (w <= 0) return Status::Corruption("parquet PLAIN: bad fixed length");
      if (static_cast<uint64_t>(n) > data.size() / static_cast<uint64_t>(w)) {
        return Truncated("PLAIN values");
      }
      const char* p = data.data();
      if (type == PhysicalType::kInt32) {
        ReserveMore(&out->ints, n);
        for (int64_t i = 0; i < n; ++i) {
          out->ints.push_back(static_cast<int32_t>(LoadLe32(p + 4 * i)));
        }
      } else if (type == PhysicalType::kInt64) {
        ReserveMore(&out->ints, n);
        for (int64_t i = 0; i < n; ++i) {
          out->ints.push_back(static_cast<int64_t>(LoadLe64(p + 8 * i)));
        }
      } else if (type == PhysicalType::kFloat) {
        ReserveMore(&out->doubles, n);
        for (int64_t i = 0; i < n; ++i) {
          float f;
          std::memcpy(&f, p + 4 * i, 4);
          out->doubles.push_back(f);
        }
      } else if (type == PhysicalType::kDouble) {
        ReserveMore(&out->doubles, n);
        for (int64_t i = 0; i < n; ++i) {
          double d;
          std::memcpy(&d, p + 8 * i, 8);
          out->doubles.push_back(d);
        }
      } else {
        ReserveMore(&out->bytes, n);
        for (int64_t i = 0; i < n; ++i) out->bytes.push_back(std::string_view(p + w * i, w));
      }
      pos = static_cast<size_t>(n) * w;
      break;
    }
    case PhysicalType::kByteArray: {
      if (static_cast<uint64_t>(n) > data.size() / 4) return Truncated("PLAIN byte arrays");
      ReserveMore(&out->bytes, n);
      for (int64_t i = 0; i < n; ++i) {
        if (!need(4)) return Truncated("PLAIN byte arrays");
        uint32_t len = LoadLe32(data.data() + pos);
        pos += 4;
        if (!need(len)) return Truncated("PLAIN byte arrays");
        out->bytes.push_back(std::string_view(data.data() + pos, len));
        pos += len;
      }
      break;
    }
    default:
      return Status::Corruption("parquet PLAIN: unknown physical type");
  }
  if (consumed) *consumed = pos;
  return Status::OK();
}

Status DecodePlainByteArraysWanted(std::string_view data, int64_t n, const uint8_t* wanted,
                                   StringVector* out) {
  if (n < 0) return Status::Corruption("parquet PLAIN: negative value count");
  if (static_cast<uint64_t>(n) > data.size() / 4) return Truncated("PLAIN byte arrays");
  size_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (data.size() - pos < 4) return Truncated("PLAIN byte arrays");
    uint32_t len = LoadLe32(data.data() + pos);
    pos += 4;
    if (len > data.size() - pos) return Truncated("PLAIN byte arrays");
    if (wanted[i]) out->push_back(std::string_view(data.data() + pos, len));
    pos += len;
  }
  return Status::OK();
}

void EncodePlain(const PhysicalValues& values, PhysicalType type, std::string* out) {
  switch (type) {
    case PhysicalType::kBoolean: {
      size_t start = out->size();
      out->resize(start + (values.ints.size() + 7) / 8, '\0');
      for (size_t i = 0; i < values.ints.size(); ++i) {
        if (values.ints[i]) (*out)[start + i / 8] |= static_cast<char>(1 << (i % 8));
      }
      break;
    }
    case PhysicalType::kInt32:
      for (int64_t v : values.ints) StoreLe32(out, static_cast<uint32_t>(v));
      break;
    case PhysicalType::kInt64:
      for (int64_t v : values.ints) {
        char b[8];
        std::memcpy(b, &v, 8);
        out->append(b, 8);
      }
      break;
    case PhysicalType::kFloat:
      for (double d : values.doubles) {
        float f = static_cast<float>(d);
        char b[4];
        std::memcpy(b, &f, 4);
        out->append(b, 4);
      }
      break;
    case PhysicalType::kDouble:
      for (double d : values.doubles) {
        char b[8];
        std::memcpy(b, &d, 8);
        out->append(b, 8);
      }
      break;
    case PhysicalType::kByteArray:
      for (std::string_view s : values.bytes) {
        StoreLe32(out, static_cast<uint32_t>(s.size()));
        out->append(s);
      }
      break;
    case PhysicalType::kInt96:
    case PhysicalType::kFixedLenByteArray:
      out->append(values.bytes.chars(), values.bytes.bytes());
      break;
  }
}

std::string EncodeStatValue(const PhysicalValues& values, size_t i, PhysicalType type) {
  if (type == PhysicalType::kBoolean) return std::string(1, values.ints[i] ? 1 : 0);
  if (type == PhysicalType::kByteArray || type == PhysicalType::kFixedLenByteArray ||
      type == PhysicalType::kInt96) {
    return std::string(values.bytes[i]);
  }
  PhysicalValues one;
  one.AppendFrom(values, i);
  std::string out;
  EncodePlain(one, type, &out);
  return out;
}

// ============================================================================ DELTA_BINARY_PACKED

Status DecodeDeltaBinaryPacked(std::string_view data, int64_t max_values, bool is_int32,
                               std::vector<int64_t>* out, size_t* consumed) {
  size_t pos = 0;
  uint64_t block_size, mini_count, total;
  int64_t first;
  if (!GetVarint(data, &pos, &block_size) || !GetVarint(data, &pos, &mini_count) ||
      !GetVarint(data, &pos, &total) || !GetZigZag(data, &pos, &first)) {
    return Truncated("DELTA_BINARY_PACKED header");
  }
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1u << 20) || mini_count == 0 ||
      block_size % mini_count != 0 || (block_size / mini_count) % 32 != 0) {
    return Status::Corruption("parquet DELTA_BINARY_PACKED: bad block layout");
  }
  if (total > static_cast<uint64_t>(max_values)) {
    return Status::Corruption("parquet DELTA_BINARY_PACKED: more values than the page holds");
  }
  const uint64_t per_mini = block_size / mini_count;
  auto fix = [&](uint64_t v) -> int64_t {
    return is_int32 ? static_cast<int64_t>(static_cast<int32_t>(v)) : static_cast<int64_t>(v);
  };
  if (total > 0) out->push_back(fix(static_cast<uint64_t>(first)));
  uint64_t prev = static_cast<uint64_t>(first);
  uint64_t left = total == 0 ? 0 : total - 1;
  const uint8_t* base = reinterpret_cast<const uint8_t*>(data.data());
  while (left > 0) {
    int64_t min_delta;
    if (!GetZigZag(data, &pos, &min_delta)) return Truncated("DELTA_BINARY_PACKED block");
    if (data.size() - pos < mini_count) return Truncated("DELTA_BINARY_PACKED bit widths");
    size_t widths_pos = pos;
    pos += mini_count;
    for (uint64_t m = 0; m < mini_count && left > 0; ++m) {
      int bw = static_cast<uint8_t>(data[widths_pos + m]);
      if (bw > 64) return Status::Corruption("parquet DELTA_BINARY_PACKED: bit width > 64");
      uint64_t bytes = per_mini * bw / 8;
      if (data.size() - pos < bytes) return Truncated("DELTA_BINARY_PACKED miniblock");
      uint64_t take = std::min(per_mini, left);
      for (uint64_t j = 0; j < take; ++j) {
        uint64_t d = ReadBits(base + pos, j * bw, bw);
        prev = prev + static_cast<uint64_t>(min_delta) + d;
        if (is_int32)
          prev = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(prev)));
        out->push_back(fix(prev));
      }
      left -= take;
      pos += bytes;
    }
  }
  if (consumed) *consumed = pos;
  return Status::OK();
}

std::string EncodeDeltaBinaryPacked(const std::vector<int64_t>& values, bool is_int32) {
  constexpr int kBlock = 128, kMinis = 4, kPerMini = kBlock / kMinis;
  std::string out;
  PutVarint(&out, kBlock);
  PutVarint(&out, kMinis);
  PutVarint(&out, values.size());
  PutZigZag(&out, values.empty() ? 0 : values[0]);
  std::vector<int64_t> deltas;
  for (size_t i = 1; i < values.size(); ++i) {
    uint64_t d = static_cast<uint64_t>(values[i]) - static_cast<uint64_t>(values[i - 1]);
    deltas.push_back(is_int32 ? static_cast<int32_t>(d) : static_cast<int64_t>(d));
  }
  for (size_t b = 0; b < deltas.size(); b += kBlock) {
    size_t end = std::min(deltas.size(), b + kBlock);
    int64_t min_delta = *std::min_element(deltas.begin() + b, deltas.begin() + end);
    PutZigZag(&out, min_delta);
    size_t widths_pos = out.size();
    out.append(kMinis, '\0');
    for (int m = 0; m < kMinis; ++m) {
      size_t ms = b + static_cast<size_t>(m) * kPerMini;
      if (ms >= end) break;
      size_t me = std::min(end, ms + kPerMini);
      uint64_t max_off = 0;
      auto offset = [&](size_t k) {
        uint64_t o = static_cast<uint64_t>(deltas[k]) - static_cast<uint64_t>(min_delta);
        return is_int32 ? static_cast<uint64_t>(static_cast<uint32_t>(o)) : o;
      };
      for (size_t k = ms; k < me; ++k) max_off = std::max(max_off, offset(k));
      int bw = BitWidth(max_off);
      out[widths_pos + m] = static_cast<char>(bw);
      std::string packed;
      uint64_t bit_len = 0;
      for (size_t k = ms; k < ms + kPerMini; ++k) {
        WriteBits(&packed, &bit_len, k < me ? offset(k) : 0, bw);
      }
      packed.resize(static_cast<size_t>(kPerMini) * bw / 8, '\0');
      out += packed;
    }
  }
  return out;
}

// ============================================================================ byte arrays

Status DecodeDeltaLengthByteArray(std::string_view data, int64_t n, StringVector* out) {
  std::vector<int64_t> lengths;
  size_t pos = 0;
  TRIB_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, n, true, &lengths, &pos));
  if (static_cast<int64_t>(lengths.size()) != n) {
    return Status::Corruption("parquet DELTA_LENGTH_BYTE_ARRAY: wrong number of lengths");
  }
  ReserveMore(out, n);
  for (int64_t len : lengths) {
    if (len < 0 || static_cast<uint64_t>(len) > data.size() - pos) {
      return Truncated("DELTA_LENGTH_BYTE_ARRAY data");
    }
    out->push_back(std::string_view(data.data() + pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len);
  }
  return Status::OK();
}

std::string EncodeDeltaLengthByteArray(const StringVector& values) {
  std::vector<int64_t> lengths;
  lengths.reserve(values.size());
  for (std::string_view s : values) lengths.push_back(static_cast<int64_t>(s.size()));
  std::string out = EncodeDeltaBinaryPacked(lengths, true);
  out.append(values.chars(), values.bytes());
  return out;
}

Status DecodeDeltaByteArray(std::string_view data, int64_t n, StringVector* out) {
  std::vector<int64_t> prefixes;
  size_t pos = 0;
  TRIB_RETURN_NOT_OK(DecodeDeltaBinaryPacked(data, n, true, &prefixes, &pos));
  if (static_cast<int64_t>(prefixes.size()) != n) {
    return Status::Corruption("parquet DELTA_BYTE_ARRAY: wrong number of prefixes");
  }
  StringVector suffixes;
  TRIB_RETURN_NOT_OK(DecodeDeltaLengthByteArray(data.substr(pos), n, &suffixes));
  std::string prev;
  ReserveMore(out, n);
  for (int64_t i = 0; i < n; ++i) {
    if (prefixes[i] < 0 || static_cast<size_t>(prefixes[i]) > prev.size()) {
      return Status::Corruption("parquet DELTA_BYTE_ARRAY: prefix longer than the previous value");
    }
    std::string v = prev.substr(0, static_cast<size_t>(prefixes[i]));
    v += suffixes[i];
    out->push_back(v);
    prev = std::move(v);
  }
  return Status::OK();
}

std::string EncodeDeltaByteArray(const StringVector& values) {
  std::vector<int64_t> prefixes;
  StringVector suffixes;
  std::string_view prev;
  for (std::string_view s : values) {
    size_t p = 0;
    while (p < prev.size() && p < s.size() && prev[p] == s[p]) ++p;
    prefixes.push_back(static_cast<int64_t>(p));
    suffixes.push_back(s.substr(p));
    prev = s;
  }
  return EncodeDeltaBinaryPacked(prefixes, true) + EncodeDeltaLengthByteArray(suffixes);
}

// ============================================================================ BYTE_STREAM_SPLIT

Status DecodeByteStreamSplit(std::string_view data, PhysicalType type, int32_t type_length,
                             int64_t n, PhysicalValues* out) {
  int w = FixedWidth(type, type_length);
  if (w <= 0 || type == PhysicalType::kInt96) {
    return Status::Corruption("parquet BYTE_STREAM_SPLIT: unsupported physical type");
  }
  if (n < 0 || static_cast<uint64_t>(n) > data.size() / static_cast<uint64_t>(w)) {
    return Truncated("BYTE_STREAM_SPLIT values");
  }
  // Streams are laid out over the whole page; the stride is the page's value count.
  size_t stride = data.size() / w;
  std::string gathered(static_cast<size_t>(n) * w, '\0');
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < w; ++k) gathered[i * w + k] = data[k * stride + i];
  }
  return DecodePlain(gathered, type, type_length, n, out);
}

std::string EncodeByteStreamSplit(const PhysicalValues& values, PhysicalType type,
                                  int32_t type_length) {
  std::string plain;
  EncodePlain(values, type, &plain);
  int w = FixedWidth(type, type_length);
  size_t n = w > 0 ? plain.size() / w : 0;
  std::string out(plain.size(), '\0');
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < w; ++k) out[k * n + i] = plain[i * w + k];
  }
  return out;
}

// ============================================================================ RLE booleans

Status DecodeRleBooleans(std::string_view data, int64_t n, std::vector<int64_t>* out) {
  if (data.size() < 4) return Truncated("RLE booleans");
  uint32_t len = LoadLe32(data.data());
  if (len > data.size() - 4) return Truncated("RLE booleans");
  RleBitPackedDecoder dec(data.substr(4, len), 1);
  std::vector<uint32_t> bits;
  TRIB_RETURN_NOT_OK(dec.Get(n, &bits));
  out->insert(out->end(), bits.begin(), bits.end());
  return Status::OK();
}

std::string EncodeRleBooleans(const std::vector<int64_t>& values) {
  std::vector<uint32_t> bits(values.begin(), values.end());
  std::string body = EncodeRleBitPacked(bits, 1);
  std::string out;
  StoreLe32(&out, static_cast<uint32_t>(body.size()));
  return out + body;
}

}  // namespace tributary::format::parquet
