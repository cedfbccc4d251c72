// libFuzzer target for the decoding of what a PostgreSQL client sends `tributary serve`
// (server/pg_wire.h): the first byte picks the decoder (the startup packet, Parse, Bind,
// Execute, Describe/Close, the $n-to-'?' rewrite of a query, or SASLInitialResponse and the
// SCRAM-SHA-256 exchange of server/scram.h, its input split in two at the first NUL), the rest
// is its input. A
// malformed message must give an error Status: a crash, a sanitizer report or a timeout is a
// bug. Built only with -DTRIBUTARY_FUZZ=ON and clang (tests/fuzz/run_fuzzers.sh); the normal
// build replays the seed corpus through it.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "server/pg_wire.h"
#include "server/scram.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace pg = tributary::server::pg;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 7) {
    case 0:
      (void)pg::ParseStartup(in);
      break;
    case 1:
      (void)pg::ParseParse(in);
      break;
    case 2:
      (void)pg::ParseBind(in);
      break;
    case 3:
      (void)pg::ParseExecute(in);
      break;
    case 4:
      (void)pg::ParseTarget(in);
      break;
    case 5: {
      (void)pg::ParseSaslInitialResponse(in);
      (void)tributary::server::ParseScramVerifier(in);
      static const auto verifier =
          tributary::server::MakeScramVerifierWithSalt("pencil", "salt", 1);
      tributary::server::ScramExchange exchange(*verifier, "server-nonce");
      const size_t nul = in.find('\0');
      if (exchange.ClientFirst(in.substr(0, nul)).ok() && nul != std::string_view::npos) {
        (void)exchange.ClientFinal(in.substr(nul + 1));
      }
      break;
    }
    default: {
      std::vector<int> order;
      int count = 0;
      (void)pg::DollarParamsToMarkers(in, &order, &count);
      (void)pg::MessageLength(in);
      break;
    }
  }
  return 0;
}
