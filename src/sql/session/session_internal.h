// What the Session's files (session.cc, session_ddl.cc, session_show.cc,
// session_procedures.cc) share: statement results and quoting. Internal to sql/.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sql/parser/ast.h"
#include "sql/session/session.h"
#include "tributary/options.h"

namespace tributary::sql {

// A result that streams the rows of `op`.
StatementResult Cursor(std::unique_ptr<Operator> op, const Pos& pos);
// A result that is a message ("Table default.t created").
StatementResult Message(std::string m);
// A result of rows held in memory, with "N rows" as its message.
StatementResult Rows(std::vector<Field> fields, std::vector<Row> rows);
Field StringField(const std::string& name, bool nullable = false);
// `name` in backquotes (a backquote doubled), as SHOW CREATE TABLE writes identifiers.
std::string Quote(const std::string& name);
// `s` in single quotes (a quote doubled).
std::string QuoteString(const std::string& s);
// Checks options one by one so an error points at the bad one.
Status CheckOptionList(tributary::OptionScope scope, const OptionList& options,
                       const std::vector<std::string>& columns);
// The table a write statement names (`verb` as in "cannot <verb> system table ..."), opened:
// its name resolved into *rn, a branch hint taken out of *hints (dml.cc).
Result<std::unique_ptr<Table>> OpenWriteTarget(const QueryContext& session,
                                               const QualifiedName& name, OptionList* hints,
                                               ResolvedName* rn, const std::string& verb);

}  // namespace tributary::sql
