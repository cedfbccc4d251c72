// Recursive-descent parser for one SQL statement of the Flink dialect.
// Thread-safety: free function over immutable input.
#pragma once

#include <string_view>

#include "sql/parser/ast.h"
#include "tributary/result.h"

namespace tributary::sql {

// Parses exactly one statement (no ';'). `start` is the position of text[0] in the script, so
// errors ("line 2, column 15: expected ')' but found 'FROM'") point into the whole script.
Result<StatementPtr> ParseStatement(std::string_view text, Pos start = {});

// Parses a standalone expression (tests, defaults).
Result<ExprPtr> ParseExpression(std::string_view text);

}  // namespace tributary::sql
