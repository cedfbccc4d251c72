// Subcommands of the `tributary` binary. Each returns the process exit status.
#pragma once

namespace tributary::cli {

// tributary sql [--warehouse DIR] [--format table|csv|json] [-e SQL] [-f FILE] [--idle-timeout-ms
// N]
int RunSqlCommand(int argc, char** argv);
// tributary ingest --warehouse DIR --table db.t --format debezium-json [--commit-every N] [FILE|-]
int RunIngestCommand(int argc, char** argv);
// tributary serve --warehouse DIR|URI [--listen HOST:PORT] [--data-dir DIR]
int RunServeCommand(int argc, char** argv);

// `tributary --version` (and every command's --version): the version line on stdout.
void PrintVersion();

}  // namespace tributary::cli
