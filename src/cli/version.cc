// `tributary --version`: the version is set in CMakeLists.txt (TRIBUTARY_VERSION).
#include <cstdio>

#include "cli/commands.h"

namespace tributary::cli {

void PrintVersion() {
  std::printf("tributary %s (Apache Paimon table format; Debezium JSON ingest)\n",
              TRIBUTARY_VERSION);
}

}  // namespace tributary::cli
