// Printing query rows: an aligned table, CSV (RFC 4180) or JSON lines (CONTRACT.md).
// Thread-safety: free functions.
#pragma once

#include <cstdio>
#include <string>

#include "sql/session.h"

namespace tributary::sql {

enum class OutputFormat { kTable, kCsv, kJson };

// "table", "csv", "json"; false for anything else.
bool ParseOutputFormat(const std::string& name, OutputFormat* out);

// The text of a query result in `format`: CSV starts with a header line; JSON is one object per
// row; the table format draws a box (an empty result still shows the header).
std::string FormatResult(const QueryResult& result, OutputFormat format);

// One value as JSON (numbers, booleans, null, strings; DECIMAL and temporal types as strings).
std::string JsonValue(const Value& v, const DataType& type);

}  // namespace tributary::sql
