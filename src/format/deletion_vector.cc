#include "format/deletion_vector.h"

#include <roaring/roaring.h>

#include <string>

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

// Adds the values of one portable 32-bit bitmap at `bytes` (high bits `high`) to `out`;
// returns the bytes it used.
Result<size_t> AddPortable(std::string_view bytes, uint64_t high, std::unordered_set<int64_t>* out,
                           const std::string& what) {
  size_t used = roaring_bitmap_portable_deserialize_size(bytes.data(), bytes.size());
  if (used == 0) return Status::Corruption(what + ": damaged RoaringBitmap in a deletion vector");
  roaring_bitmap_t* bm = roaring_bitmap_portable_deserialize_safe(bytes.data(), bytes.size());
  if (!bm) return Status::Corruption(what + ": damaged RoaringBitmap in a deletion vector");
  roaring_uint32_iterator_t* it = roaring_create_iterator(bm);
  while (it->has_value) {
    out->insert(static_cast<int64_t>((high << 32) | it->current_value));
    roaring_advance_uint32_iterator(it);
  }
  roaring_free_uint32_iterator(it);
  roaring_bitmap_free(bm);
  return used;
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
      if (pos + 4 > rest.size()) return Status::Corruption(what + ": truncated 64-bit deletion vector");
      uint64_t high = LittleEndian(rest, pos, 4);
      pos += 4;
      TRIB_ASSIGN_OR_RETURN(size_t used, AddPortable(rest.substr(pos), high, &dv.deleted_, what));
      pos += used;
    }
    return dv;
  }
  return Status::Corruption(what + ": unknown deletion vector magic " + std::to_string(magic));
}

}  // namespace tributary::format
