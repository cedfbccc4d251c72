// PostgreSQL's COPY through `tributary serve` (docs/server.md): the statement's few forms, and
// its rows in the text and CSV formats, decoded from and encoded to the bytes of CopyData
// messages. No I/O and no table access here (server.cc writes and reads the table).
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::sql {
class Session;
}

namespace tributary::server {

class Wire;

struct CopyFormat {
  bool binary = false;  // PostgreSQL's binary COPY format (a signature, then typed tuples)
  bool csv = false;
  char delimiter = '\t';          // ',' for CSV
  std::string null_text = "\\N";  // "" (an unquoted empty field) for CSV
  bool header = false;            // CSV: the first line names the columns (skipped)
};

// COPY t [(a, b)] FROM STDIN [options] | COPY t [(a, b)] TO STDOUT [options] |
// COPY (SELECT ...) TO STDOUT [options]; options: [WITH] (FORMAT text|csv|binary, DELIMITER 'c',
// NULL 's', HEADER [true|false]) or the old BINARY / CSV [HEADER] / DELIMITER [AS] 'c' /
// NULL [AS] 's' (the binary format takes none of the others).
struct CopyStatement {
  bool from_stdin = true;
  std::string table;                 // as written (db.t, t; "t" backquoted); empty for a query
  std::vector<std::string> columns;  // their names, unquoted; empty: every column
  std::string query;                 // COPY (query) TO STDOUT
  CopyFormat format;
};
Result<CopyStatement> ParseCopy(std::string_view text);

// One row of a COPY FROM: its fields (nullopt: NULL; in the binary format each field's bytes)
// and its line number (1-based; the tuple's number in the binary format).
struct CopyRow {
  int64_t line = 0;
  std::vector<std::optional<std::string>> fields;
};

// Splits CopyData bytes into rows as they arrive (a row may span messages; a CSV field may span
// lines; the binary format's signature, header extension, tuples and trailer). Errors name the
// line.
class CopyDecoder {
 public:
  explicit CopyDecoder(CopyFormat format) : format_(std::move(format)) {}
  // Appends the complete rows of `data` (with what was left before) to *rows.
  Status Feed(std::string_view data, std::vector<CopyRow>* rows);
  // At CopyDone: the last row if its line did not end.
  Status Finish(std::vector<CopyRow>* rows);
  bool ended() const { return ended_; }  // the end marker "\." or the binary trailer was read

 private:
  Status Binary(std::vector<CopyRow>* rows);
  Status Line(std::string_view line, std::vector<CopyRow>* rows);
  Status TextRow(std::string_view line, CopyRow* row) const;
  Status CsvRecord(std::string_view record, CopyRow* row) const;
  CopyFormat format_;
  std::string pending_;  // bytes of a row not yet ended
  int64_t line_ = 0;     // lines read
  bool ended_ = false;
  bool header_read_ = false;  // binary: the signature and header extension
};

// One row as a COPY TO line (ending in '\n'); in the binary format `cells` are each value's
// binary form (pg_binary.h BinaryOf) and the tuple is that format's.
std::string EncodeCopyRow(const std::vector<std::optional<std::string>>& cells,
                          const CopyFormat& format);
// What the binary format has before the first tuple (its signature, no flags, no extension)
// and after the last (its trailer).
std::string CopyBinaryHeader();
std::string CopyBinaryTrailer();

// The table row of COPY FROM row `r`, its fields going to columns `target` of `fields` (the
// others NULL): a text field cast as a string literal is, a binary one read as its column's
// type's binary form (pg_binary.h). Errors name the line and the column.
Result<Row> CopyRowToTable(CopyRow&& r, const std::vector<int>& target,
                           const std::vector<Field>& fields, const CopyFormat& format);

// The query COPY ... TO STDOUT runs: its own `(query)`, else SELECT of its columns (every one
// when none is listed) from its table.
std::string CopyOutQuery(const CopyStatement& copy);

// COPY ... TO STDOUT: runs CopyOutQuery(copy) in `session` and sends its rows to the client as
// CopyData in the statement's format (the binary header with the first tuple, as PostgreSQL
// sends it), then CopyDone and CommandComplete (`COPY n`); a batch at a time.
Status CopyOut(const CopyStatement& copy, sql::Session* session, Wire* wire);

// `v`'s text (a column of `t`) as the server writes it: TIMESTAMP_LTZ in the session's zone with
// its offset from UTC, as PostgreSQL writes timestamptz (`2024-01-01 08:00:00+08`: drivers read
// the instant from it); nested values holding one in the session's zone; nullopt for NULL.
// REQUIRES: a SessionZoneScope (sql/binder/cast.h).
std::optional<std::string> SessionZoneText(const Value& v, const DataType& t);

}  // namespace tributary::server
