#include "sql/session/script.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>

#include "sql/binder/cast.h"
#include "sql/exec/interrupt.h"
#include "sql/exec/operators.h"
#include "sql/parser/lexer.h"

namespace tributary::sql {

namespace {

void PrintError(const Status& st, const ScriptOptions& options, std::FILE* err) {
  std::string where = options.source_name.empty() ? "" : options.source_name + ": ";
  std::fprintf(err, "error: %s%s\n", where.c_str(), st.message().c_str());
  std::fflush(err);
}

constexpr size_t kPrintRows = 4096;

// A statement whose allocation failed (std::bad_alloc, or a container asked for more than it can
// hold): the process ran out of memory (its ulimit, the machine's) before any operator's memory
// limit stopped the statement. A backstop: grouping, DISTINCT, set operations, joins, sorts and
// windows each stop at their 'sql.*.memory-limit' with an error naming it.
Status OutOfMemory() {
  return Status::Invalid(
      "out of memory: the statement needed more memory than the process could allocate; lower "
      "'sql.aggregate.memory-limit', 'sql.join.memory-limit' or 'sql.sort.memory-limit' below "
      "the memory available (each bounds one operator) so a query stops at a clear limit, or "
      "filter the rows further");
}

// TIMESTAMP_LTZ values (instants) as the session zone's wall-clock time, as Flink shows them.
std::vector<Row> InSessionZone(const std::vector<Field>& fields, std::vector<Row> rows) {
  if (SessionZone() == nullptr) return rows;
  for (size_t c = 0; c < fields.size(); c++) {
    if (!HasLtz(fields[c].type)) continue;
    for (Row& r : rows) r[c] = ToSessionZone(r[c], fields[c].type);
  }
  return rows;
}

// Prints a result's rows: a query's as its operators hand them out, so the output begins while
// the scan is still reading and memory holds one batch (bar ORDER BY, GROUP BY, DISTINCT).
Status PrintRows(StatementResult* r, const ScriptOptions& options, size_t max_column_width,
                 size_t max_rows, bool cut_by_terminal, std::FILE* out) {
  ResultPrinter printer(
      r->rows.fields, options.format,
      [&](std::string_view text) { std::fwrite(text.data(), 1, text.size(), out); }, r->streaming);
  printer.set_max_column_width(max_column_width);
  printer.set_max_rows(max_rows);
  printer.set_rows_cut_by_terminal(cut_by_terminal);
  if (r->cursor) {
    // Ctrl-C ends a streaming query (its rows so far stay printed), not the program.
    std::optional<InterruptScope> interrupt;
    if (r->streaming) interrupt.emplace();
    ColumnBatch batch;
    while (true) {
      auto more = r->cursor->Next(&batch);
      if (!r->streaming && Interrupted()) {
        // Ctrl-C in the shell (it runs statements in an InterruptScope): operators that noticed
        // it stopped early, so what they return now is not the query's result (rows already
        // handed out are: they are printed).
        if (printer.rows() > 0) printer.Finish();
        std::fflush(out);
        return Locate(Status::Invalid("query cancelled (Ctrl-C) after " +
                                      std::to_string(printer.rows()) + " rows were printed"),
                      r->pos);
      }
      if (!more.ok()) {
        std::fflush(out);
        return Locate(more.status(), r->pos);
      }
      if (!*more) break;
      // Rows are made for printing only, a slice of the batch at a time.
      for (size_t begin = 0; begin < batch.num_rows; begin += kPrintRows) {
        printer.Add(InSessionZone(
            r->rows.fields, BatchRows(batch, begin, std::min(batch.num_rows, begin + kPrintRows))));
      }
      if (r->streaming) {
        // A stream's consumer (a pipe, a terminal) sees each change as it arrives; once the
        // rows are written, a consumer id's position moves past them (never before: a failed
        // write, Ctrl-C or a kill leaves it where the undelivered changes are read again).
        if (std::fflush(out) != 0 || std::ferror(out)) {
          return Locate(
              Status::IOError(std::string("writing the rows failed: ") + std::strerror(errno) +
                              " (" + std::to_string(printer.rows()) + " rows were written)"),
              r->pos);
        }
        Status delivered = r->cursor->Checkpoint(std::nullopt);
        if (!delivered.ok()) return Locate(delivered, r->pos);
      }
    }
    r->message = std::to_string(printer.rows()) + (printer.rows() == 1 ? " row" : " rows");
    if (r->streaming) ConsumeInterrupt();  // the Ctrl-C that ended the stream
  } else {
    printer.Add(InSessionZone(r->rows.fields, r->rows.rows));
  }
  printer.Finish();
  std::fflush(out);
  return Status::OK();
}

// A shell command alone in a statement (QUIT, EXIT, HELP; any case), or empty.
std::string ShellCommand(const std::string& text) {
  std::string word;
  for (char c : text) {
    if (c == ';' || c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return word == "QUIT" || word == "EXIT" || word == "HELP" ? word : "";
}

constexpr char kHelp[] =
    "Statements end with ';'. Queries: SELECT ... [JOIN ...] [WHERE ...] [GROUP BY ...]\n"
    "  [ORDER BY ...] [LIMIT n], WITH, UNION/INTERSECT/EXCEPT, subqueries, window functions,\n"
    "  lookup joins (FOR SYSTEM_TIME AS OF), EXPLAIN; SET 'execution.runtime-mode' = 'streaming'\n"
    "  makes a SELECT follow its tables' changes.\n"
    "Writes: INSERT INTO / INSERT OVERWRITE, UPDATE, DELETE, TRUNCATE TABLE,\n"
    "  EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END (all or nothing).\n"
    "Tables: CREATE TABLE [LIKE | AS SELECT], DROP TABLE, ALTER TABLE (SET, RESET, RENAME TO,\n"
    "  ADD / DROP / RENAME / MODIFY COLUMN, ADD / DROP PARTITION), CREATE / DROP TEMPORARY VIEW,\n"
    "  DESCRIBE, SHOW TABLES / COLUMNS / PARTITIONS / CREATE TABLE / FUNCTIONS / DATABASES /\n"
    "  CATALOGS. Session: SET 'key' = 'value', RESET, USE, CREATE CATALOG, USE CATALOG.\n"
    "Procedures: CALL sys.compact, sys.expire_snapshots, sys.expire_changelogs,\n"
    "  sys.remove_orphan_files, sys.create_tag, sys.delete_tag, sys.rollback_to,\n"
    "  sys.create_branch, sys.delete_branch, sys.rename_branch, sys.fast_forward, sys.rescale,\n"
    "  sys.maintain_partitions, sys.expire_partitions.\n"
    "System tables: t$snapshots, t$files, t$options, t$schemas, t$partitions, t$tags,\n"
    "  t$branches, t$audit_log, t$changelog, t$binlog; a branch: t$branch_<name>.\n"
    "QUIT or EXIT ends the shell. docs/sql.md has it all.\n";

}  // namespace

bool RunScript(Session& session, std::string_view script, const ScriptOptions& options,
               std::FILE* out, std::FILE* err) {
  // Statements before an unterminated string or comment still run, as any statement before the
  // first failing one does; then the error is reported.
  std::vector<StatementText> statements;
  Status split = SplitStatementsPrefix(script, &statements);
  for (const StatementText& st : statements) {
    const std::string command = ShellCommand(st.text);
    if (command == "QUIT" || command == "EXIT") return true;  // the rest is not run
    if (command == "HELP") {
      std::fputs(kHelp, out);
      std::fflush(out);
      continue;
    }
    // Casts of TIMESTAMP_LTZ in the session zone, also while a query's rows are pulled below.
    auto execute = [&]() -> Result<StatementResult> {
      try {
        return session.ExecuteText(st.text, st.start);
      } catch (const std::bad_alloc&) {
      } catch (const std::length_error&) {
      }
      return Locate(OutOfMemory(), st.start);
    };
    auto r = execute();
    SessionZoneScope zone(session.time_zone());
    if (Interrupted() && (!r.ok() || !r->has_rows)) {
      // Ctrl-C while a statement ran: it failed or did its work; the rest do not run.
      if (!r.ok()) PrintError(r.status(), options, err);
      std::fprintf(err, "cancelled (Ctrl-C): the statements after it did not run\n");
      return false;
    }
    if (!r.ok()) {
      PrintError(r.status(), options, err);
      return false;
    }
    if (r->has_rows) {
      // 'sql-client.display.max-column-width': cells of the table format cut to it when set
      // (unset: whole cells, where the Flink client cuts at 30).
      size_t max_width = 0, max_rows = 0;
      if (auto w = session.options().find("sql-client.display.max-column-width");
          w != session.options().end()) {
        max_width = static_cast<size_t>(std::max(1LL, std::atoll(w->second.c_str())));
      }
      // 'sql-client.display.max-rows': the table format shows the first rows only.
      // Unset in the shell on a terminal: a batch result shows what fits the terminal.
      bool by_terminal = false;
      if (auto m = session.options().find("sql-client.display.max-rows");
          m != session.options().end()) {
        max_rows = static_cast<size_t>(std::max(1LL, std::atoll(m->second.c_str())));
      } else if (options.terminal_rows > 0 && !r->streaming) {
        max_rows = options.terminal_rows;
        by_terminal = true;
      }
      Status printed = Status::OK();
      bool out_of_memory = false;
      try {
        printed = PrintRows(&*r, options, max_width, max_rows, by_terminal, out);
      } catch (const std::bad_alloc&) {
        out_of_memory = true;
      } catch (const std::length_error&) {
        out_of_memory = true;
      }
      if (out_of_memory) {
        r->cursor.reset();  // what the query held, freed before the message is made
        std::fflush(out);
        printed = Locate(OutOfMemory(), r->pos);
      }
      if (!printed.ok()) {
        PrintError(printed, options, err);
        return false;
      }
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
