// tributary sql: runs SQL from -e, -f, a pipe on stdin, or an interactive shell.
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sql/exec/interrupt.h"
#include "sql/parser/lexer.h"
#include "sql/session/output.h"
#include "sql/session/script.h"
#include "sql/session/session.h"

#if defined(TRIBUTARY_HAVE_LIBEDIT)
#include <editline/readline.h>
#endif

namespace tributary::cli {

namespace {

void PrintSqlUsage(std::FILE* f) {
  std::fprintf(f,
               "usage: tributary sql [--warehouse DIR] [--format table|csv|json]\n"
               "                     [-e 'SQL; SQL; ...'] [-f FILE.sql] [--idle-timeout-ms N]\n"
               "Runs SQL statements separated by ';'. -e and -f may be repeated and run in order.\n"
               "Without -e/-f: an interactive shell when stdin is a terminal, else the\n"
               "statements read from stdin.\n"
               "  --warehouse DIR        warehouse directory (default $TRIBUTARY_WAREHOUSE, else\n"
               "                         ./warehouse); created by the first statement that writes\n"
               "  --format FMT           how query rows print: table (default), csv or json\n"
               "  -e SQL                 run these statements\n"
               "  -f FILE                run the statements in FILE ('-' for stdin)\n"
               "  --idle-timeout-ms N    streaming queries end after N ms without new changes\n"
               "  -q, --quiet            do not print messages (row counts, OK) on stderr\n");
}

struct Source {
  bool is_file = false;
  std::string text;  // SQL or file name
};

bool ReadAll(std::istream& in, std::string* out) {
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return !in.bad();
}

// The rows of a batch result the shell prints when 'sql-client.display.max-rows' is unset: what
// fits the terminal beside the table's borders and the prompt (as DuckDB's shell), measured per
// statement so a resized window counts; 0 (every row) when stdout is not a terminal.
size_t TerminalRows() {
  winsize ws{};
  if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0) {
    return 0;
  }
  return static_cast<size_t>(std::max(10, static_cast<int>(ws.ws_row) - 8));
}

#if defined(TRIBUTARY_HAVE_LIBEDIT)
// One byte of the terminal, waiting in short polls so that a Ctrl-C is seen even when it lands
// after the prompt is printed and before the read begins (the signal then interrupts no read,
// and the line would wait for the next key). -1 on Ctrl-C or end of input.
int ReadByte(int fd) {
  while (true) {
    if (sql::Interrupted()) return -1;
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 50);
    if (ready < 0 && errno != EINTR) return -1;
    if (ready <= 0) continue;
    unsigned char c = 0;
    const ssize_t n = ::read(fd, &c, 1);
    if (n == 1) return c;
    if (n == 0 || errno != EINTR) return -1;
  }
}

// libedit's character source (it takes what this returns as one character): a UTF-8 sequence
// is decoded here into its code point, as libedit's own reader does.
int ReadKey(FILE* in) {
  const int fd = fileno(in);
  const int lead = ReadByte(fd);
  if (lead < 0x80 || MB_CUR_MAX == 1) return lead;      // ASCII, a single-byte locale's byte, or -1
  constexpr int kReplacement = 0xFFFD;                  // what a broken sequence reads as
  if (lead < 0xC0 || lead > 0xF4) return kReplacement;  // a stray continuation or invalid byte
  int more = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
  int code = lead & (0x3F >> more);
  for (; more > 0; --more) {
    const int next = ReadByte(fd);
    if (next < 0) return -1;
    if ((next & 0xC0) != 0x80) return kReplacement;
    code = (code << 6) | (next & 0x3F);
  }
  return code;
}
#endif

int RunInteractive(sql::Session& session, const sql::ScriptOptions& options) {
  std::fprintf(stderr,
               "Tributary SQL shell. End statements with ';'. Type 'quit' or Ctrl-D to exit.\n");
  std::string buffer;
#if defined(TRIBUTARY_HAVE_LIBEDIT)
  // Keys and the line are characters of the terminal's encoding (LC_CTYPE only: numbers still
  // print with '.').
  std::setlocale(LC_CTYPE, "");
  rl_getc_function = ReadKey;  // before the first call into libedit, which reads it once
  std::string history;
  if (const char* home = std::getenv("HOME")) history = std::string(home) + "/.tributary_history";
  if (!history.empty()) read_history(history.c_str());
#endif
  // Ctrl-C at the prompt drops the statement being typed and keeps the shell (as psql and the
  // Flink SQL client); while a statement runs it cancels the statement (RunScript).
  sql::InterruptScope shell_interrupt;
  while (true) {
    const char* prompt = buffer.empty() ? "tributary> " : "        -> ";
    std::string line;
    sql::ConsumeInterrupt();
#if defined(TRIBUTARY_HAVE_LIBEDIT)
    char* raw = readline(prompt);
    const bool got = raw != nullptr;
    if (got) {
      line = raw;
      std::free(raw);
    }
#else
    std::fputs(prompt, stdout);
    std::fflush(stdout);
    const bool got = static_cast<bool>(std::getline(std::cin, line));
    if (!got && sql::Interrupted()) std::cin.clear();
#endif
    if (sql::Interrupted()) {
      // The line (and any statement begun before it) is dropped; a fresh prompt follows.
      std::fputs("^C\n", stdout);
      std::fflush(stdout);
      buffer.clear();
      continue;
    }
    if (!got) break;
    if (buffer.empty()) {
      std::string trimmed = line;
      while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == ';')) {
        trimmed.pop_back();
      }
      std::string lower = trimmed;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "quit" || lower == "exit" || lower == "\\q") break;
      // Nothing but whitespace and comments: no statement begins, no continuation prompt.
      if (trimmed.empty() || sql::IsBlankSql(line)) continue;
    }
    buffer += line;
    buffer += "\n";
    if (!sql::EndsWithTerminator(buffer)) continue;
#if defined(TRIBUTARY_HAVE_LIBEDIT)
    std::string entry = buffer.substr(0, buffer.size() - 1);
    add_history(entry.c_str());
    if (!history.empty()) write_history(history.c_str());
#endif
    {
      // Ctrl-C cancels the running statement, not the shell and its USE / SET state.
      sql::InterruptScope interrupt;
      sql::ScriptOptions run = options;
      run.terminal_rows = TerminalRows();
      sql::RunScript(session, buffer, run, stdout, stderr);
    }
    buffer.clear();
  }
  std::fputs("\n", stderr);
  return 0;
}

}  // namespace

int RunSqlCommand(int argc, char** argv) {
  std::string warehouse;
  if (const char* env = std::getenv("TRIBUTARY_WAREHOUSE"); env && *env) warehouse = env;
  if (warehouse.empty()) warehouse = "./warehouse";
  sql::ScriptOptions options;
  std::vector<Source> sources;
  std::optional<std::chrono::milliseconds> idle_timeout;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
      has_inline = true;
    }
    auto next = [&](const char* name) -> bool {
      if (has_inline) return true;
      if (i + 1 >= argc) {
        std::fprintf(stderr, "tributary sql: %s needs a value\n", name);
        return false;
      }
      value = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      PrintSqlUsage(stdout);
      return 0;
    } else if (arg == "--version") {
      PrintVersion();
      return 0;
    } else if (arg == "--warehouse") {
      if (!next("--warehouse")) return 1;
      warehouse = value;
    } else if (arg == "--format") {
      if (!next("--format")) return 1;
      if (!sql::ParseOutputFormat(value, &options.format)) {
        std::fprintf(stderr, "tributary sql: unknown --format '%s' (use table, csv or json)\n",
                     value.c_str());
        return 1;
      }
    } else if (arg == "-e" || arg == "--execute") {
      if (!next("-e")) return 1;
      sources.push_back({false, value});
    } else if (arg == "-f" || arg == "--file") {
      if (!next("-f")) return 1;
      sources.push_back({true, value});
    } else if (arg == "--idle-timeout-ms") {
      if (!next("--idle-timeout-ms")) return 1;
      char* end = nullptr;
      long long ms = std::strtoll(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || ms < 0) {
        std::fprintf(stderr, "tributary sql: --idle-timeout-ms needs a non-negative number\n");
        return 1;
      }
      idle_timeout = std::chrono::milliseconds(ms);
    } else if (arg == "-q" || arg == "--quiet") {
      options.print_messages = false;
    } else {
      std::fprintf(stderr, "tributary sql: unknown option '%s'\n", argv[i]);
      PrintSqlUsage(stderr);
      return 1;
    }
  }
  if (warehouse.empty()) {
    std::fprintf(stderr, "tributary sql: --warehouse must not be empty\n");
    return 1;
  }
  auto session = sql::Session::Open(warehouse);
  if (!session.ok()) {
    std::fprintf(stderr, "error: cannot open warehouse '%s': %s\n", warehouse.c_str(),
                 session.status().message().c_str());
    return 1;
  }
  (*session)->set_stream_idle_timeout(idle_timeout);
  if (sources.empty()) {
    if (isatty(STDIN_FILENO)) return RunInteractive(**session, options);
    std::string script;
    if (!ReadAll(std::cin, &script)) {
      std::fprintf(stderr, "error: cannot read stdin\n");
      return 1;
    }
    return sql::RunScript(**session, script, options, stdout, stderr) ? 0 : 1;
  }
  for (const Source& src : sources) {
    std::string script = src.text;
    if (src.is_file) {
      if (src.text == "-") {
        ReadAll(std::cin, &script);
      } else {
        std::ifstream in(src.text, std::ios::binary);
        if (!in || !ReadAll(in, &script)) {
          std::fprintf(stderr, "error: cannot read '%s': %s\n", src.text.c_str(),
                       std::strerror(errno));
          return 1;
        }
      }
    }
    options.source_name = src.is_file && src.text != "-" ? src.text : "";
    if (!sql::RunScript(**session, script, options, stdout, stderr)) return 1;
  }
  return 0;
}

}  // namespace tributary::cli
