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

namespace tributary::server {

struct CopyFormat {
  bool csv = false;
  char delimiter = '\t';          // ',' for CSV
  std::string null_text = "\\N";  // "" (an unquoted empty field) for CSV
  bool header = false;            // CSV: the first line names the columns (skipped)
};

// COPY t [(a, b)] FROM STDIN [options] | COPY t [(a, b)] TO STDOUT [options] |
// COPY (SELECT ...) TO STDOUT [options]; options: [WITH] (FORMAT text|csv, DELIMITER 'c',
// NULL 's', HEADER [true|false]) or the old CSV [HEADER] / DELIMITER [AS] 'c' / NULL [AS] 's'.
struct CopyStatement {
  bool from_stdin = true;
  std::string table;                 // as written (db.t or t); empty for a query
  std::vector<std::string> columns;  // empty: every column
  std::string query;                 // COPY (query) TO STDOUT
  CopyFormat format;
};
Result<CopyStatement> ParseCopy(std::string_view text);

// One row of a COPY FROM: its fields (nullopt: NULL) and its line number (1-based).
struct CopyRow {
  int64_t line = 0;
  std::vector<std::optional<std::string>> fields;
};

// Splits CopyData bytes into rows as they arrive (a row may span messages; a CSV field may span
// lines). Errors name the line.
class CopyDecoder {
 public:
  explicit CopyDecoder(CopyFormat format) : format_(std::move(format)) {}
  // Appends the complete rows of `data` (with what was left before) to *rows.
  Status Feed(std::string_view data, std::vector<CopyRow>* rows);
  // At CopyDone: the last row if its line did not end.
  Status Finish(std::vector<CopyRow>* rows);
  bool ended() const { return ended_; }  // the text format's end marker "\." was read

 private:
  Status Line(std::string_view line, std::vector<CopyRow>* rows);
  Status TextRow(std::string_view line, CopyRow* row) const;
  Status CsvRecord(std::string_view record, CopyRow* row) const;
  CopyFormat format_;
  std::string pending_;  // bytes of a row not yet ended
  int64_t line_ = 0;     // lines read
  bool ended_ = false;
};

// One row as a COPY TO line (ending in '\n').
std::string EncodeCopyRow(const std::vector<std::optional<std::string>>& cells,
                          const CopyFormat& format);

}  // namespace tributary::server
