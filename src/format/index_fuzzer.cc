// libFuzzer target for the index files a table keeps beside its data: Paimon's file-index
// container (`<data file>.index`, or embedded in a manifest entry) with its bloom filters, and
// deletion-vector index files. The first byte picks the format; the rest is the file. A damaged
// file must give an error Status: a crash, a sanitizer report or an allocation past libFuzzer's
// -malloc_limit_mb is a bug. (Dynamic-bucket HASH index files are checked by size and checksum,
// src/write/dynamic_bucket.cc, before their ints are read.) Built only with -DTRIBUTARY_FUZZ=ON
// and clang (tests/fuzz/run_fuzzers.sh); the normal build replays the seed corpus through it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/deletion_vector.h"
#include "format/file_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    auto columns = tributary::format::ParseFileIndex(bytes, "fuzz input");
    if (!columns.ok()) return 0;
    for (const auto& c : *columns) {
      for (const auto& [type, body] : c.indexes) {
        if (type != tributary::format::kBloomFilterIndexType) continue;
        auto bloom = tributary::format::BloomFilter64::Parse(body);
        if (bloom.ok()) (void)bloom->MightContainHash(0x9e3779b97f4a7c15ULL);
      }
    }
  } else {
    // The file's vectors one after another (a version byte, then length-prefixed bitmaps).
    size_t offset = 1;
    for (int i = 0; i < 1000 && offset + 4 <= bytes.size(); i++) {
      const auto u = [&](size_t k) {
        return static_cast<uint32_t>(static_cast<uint8_t>(bytes[k]));
      };
      const int64_t length = static_cast<int32_t>((u(offset) << 24) | (u(offset + 1) << 16) |
                                                  (u(offset + 2) << 8) | u(offset + 3));
      auto dv = tributary::format::DeletionVector::Decode(bytes, static_cast<int64_t>(offset),
                                                          length, "fuzz input");
      if (!dv.ok() || length <= 0) break;
      (void)dv->IsDeleted(0);
      offset += 4 + static_cast<size_t>(length);
    }
  }
  return 0;
}
