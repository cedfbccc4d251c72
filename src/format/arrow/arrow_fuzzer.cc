// libFuzzer target for the Arrow IPC stream reader (the hot tier's log entries of
// `tributary serve`): any byte string is read as a stream. A damaged stream must give an error
// Status: a crash, a sanitizer report or an allocation past libFuzzer's -malloc_limit_mb is a
// bug. Built only with -DTRIBUTARY_FUZZ=ON and clang (tests/fuzz/run_fuzzers.sh); the normal
// build replays the seed corpus (tests/fuzz/seeds/arrow/) through it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "format/arrow/ipc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Limits below libFuzzer's memory limits (the defaults are a server's): what they guard is
  // that a stream cannot make the reader allocate past them.
  tributary::format::arrow::IpcReadLimits limits;
  limits.max_decompressed_bytes = 64 << 20;
  limits.max_values = 4 << 20;
  auto stream = tributary::format::arrow::ReadIpcStream(
      std::string_view(reinterpret_cast<const char*>(data), size), limits);
  (void)stream;
  return 0;
}
