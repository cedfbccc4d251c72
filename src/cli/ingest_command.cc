// tributary ingest: writes Debezium JSON change events (one per line) into a table.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/debezium.h"
#include "table/auto_partition.h"
#include "table/partition_expire.h"
#include "tributary/catalog.h"
#include "tributary/table.h"
#include "tributary/table_writer.h"

namespace tributary::cli {
namespace {

constexpr const char* kUsage =
    "usage: tributary ingest --warehouse DIR --table db.t --format debezium-json\n"
    "                        [--commit-every N] [--commit-interval-ms N] [--ignore-parse-errors]\n"
    "                        [--strict] [--max-line-bytes N] [FILE | -]\n"
    "Reads one Debezium JSON change event per line from FILE (or stdin) and writes it to the\n"
    "table: op c/r as +I(after), u as -U(before) +U(after), d as -D(before).\n"
    "  --warehouse DIR          warehouse directory (default $TRIBUTARY_WAREHOUSE, else "
    "./warehouse)\n"
    "  --table db.t             the table; it must exist ('t' alone means database 'default')\n"
    "  --format FORMAT          debezium-json (the only format)\n"
    "  --commit-every N         commit after every N change events (default: once, at the end)\n"
    "  --commit-interval-ms N   also commit every N milliseconds, also while the input is idle\n"
    "  --ignore-parse-errors    skip (and count) malformed lines instead of stopping\n"
    "  --strict                 a field the table lacks is an error (default: ignored, as Flink)\n"
    "  --max-line-bytes N       a longer line is malformed, read past without being held\n"
    "                           (default 67108864, 64 MiB)\n"
    "A malformed line stops the ingest with exit status 1, saying what was committed before it;\n"
    "everything after the last commit is discarded. On SIGINT or SIGTERM it commits what it has\n"
    "read and exits.\n";

struct IngestArgs {
  std::string warehouse;
  std::string table;
  std::string format;
  int64_t commit_every = 0;        // 0: only at the end
  int64_t commit_interval_ms = 0;  // 0: no time-based commit
  bool ignore_parse_errors = false;
  bool strict = false;
  int64_t max_line_bytes = int64_t{64} << 20;
  std::string input = "-";
};

// A positive integer flag value, or an error message.
bool PositiveFlag(const std::string& name, const std::string& value, int64_t* out) {
  char* end = nullptr;
  long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n <= 0) {
    std::fprintf(stderr, "tributary ingest: %s needs a positive number, got '%s'\n", name.c_str(),
                 value.c_str());
    return false;
  }
  *out = n;
  return true;
}

// Parses argv (argv[0] is "ingest"). Returns 0 to go on, -1 after --help, else the exit status.
int ParseArgs(int argc, char** argv, IngestArgs* args) {
  bool have_input = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    if (a == "--version") {
      PrintVersion();
      return -1;
    }
    if (a == "--ignore-parse-errors") {
      args->ignore_parse_errors = true;
      continue;
    }
    if (a == "--strict") {
      args->strict = true;
      continue;
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
      if (!PositiveFlag(name, value, &args->commit_every)) return 1;
    } else if (name == "--commit-interval-ms") {
      if (!PositiveFlag(name, value, &args->commit_interval_ms)) return 1;
    } else if (name == "--max-line-bytes") {
      if (!PositiveFlag(name, value, &args->max_line_bytes)) return 1;
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

// The signal that asked the ingest to stop (SIGINT, SIGTERM), or 0.
volatile std::sig_atomic_t g_stop_signal = 0;

void OnStopSignal(int sig) { g_stop_signal = sig; }

// Installs the handlers (no SA_RESTART: a blocked read returns, so the loop sees the flag) for
// the ingest's lifetime, and restores the previous ones after.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Lines of a file descriptor, waiting at most a given time for more input (so a time-based
// commit or a stop signal is not held up by an idle pipe). A line longer than the maximum is
// never held whole: its bytes are dropped as they arrive and it is returned as kTooLong.
class LineReader {
 public:
  LineReader(int fd, size_t max_line_bytes) : fd_(fd), max_(max_line_bytes) {}
  enum class Got { kLine, kTooLong, kTimeout, kEnd, kError };
  // `timeout_ms` < 0: wait as long as it takes (a signal still interrupts it: kTimeout).
  // kTooLong: *too_long_bytes is the line's length (its newline excluded).
  Got Next(std::string* line, int timeout_ms, uint64_t* too_long_bytes) {
    while (true) {
      const size_t nl = buf_.find('\n', pos_);
      if (nl != std::string::npos) {
        if (skipping_) {
          *too_long_bytes = skipped_ + (nl - pos_);
          skipping_ = false;
          pos_ = nl + 1;
          return Got::kTooLong;
        }
        if (nl - pos_ > max_) {
          *too_long_bytes = nl - pos_;
          pos_ = nl + 1;
          return Got::kTooLong;
        }
        line->assign(buf_, pos_, nl - pos_);
        pos_ = nl + 1;
        return Got::kLine;
      }
      if (!skipping_ && buf_.size() - pos_ > max_) {
        skipping_ = true;  // no newline within the maximum: drop what is held and what follows
        skipped_ = 0;
      }
      if (skipping_) {
        skipped_ += buf_.size() - pos_;
        buf_.clear();
        pos_ = 0;
      }
      if (eof_) {
        if (skipping_) {
          skipping_ = false;
          *too_long_bytes = skipped_;
          return Got::kTooLong;
        }
        if (pos_ >= buf_.size()) return Got::kEnd;
        line->assign(buf_, pos_, std::string::npos);  // the last line, without a newline
        pos_ = buf_.size();
        return Got::kLine;
      }
      if (pos_ > 0) {
        buf_.erase(0, pos_);
        pos_ = 0;
      }
      struct pollfd p {
        fd_, POLLIN, 0
      };
      const int ready = ::poll(&p, 1, timeout_ms);
      if (ready == 0) return Got::kTimeout;
      if (ready < 0) {
        if (errno == EINTR) return Got::kTimeout;
        return Got::kError;
      }
      char chunk[1 << 16];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) return Got::kTimeout;
        return Got::kError;
      }
      if (n == 0) {
        eof_ = true;
        continue;
      }
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  size_t max_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
  bool skipping_ = false;  // inside a line longer than max_
  uint64_t skipped_ = 0;   // its bytes dropped so far
};

using Clock = std::chrono::steady_clock;

// Counts and, on a terminal, a progress line on stderr (events, rate, commits, the last line
// committed), refreshed at most every 200 ms.
class Progress {
 public:
  Progress() : tty_(isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}
  void Update(int64_t events, int64_t rows, int64_t commits, int64_t committed_line,
              bool force = false) {
    if (!tty_) return;
    const auto now = Clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr,
                 "\r%lld events, %lld rows, %.0f events/s, %lld commits (through line %lld)\033[K",
                 static_cast<long long>(events), static_cast<long long>(rows),
                 secs > 0 ? static_cast<double>(events) / secs : 0.0,
                 static_cast<long long>(commits), static_cast<long long>(committed_line));
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
  Clock::time_point start_;
  Clock::time_point last_{};
};

int Fail(Progress* progress, TableWriter* writer, const std::string& message) {
  if (writer != nullptr) writer->Abort();
  progress->Finish();
  std::fprintf(stderr, "tributary ingest: %s\n", message.c_str());
  return 1;
}

// The table `args` names, in its warehouse (which must exist), opened through `*catalog`.
Result<std::unique_ptr<Table>> OpenIngestTable(const IngestArgs& args,
                                               std::unique_ptr<Catalog>* catalog) {
  CatalogOptions catalog_options;
  catalog_options.create_if_missing = false;
  TRIB_ASSIGN_OR_RETURN(*catalog, Catalog::Open(args.warehouse, catalog_options));
  TRIB_ASSIGN_OR_RETURN(Identifier id, Identifier::Parse(args.table, "default"));
  if (!id.system_table.empty()) {
    return Status::Invalid("cannot write into system table '" + args.table + "'");
  }
  return (*catalog)->GetTable(id);
}

}  // namespace

int RunIngestCommand(int argc, char** argv) {
  IngestArgs args;
  int rc = ParseArgs(argc, argv, &args);
  if (rc != 0) return rc < 0 ? 0 : rc;

  Progress progress;
  int fd = STDIN_FILENO;
  int owned_fd = -1;
  if (args.input != "-") {
    owned_fd = ::open(args.input.c_str(), O_RDONLY | O_CLOEXEC);
    if (owned_fd < 0) {
      return Fail(&progress, nullptr, "cannot open '" + args.input + "': " + std::strerror(errno));
    }
    fd = owned_fd;
  }
  struct CloseFd {
    int fd;
    ~CloseFd() {
      if (fd >= 0) ::close(fd);
    }
  } close_fd{owned_fd};

  std::unique_ptr<Catalog> catalog;
  auto table = OpenIngestTable(args, &catalog);
  if (!table.ok()) return Fail(&progress, nullptr, table.status().message());
  // A long-lived writer: compaction runs in the background between commits, and the end of the
  // input waits for it (as Paimon's writers do).
  WriteOptions write_options;
  write_options.async_compaction = true;
  auto writer_result = (*table)->NewWriter(write_options);
  if (!writer_result.ok()) return Fail(&progress, nullptr, writer_result.status().message());
  std::unique_ptr<TableWriter> writer = std::move(writer_result).value();

  DebeziumDecoder decoder((*table)->schema()->fields, args.strict);
  std::vector<RowChange> changes;
  std::string line;
  int64_t line_no = 0, events = 0, rows = 0, commits = 0, pending = 0;
  int64_t committed_line = 0;  // every line up to it is committed
  std::optional<int64_t> last_snapshot;
  int64_t skipped = 0;
  std::string first_skipped;
  auto last_commit = Clock::now();
  // The table's automatic partition rule (none: nothing to maintain) and the time unit they
  // were last maintained in.
  const auto rule_read = table::AutoPartitionRuleOf(*(*table)->schema());
  const std::optional<table::AutoPartitionRule> auto_rule =
      rule_read.ok() ? *rule_read : std::nullopt;
  std::string maintained_unit;
  // Paimon's partition expiration: checked at the first commit, then once per
  // 'partition.expiration-check-interval' (0: every commit).
  const auto expire_read = table::PartitionExpireRuleOf(*(*table)->schema());
  const std::optional<table::PartitionExpireRule> expire_rule =
      expire_read.ok() ? *expire_read : std::nullopt;
  std::optional<int64_t> expire_checked;
  auto commit = [&](bool last) -> Status {
    auto r = last ? writer->CommitAndWaitForCompaction() : writer->Commit();
    if (!r.ok()) return r.status();
    for (const std::string& w : writer->warnings()) {
      progress.Finish();
      std::fprintf(stderr, "warning: %s\n", w.c_str());
    }
    if (r->has_value()) {
      ++commits;
      last_snapshot = **r;
    }
    pending = 0;
    committed_line = line_no;
    last_commit = Clock::now();
    // A table with automatic partitions keeps them up to date whenever it is written (a
    // failure is a warning: the lines are committed). Between two commits of the same time unit
    // there is nothing new to create or drop, so a long ingest does it once per unit.
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    std::string unit;
    if (auto_rule) {
      auto v = table::AutoPartitionValue(*auto_rule, now, 0);
      unit = v.ok() ? *v : "";
    }
    if (auto_rule && (unit.empty() || unit != maintained_unit)) {
      auto maintained = table::MaintainAutoPartitions(**table, now);
      if (!maintained.ok()) {
        std::fprintf(stderr, "warning: maintaining the automatic partitions failed: %s\n",
                     maintained.status().ToString().c_str());
      } else {
        maintained_unit = unit;
      }
    }
    if (expire_rule &&
        (!expire_checked || now - *expire_checked >= expire_rule->check_interval_ms)) {
      auto expired = table::ExpirePartitions(**table, *expire_rule, now);
      if (!expired.ok()) {
        std::fprintf(stderr, "warning: expiring partitions failed: %s\n",
                     expired.status().ToString().c_str());
      }
      expire_checked = now;
    }
    progress.Update(events, rows, commits, committed_line, /*force=*/true);
    return Status::OK();
  };
  // What a failure leaves: the lines committed before it.
  auto committed_before = [&]() -> std::string {
    if (committed_line == 0 || !last_snapshot) return "nothing was committed";
    return "lines 1-" + std::to_string(committed_line) + " were committed (snapshot " +
           std::to_string(*last_snapshot) + "); nothing after line " +
           std::to_string(committed_line) + " was written";
  };

  StopSignals signals;
  LineReader reader(fd, static_cast<size_t>(args.max_line_bytes));
  uint64_t too_long_bytes = 0;
  while (g_stop_signal == 0) {
    int timeout = -1;
    if (args.commit_interval_ms > 0) {
      const auto due = last_commit + std::chrono::milliseconds(args.commit_interval_ms);
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(due - Clock::now());
      timeout = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    const LineReader::Got got = reader.Next(&line, timeout, &too_long_bytes);
    if (got == LineReader::Got::kEnd) break;
    if (got == LineReader::Got::kTooLong) {
      ++line_no;
      const std::string what = "line " + std::to_string(line_no) + ": the line is " +
                               std::to_string(too_long_bytes) + " bytes, more than " +
                               "--max-line-bytes (" + std::to_string(args.max_line_bytes) + ")";
      if (!args.ignore_parse_errors) {
        return Fail(&progress, writer.get(), what + "; " + committed_before());
      }
      if (skipped++ == 0) first_skipped = what;
      continue;
    }
    if (got == LineReader::Got::kError) {
      return Fail(&progress, writer.get(),
                  "reading line " + std::to_string(line_no + 1) +
                      " failed: " + std::strerror(errno) + "; " + committed_before());
    }
    if (got == LineReader::Got::kLine) {
      ++line_no;
      changes.clear();
      Status st = decoder.Decode(line, &changes);
      if (!st.ok()) {
        const std::string what = "line " + std::to_string(line_no) + ": " + st.message();
        if (!args.ignore_parse_errors) {
          return Fail(&progress, writer.get(), what + "; " + committed_before());
        }
        if (skipped++ == 0) first_skipped = what;
        continue;
      }
      for (const RowChange& c : changes) {
        st = writer->Write(c.kind, c.row);
        if (!st.ok()) {
          return Fail(
              &progress, writer.get(),
              "line " + std::to_string(line_no) + ": " + st.message() + "; " + committed_before());
        }
        ++rows;
      }
      if (!changes.empty()) {
        ++events;
        ++pending;
      }
      progress.Update(events, rows, commits, committed_line);
    }
    const bool count_due = args.commit_every > 0 && pending >= args.commit_every;
    const bool time_due =
        args.commit_interval_ms > 0 && pending > 0 &&
        Clock::now() - last_commit >= std::chrono::milliseconds(args.commit_interval_ms);
    if (count_due || time_due) {
      Status st = commit(/*last=*/false);
      if (!st.ok()) {
        return Fail(&progress, writer.get(),
                    "commit after line " + std::to_string(line_no) + " failed: " + st.message() +
                        "; " + committed_before());
      }
    } else if (got == LineReader::Got::kTimeout && args.commit_interval_ms > 0 && pending == 0) {
      last_commit = Clock::now();  // nothing pending: the next interval starts now
    }
  }
  {
    // Also when nothing is pending: compactions still running are waited for and published.
    Status st = commit(/*last=*/true);
    if (!st.ok()) {
      return Fail(&progress, writer.get(),
                  "final commit failed: " + st.message() + "; " + committed_before());
    }
  }
  progress.Finish();
  if (g_stop_signal != 0) {
    std::fprintf(stderr, "stopped by %s: ", g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
  }
  std::fprintf(stderr, "ingested %lld change events (%lld rows) into %s in %lld commits\n",
               static_cast<long long>(events), static_cast<long long>(rows),
               (*table)->identifier().ToString().c_str(), static_cast<long long>(commits));
  if (skipped > 0) {
    std::fprintf(stderr, "skipped %lld malformed line(s) (the first: %s)\n",
                 static_cast<long long>(skipped), first_skipped.c_str());
  }
  return 0;
}

}  // namespace tributary::cli
