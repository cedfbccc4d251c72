// libFuzzer target for the table metadata decoders: the first byte picks one (snapshot JSON,
// schema JSON, manifest, manifest list, index manifest), the rest is the file. A damaged file
// must give an error Status: a crash, a sanitizer report or an allocation past libFuzzer's
// -malloc_limit_mb is a bug. Built only with -DTRIBUTARY_FUZZ=ON and clang
// (tests/fuzz/run_fuzzers.sh, which prefixes the golden tables' files with their selector); the
// normal build replays the seed corpus through it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "meta/manifest.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  namespace meta = tributary::meta;
  switch (data[0] % 5) {
    case 0:
      (void)meta::SnapshotFromJson(file, "fuzz");
      break;
    case 1:
      (void)meta::SchemaFromJson(file, "fuzz");
      break;
    case 2:
      (void)meta::DecodeManifest(std::string(file), "fuzz");
      break;
    case 3:
      (void)meta::DecodeManifestList(std::string(file), "fuzz");
      break;
    default:
      (void)meta::DecodeIndexManifest(std::string(file), "fuzz");
      break;
  }
  return 0;
}
