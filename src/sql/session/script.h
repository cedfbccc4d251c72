// Running a script: split into statements, parse and execute each in order, print query rows on
// `out` and messages and errors on `err`.
// Thread-safety: one thread at a time (uses the session).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "sql/session/output.h"
#include "sql/session/session.h"

namespace tributary::sql {

struct ScriptOptions {
  OutputFormat format = OutputFormat::kTable;
  bool print_messages = true;  // "Inserted 2 rows", "3 rows" on `err`
  std::string source_name;     // a file name to prefix errors with; empty for -e and stdin
  // The interactive shell on a terminal: a batch result in the table format shows at most this
  // many rows when 'sql-client.display.max-rows' is unset (0: every row).
  size_t terminal_rows = 0;
};

// Runs every statement of `script`; stops at the first failing one, prints "error: <message>"
// (with the line and column in the script) on `err` and returns false. The shell commands QUIT
// and EXIT (any case) end the script there (true); HELP prints a summary on `out`.
bool RunScript(Session& session, std::string_view script, const ScriptOptions& options,
               std::FILE* out, std::FILE* err);

}  // namespace tributary::sql
