// Printing query rows: an aligned table, CSV (RFC 4180) or JSON lines (CONTRACT.md).
// Thread-safety: free functions.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/session/session.h"

namespace tributary::sql {

enum class OutputFormat { kTable, kCsv, kJson };

// "table", "csv", "json"; false for anything else.
bool ParseOutputFormat(const std::string& name, OutputFormat* out);

// The text of a query result in `format`: CSV starts with a header line; JSON is one object per
// row; the table format draws a box (an empty result still shows the header).
std::string FormatResult(const QueryResult& result, OutputFormat format);

// Prints query rows as they arrive. JSON lines and CSV go out at once; the table format sizes
// its columns by the first kTableBlockRows rows (so a short result prints exactly as
// FormatResult) and keeps those widths after, letting a wider cell overflow its column.
// Thread-safety: one thread.
class ResultPrinter {
 public:
  using Sink = std::function<void(std::string_view)>;
  static constexpr size_t kTableBlockRows = 1000;

  // `streaming`: rows never wait; the table format sizes its columns by the first batch.
  ResultPrinter(std::vector<Field> fields, OutputFormat format, Sink sink, bool streaming = false);
  // The table format cuts cells wider than this to it, ending them in "..." (0: no limit;
  // 'sql-client.display.max-column-width'). Set before the first Add.
  void set_max_column_width(size_t width) { max_column_width_ = width; }
  // The table format prints at most this many rows (0: all), then says how many it left out.
  void set_max_rows(size_t rows) { max_rows_ = rows; }
  // The cut is the terminal's height (the shell's default), not the option.
  void set_rows_cut_by_terminal(bool by_terminal) { cut_by_terminal_ = by_terminal; }
  void Add(const std::vector<Row>& rows);
  // After the last rows: the table's closing border (or its header, for no rows).
  void Finish();
  int64_t rows() const { return rows_; }

 private:
  std::string StartTable();

  std::vector<Field> fields_;
  OutputFormat format_;
  Sink sink_;
  int64_t rows_ = 0;
  std::vector<Row> held_;  // table rows before the widths are known
  bool started_ = false;   // the table's header is out
  std::vector<size_t> widths_;
  bool streaming_ = false;
  size_t max_column_width_ = 0;
  size_t max_rows_ = 0;
  bool cut_by_terminal_ = false;
  int64_t hidden_ = 0;  // rows past max_rows_
};

// One value as JSON (numbers, booleans, null, strings; DECIMAL and temporal types as strings).
std::string JsonValue(const Value& v, const DataType& type);

}  // namespace tributary::sql
