// tributary ingest: writes Debezium JSON change events (one per line) into a table.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/debezium.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::cli {
namespace {

constexpr const char* kUsage =
    "usage: tributary ingest --warehouse DIR --table db.t --format debezium-json\n"
    "                        [--commit-every N] [FILE | -]\n"
    "Reads one Debezium JSON change event per line from FILE (or stdin) and writes it to the\n"
    "table: op c/r as +I(after), u as -U(before) +U(after), d as -D(before).\n"
    "  --warehouse DIR     warehouse directory (default $TRIBUTARY_WAREHOUSE, else ./warehouse)\n"
    "  --table db.t        the table; it must exist ('t' alone means database 'default')\n"
    "  --format FORMAT     debezium-json (the only format)\n"
    "  --commit-every N    commit after every N change events (default: once, at the end)\n"
    "A malformed line stops the ingest with exit status 1; everything after the last commit is\n"
    "discarded.\n";

struct IngestArgs {
  std::string warehouse;
  std::string table;
  std::string format;
  int64_t commit_every = 0;  // 0: only at the end
  std::string input = "-";
};

// Parses argv (argv[0] is "ingest"). Returns 0 to go on, -1 after --help, else the exit status.
int ParseArgs(int argc, char** argv, IngestArgs* args) {
  bool have_input = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    if (a == "-" || a.rfind("-", 0) != 0) {
      if (have_input) {
        std::fprintf(stderr, "tributary ingest: more than one input ('%s', '%s')\n",
                     args->input.c_str(), a.c_str());
        return 1;
      }
      args->input = a;
      have_input = true;
      continue;
    }
    // --name VALUE or --name=VALUE
    const size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      std::fprintf(stderr, "tributary ingest: %s needs a value\n", name.c_str());
      return 1;
    }
    if (name == "--warehouse") {
      args->warehouse = value;
    } else if (name == "--table") {
      args->table = value;
    } else if (name == "--format") {
      args->format = value;
    } else if (name == "--commit-every") {
      char* end = nullptr;
      long long n = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || n <= 0) {
        std::fprintf(stderr, "tributary ingest: --commit-every needs a positive number, got '%s'\n",
                     value.c_str());
        return 1;
      }
      args->commit_every = n;
    } else {
      std::fprintf(stderr, "tributary ingest: unknown option '%s'\n%s", name.c_str(), kUsage);
      return 1;
    }
  }
  if (args->warehouse.empty()) {
    const char* env = std::getenv("TRIBUTARY_WAREHOUSE");
    args->warehouse = env != nullptr && *env != '\0' ? env : "./warehouse";
  }
  if (args->table.empty()) {
    std::fprintf(stderr, "tributary ingest: --table is required\n%s", kUsage);
    return 1;
  }
  if (args->format.empty()) {
    std::fprintf(stderr, "tributary ingest: --format is required (debezium-json)\n");
    return 1;
  }
  if (args->format != "debezium-json") {
    std::fprintf(stderr, "tributary ingest: unsupported format '%s'; supported: debezium-json\n",
                 args->format.c_str());
    return 1;
  }
  return 0;
}

// Counts and, on a terminal, a progress line on stderr.
class Progress {
 public:
  Progress() : tty_(isatty(STDERR_FILENO) == 1) {}
  void Update(int64_t events, int64_t rows, int64_t commits, bool force = false) {
    if (!tty_ || (!force && events % 1000 != 0)) return;
    std::fprintf(stderr, "\r%lld events, %lld rows, %lld commits", static_cast<long long>(events),
                 static_cast<long long>(rows), static_cast<long long>(commits));
    std::fflush(stderr);
    shown_ = true;
  }
  // Ends the progress line so the next message starts on its own line.
  void Finish() {
    if (shown_) std::fputc('\n', stderr);
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
};

int Fail(Progress* progress, TableWriter* writer, const std::string& message) {
  if (writer != nullptr) writer->Abort();
  progress->Finish();
  std::fprintf(stderr, "tributary ingest: %s\n", message.c_str());
  return 1;
}

}  // namespace

int RunIngestCommand(int argc, char** argv) {
  IngestArgs args;
  int rc = ParseArgs(argc, argv, &args);
  if (rc != 0) return rc < 0 ? 0 : rc;

  Progress progress;
  std::ifstream file;
  std::istream* in = &std::cin;
  if (args.input != "-") {
    file.open(args.input, std::ios::binary);
    if (!file) {
      return Fail(&progress, nullptr, "cannot open '" + args.input + "': " + std::strerror(errno));
    }
    in = &file;
  }

  CatalogOptions catalog_options;
  catalog_options.create_if_missing = false;
  auto catalog = Catalog::Open(args.warehouse, catalog_options);
  if (!catalog.ok()) return Fail(&progress, nullptr, catalog.status().message());
  auto id = Identifier::Parse(args.table, "default");
  if (!id.ok()) return Fail(&progress, nullptr, id.status().message());
  if (!id->system_table.empty()) {
    return Fail(&progress, nullptr, "cannot write into system table '" + args.table + "'");
  }
  auto table = (*catalog)->GetTable(*id);
  if (!table.ok()) return Fail(&progress, nullptr, table.status().message());
  // A long-lived writer: compaction runs in the background between commits, and the end of the
  // input waits for it (as Paimon's writers do).
  WriteOptions write_options;
  write_options.async_compaction = true;
  auto writer_result = (*table)->NewWriter(write_options);
  if (!writer_result.ok()) return Fail(&progress, nullptr, writer_result.status().message());
  std::unique_ptr<TableWriter> writer = std::move(writer_result).value();

  DebeziumDecoder decoder((*table)->schema()->fields);
  std::vector<RowChange> changes;
  std::string line;
  int64_t line_no = 0, events = 0, rows = 0, commits = 0, pending = 0;
  auto commit = [&](bool last) -> Status {
    auto r = last ? writer->CommitAndWaitForCompaction() : writer->Commit();
    if (!r.ok()) return r.status();
    if (r->has_value()) ++commits;
    pending = 0;
    progress.Update(events, rows, commits, /*force=*/true);
    return Status::OK();
  };

  while (std::getline(*in, line)) {
    ++line_no;
    changes.clear();
    Status st = decoder.Decode(line, &changes);
    if (!st.ok()) {
      return Fail(&progress, writer.get(), "line " + std::to_string(line_no) + ": " + st.message());
    }
    if (changes.empty()) continue;
    for (const RowChange& c : changes) {
      st = writer->Write(c.kind, c.row);
      if (!st.ok()) {
        return Fail(&progress, writer.get(),
                    "line " + std::to_string(line_no) + ": " + st.message());
      }
      ++rows;
    }
    ++events;
    ++pending;
    progress.Update(events, rows, commits);
    if (args.commit_every > 0 && pending >= args.commit_every) {
      st = commit(/*last=*/false);
      if (!st.ok()) {
        return Fail(&progress, writer.get(),
                    "commit after line " + std::to_string(line_no) + " failed: " + st.message());
      }
    }
  }
  if (in->bad()) {
    return Fail(&progress, writer.get(),
                "reading line " + std::to_string(line_no + 1) + " failed: " + std::strerror(errno));
  }
  {
    // Also when nothing is pending: compactions still running are waited for and published.
    Status st = commit(/*last=*/true);
    if (!st.ok()) return Fail(&progress, writer.get(), "final commit failed: " + st.message());
  }
  progress.Finish();
  std::fprintf(stderr, "ingested %lld change events (%lld rows) into %s in %lld commits\n",
               static_cast<long long>(events), static_cast<long long>(rows), id->ToString().c_str(),
               static_cast<long long>(commits));
  return 0;
}

}  // namespace tributary::cli
