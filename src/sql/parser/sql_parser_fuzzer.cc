// libFuzzer target for the SQL front end: any byte string is parsed as a statement and as an
// expression. Malformed text must give an error Status (with a position): a crash, a sanitizer
// report, unbounded recursion past the stack guard or a timeout is a bug. Built only with
// -DTRIBUTARY_FUZZ=ON and clang (tests/fuzz/run_fuzzers.sh); the normal build replays the seed
// corpus through it (tests/fuzz/replay_main.cc).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sql/parser/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)tributary::sql::ParseStatement(text);
  (void)tributary::sql::ParseExpression(text);
  return 0;
}
