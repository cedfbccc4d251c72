// What the server says of a statement: its SQLSTATE when it failed, its CommandComplete tag
// when it succeeded, and the leading words both are read from (docs/server.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tributary/status.h"

namespace tributary::server {

// The SQLSTATE of a failed statement: by what the message says where the status code is too
// coarse (bad input is one code here, several classes there).
std::string SqlState(const Status& st);

// The first `n` words of a statement, upper-cased, past leading comments (none when it starts
// with `(`).
std::vector<std::string> LeadingWords(const std::string& text, size_t n);
// Whether `text` is INSERT INTO name VALUES ... with no hint, no column list (which makes a
// primary-key table's write a partial-column one, committed otherwise) and no query: the write
// the hot tier takes without a barrier. Tokens, so comments and strings are no trouble.
bool IsPlainInsertValues(const std::string& text);

// PostgreSQL's CommandComplete tag of a statement that returned no rows, from its text and the
// message the session gave (the rows a write reports also count in SHOW STATS' rows_written).
std::string CommandTag(const std::string& text, const std::string& message);

}  // namespace tributary::server
