// libFuzzer target for the Avro object container reader (manifests, manifest lists, index
// manifests and Avro data files): any byte string is opened and every record decoded. A damaged
// file must give an error Status: a crash, a sanitizer report or an allocation past libFuzzer's
// -malloc_limit_mb is a bug. Built only with -DTRIBUTARY_FUZZ=ON and clang
// (tests/fuzz/run_fuzzers.sh); the normal build replays the seed corpus through it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "format/avro.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto reader =
      tributary::avro::FileReader::Open(std::string(reinterpret_cast<const char*>(data), size));
  if (!reader.ok()) return 0;
  tributary::avro::Datum d;
  for (int i = 0; i < 1000000; i++) {
    auto more = (*reader)->Next(&d);
    if (!more.ok() || !*more) break;
  }
  return 0;
}
