#include "format/blob_file.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace tributary::format {

Result<std::vector<std::string_view>> ReadBlobValues(std::string_view bytes) {
  static const char kMagic[4] = {'\xcf', '\x11', '\x4e', '\x58'};
  std::vector<std::string_view> out;
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
      uint32_t want = static_cast<uint32_t>(::crc32(
          0, reinterpret_cast<const Bytef*>(bytes.data() + p), static_cast<uInt>(e - 4 - p)));
      if (crc == want) {
        end = e;
        break;
      }
    }
    if (!end) {
      return Status::Corruption("a record without a valid length and CRC at offset " +
                                std::to_string(p));
    }
    out.push_back(bytes.substr(p + 4, end - 16 - p));
    p = end;
  }
  return out;
}

}  // namespace tributary::format
