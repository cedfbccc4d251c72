#include "format/deletion_vector.h"

#include <roaring/roaring.h>

#include <algorithm>
#include <map>
#include <string>

#include "format/compression.h"

namespace tributary::format {
namespace {

uint32_t BigEndian32(std::string_view b, size_t off) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(b[off])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[off + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(b[off + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(b[off + 3]));
}

uint64_t LittleEndian(std::string_view b, size_t off, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--) v = (v << 8) | static_cast<uint8_t>(b[off + i]);
  return v;
}

constexpr uint32_t kMagic32 = 1581511376;
constexpr uint32_t kMagic64 = 0xD1D33964;

uint32_t Le(std::string_view b, size_t off, int bytes) {
  return static_cast<uint32_t>(LittleEndian(b, off, bytes));
}

// Adds the values of one 32-bit RoaringBitmap in the portable format (RoaringFormatSpec: a
// cookie, the containers' keys and cardinalities, offsets, then array, bitmap and run
// containers) at `bytes` (high bits `high`) to `out`; returns the bytes it used. Decoded here,
// strictly, rather than by libroaring: Debian's version trusts damaged input (a crash found by
// tests/fuzz's index_fuzzer); format/deletion_vector_test.cc checks this decoder against it.
Result<size_t> AddPortable(std::string_view bytes, uint64_t high, std::vector<int64_t>* out,
                           const std::string& what) {
  auto bad = [&](const std::string& why) {
    return Status::Corruption(what + ": damaged RoaringBitmap in a deletion vector (" + why + ")");
  };
  constexpr uint32_t kCookie = 12347, kCookieNoRuns = 12346;
  size_t pos = 0;
  auto need = [&](size_t n) { return bytes.size() - pos >= n; };
  if (!need(4)) return bad("truncated");
  const uint32_t cookie = Le(bytes, 0, 4);
  pos = 4;
  size_t n = 0;
  std::string_view run_flags;
  bool offsets = true;
  if ((cookie & 0xFFFF) == kCookie) {
    n = (cookie >> 16) + 1;
    if (!need((n + 7) / 8)) return bad("truncated");
    run_flags = bytes.substr(pos, (n + 7) / 8);
    pos += (n + 7) / 8;
    offsets = n >= 4;
  } else if (cookie == kCookieNoRuns) {
    if (!need(4)) return bad("truncated");
    n = Le(bytes, pos, 4);
    pos += 4;
    if (n > 65536) return bad("more than 65536 containers");
  } else {
    return bad("unknown cookie " + std::to_string(cookie));
  }
  if (!need(n * 4)) return bad("truncated");
  const size_t header = pos;
  pos += n * 4;
  if (offsets) {
    if (!need(n * 4)) return bad("truncated");
    pos += n * 4;  // where each container starts: they follow each other, so not needed
  }
  int64_t last_key = -1;
  for (size_t i = 0; i < n; i++) {
    const uint32_t key = Le(bytes, header + 4 * i, 2);
    const uint32_t card = Le(bytes, header + 4 * i + 2, 2) + 1;
    if (static_cast<int64_t>(key) <= last_key) return bad("keys out of order");
    last_key = key;
    const uint64_t base = (high << 32) | (static_cast<uint64_t>(key) << 16);
    const bool run =
        !run_flags.empty() && (static_cast<uint8_t>(run_flags[i / 8]) >> (i % 8) & 1) != 0;
    if (run) {
      if (!need(2)) return bad("truncated");
      const uint32_t runs = Le(bytes, pos, 2);
      pos += 2;
      if (!need(static_cast<size_t>(runs) * 4)) return bad("truncated");
      uint64_t count = 0;
      int64_t end = -1;
      for (uint32_t r = 0; r < runs; r++) {
        const uint32_t start = Le(bytes, pos, 2), length = Le(bytes, pos + 2, 2);
        pos += 4;
        if (static_cast<int64_t>(start) <= end || start + length > 0xFFFF) {
          return bad("runs out of order");
        }
        end = start + length;
        count += length + 1;
        for (uint32_t v = start; v <= start + length; v++)
          out->push_back(static_cast<int64_t>(base | v));
      }
      if (count != card) return bad("a run container's cardinality does not match");
    } else if (card > 4096) {
      if (!need(8192)) return bad("truncated");
      uint64_t count = 0;
      for (uint32_t w = 0; w < 1024; w++) {
        uint64_t word = LittleEndian(bytes, pos + 8 * w, 8);
        count += static_cast<uint64_t>(__builtin_popcountll(word));
        while (word != 0) {
          const int bit = __builtin_ctzll(word);
          out->push_back(static_cast<int64_t>(base | (w * 64 + static_cast<uint32_t>(bit))));
          word &= word - 1;
        }
      }
      pos += 8192;
      if (count != card) return bad("a bitmap container's cardinality does not match");
    } else {
      if (!need(static_cast<size_t>(card) * 2)) return bad("truncated");
      int64_t prev = -1;
      for (uint32_t k = 0; k < card; k++) {
        const uint32_t v = Le(bytes, pos + 2 * k, 2);
        if (static_cast<int64_t>(v) <= prev) return bad("values out of order");
        prev = v;
        out->push_back(static_cast<int64_t>(base | v));
      }
      pos += static_cast<size_t>(card) * 2;
    }
  }
  return pos;
}

}  // namespace

Result<DeletionVector> DeletionVector::Decode(std::string_view file, int64_t offset, int64_t length,
                                              const std::string& what) {
  if (offset < 0 || length < 4 || static_cast<size_t>(offset) + 4 + length > file.size()) {
    return Status::Corruption(what + ": deletion vector range [" + std::to_string(offset) + ", +" +
                              std::to_string(length) + ") lies outside the file");
  }
  uint32_t stored_len = BigEndian32(file, offset);
  if (stored_len != static_cast<uint32_t>(length)) {
    return Status::Corruption(what + ": deletion vector length " + std::to_string(stored_len) +
                              " does not match the index manifest's " + std::to_string(length));
  }
  std::string_view body = file.substr(offset + 4, length);
  // The CRC-32 of the magic and bitmap follows them (as Paimon's readers check it).
  if (static_cast<size_t>(offset) + 8 + length > file.size()) {
    return Status::Corruption(what + ": deletion vector at " + std::to_string(offset) +
                              " has no checksum (the file ends early)");
  }
  if (BigEndian32(file, static_cast<size_t>(offset + 4 + length)) != Crc32(body)) {
    return Status::Corruption(what + ": deletion vector at " + std::to_string(offset) +
                              " does not match its checksum (the file is damaged)");
  }
  uint32_t magic = BigEndian32(body, 0);
  DeletionVector dv;
  if (magic == kMagic32) {
    TRIB_ASSIGN_OR_RETURN(size_t used, AddPortable(body.substr(4), 0, &dv.deleted_, what));
    (void)used;
    return dv;
  }
  if (magic == kMagic64) {
    std::string_view rest = body.substr(4);
    if (rest.size() < 8) return Status::Corruption(what + ": truncated 64-bit deletion vector");
    uint64_t buckets = LittleEndian(rest, 0, 8);
    size_t pos = 8;
    for (uint64_t i = 0; i < buckets; i++) {
      if (pos + 4 > rest.size())
        return Status::Corruption(what + ": truncated 64-bit deletion vector");
      uint64_t high = LittleEndian(rest, pos, 4);
      pos += 4;
      TRIB_ASSIGN_OR_RETURN(size_t used, AddPortable(rest.substr(pos), high, &dv.deleted_, what));
      pos += used;
    }
    // Each bucket's positions ascend; buckets out of order would leave them unsorted.
    if (!std::is_sorted(dv.deleted_.begin(), dv.deleted_.end())) {
      std::sort(dv.deleted_.begin(), dv.deleted_.end());
      dv.deleted_.erase(std::unique(dv.deleted_.begin(), dv.deleted_.end()), dv.deleted_.end());
    }
    return dv;
  }
  return Status::Corruption(what + ": unknown deletion vector magic " + std::to_string(magic));
}

namespace {

void PutBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xFF));
}

void PutLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; i++) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// The portable serialization of the 32-bit values `low` (libroaring's, which writes the format
// Java's RoaringBitmap writes), run containers where they are smaller.
void AppendPortable(const std::vector<uint32_t>& low, std::string* out) {
  roaring_bitmap_t* bm = roaring_bitmap_of_ptr(low.size(), low.data());
  roaring_bitmap_run_optimize(bm);
  const size_t at = out->size();
  out->resize(at + roaring_bitmap_portable_size_in_bytes(bm));
  roaring_bitmap_portable_serialize(bm, out->data() + at);
  roaring_bitmap_free(bm);
}

}  // namespace

Result<std::string> DeletionVector::Encode(std::vector<int64_t> positions, bool bitmap64) {
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  if (!positions.empty() && positions.front() < 0) {
    return Status::Invalid("a deletion vector position must not be negative, not " +
                           std::to_string(positions.front()));
  }
  std::string body;  // magic and bitmap
  if (!bitmap64) {
    if (!positions.empty() && positions.back() > 0x7FFFFFFF) {
      return Status::Invalid("a 32-bit deletion vector holds positions up to 2147483647, not " +
                             std::to_string(positions.back()) +
                             " (a file this long needs 'deletion-vectors.bitmap64')");
    }
    PutBigEndian32(kMagic32, &body);
    std::vector<uint32_t> low(positions.begin(), positions.end());
    AppendPortable(low, &body);
  } else {
    PutBigEndian32(kMagic64, &body);
    // Buckets by the high 32 bits, each a 32-bit bitmap of the low ones.
    std::map<uint32_t, std::vector<uint32_t>> buckets;
    for (int64_t p : positions) {
      buckets[static_cast<uint32_t>(static_cast<uint64_t>(p) >> 32)].push_back(
          static_cast<uint32_t>(p));
    }
    PutLittleEndian(buckets.size(), 8, &body);
    for (const auto& [high, low] : buckets) {
      PutLittleEndian(high, 4, &body);
      AppendPortable(low, &body);
    }
  }
  std::string out;
  PutBigEndian32(static_cast<uint32_t>(body.size()), &out);
  out += body;
  PutBigEndian32(Crc32(body), &out);
  return out;
}

Result<DeletionVectorIndex::Range> DeletionVectorIndex::Add(const std::vector<int64_t>& positions,
                                                            bool bitmap64) {
  TRIB_ASSIGN_OR_RETURN(std::string encoded, DeletionVector::Encode(positions, bitmap64));
  Range r;
  r.offset = static_cast<int64_t>(bytes_.size());
  r.length = DeletionVector::EncodedLength(encoded);
  std::vector<int64_t> distinct = positions;
  std::sort(distinct.begin(), distinct.end());
  r.cardinality =
      static_cast<int64_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin());
  bytes_ += encoded;
  return r;
}

}  // namespace tributary::format
