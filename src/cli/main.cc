// The `tributary` binary: dispatches to a subcommand.
#include <cstdio>
#include <cstring>

#include "cli/commands.h"

namespace {
void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "usage: tributary <command> [options]\n"
               "commands:\n"
               "  sql      run SQL statements (-e, -f, stdin, or an interactive shell)\n"
               "  ingest   write Debezium JSON change events into a table\n"
               "  serve    serve the warehouse over the PostgreSQL protocol\n"
               "Run 'tributary <command> --help' for its options.\n");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 1;
  }
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    PrintUsage(stdout);
    return 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    tributary::cli::PrintVersion();
    return 0;
  }
  // argv[1] is the subcommand; each sees its own options from argv[2].
  if (std::strcmp(argv[1], "sql") == 0) return tributary::cli::RunSqlCommand(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "ingest") == 0) {
    return tributary::cli::RunIngestCommand(argc - 1, argv + 1);
  }
  if (std::strcmp(argv[1], "serve") == 0) {
    return tributary::cli::RunServeCommand(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "tributary: unknown command '%s'\n", argv[1]);
  PrintUsage(stderr);
  return 1;
}
