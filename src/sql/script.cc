#include "sql/script.h"

#include "sql/lexer.h"

namespace tributary::sql {

namespace {

void PrintError(const Status& st, const ScriptOptions& options, std::FILE* err) {
  std::string where = options.source_name.empty() ? "" : options.source_name + ": ";
  std::fprintf(err, "error: %s%s\n", where.c_str(), st.message().c_str());
  std::fflush(err);
}

}  // namespace

bool RunScript(Session& session, std::string_view script, const ScriptOptions& options,
               std::FILE* out, std::FILE* err) {
  // Statements before an unterminated string or comment still run, as any statement before the
  // first failing one does; then the error is reported.
  std::vector<StatementText> statements;
  Status split = SplitStatementsPrefix(script, &statements);
  for (const StatementText& st : statements) {
    auto r = session.ExecuteText(st.text, st.start);
    if (!r.ok()) {
      PrintError(r.status(), options, err);
      return false;
    }
    if (r->has_rows) {
      std::string text = FormatResult(r->rows, options.format);
      std::fwrite(text.data(), 1, text.size(), out);
      std::fflush(out);
    }
    if (options.print_messages && !r->message.empty()) {
      std::fprintf(err, "%s\n", r->message.c_str());
      std::fflush(err);
    }
  }
  if (!split.ok()) {
    PrintError(split, options, err);
    return false;
  }
  return true;
}

}  // namespace tributary::sql
