// Lexer for the Flink SQL dialect, and the splitter that cuts a script into statements.
// Thread-safety: free functions over immutable input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary::sql {

// A position in the whole script, 1-based, as error messages print it.
struct Pos {
  int line = 1;
  int column = 1;
};

// "line 2, column 15: <message>".
std::string PosPrefix(const Pos& pos);
Status ErrorAt(const Pos& pos, const std::string& message);
// `st` with the position `pos` in front, unless its message has one already.
Status Locate(const Status& st, const Pos& pos);
Status NotSupportedAt(const Pos& pos, const std::string& message);

enum class TokenType {
  kWord,              // an unquoted identifier or keyword: letters, digits, '_' and '$'
  kQuotedIdentifier,  // `name` (text holds the name with `` unescaped)
  kString,            // 'text' (text holds the value with '' unescaped)
  kInteger,           // 42
  kDecimal,           // 4.2, .5, 3.
  kFloat,             // 1e10, 2.5E-3
  kSymbol,            // ( ) , ; . + - * / % = <> != < <= > >= || ?
  kHintStart,         // /*+
  kHintEnd,           // */ closing a hint
  kEnd,
};

struct Token {
  TokenType type = TokenType::kEnd;
  std::string text;
  Pos pos;

  // True for an unquoted word equal to `keyword` ignoring case (keyword is upper case).
  bool Is(std::string_view keyword) const;
  bool IsSymbol(std::string_view symbol) const {
    return type == TokenType::kSymbol && text == symbol;
  }
  // How the token reads in an error message: 'FROM', end of input, ...
  std::string Describe() const;
};

// While one lives, Tokenize on this thread reads "name" as a quoted identifier (`name`; "" is
// a double quote in it), as PostgreSQL does: `tributary serve`'s connections and jobs, whose
// clients quote identifiers so. Elsewhere double-quoted text is an error (Flink's dialect).
class DoubleQuotedIdentifiers {
 public:
  DoubleQuotedIdentifiers();
  ~DoubleQuotedIdentifiers();
  DoubleQuotedIdentifiers(const DoubleQuotedIdentifiers&) = delete;
  DoubleQuotedIdentifiers& operator=(const DoubleQuotedIdentifiers&) = delete;
  // Whether one lives on this thread (a thread the statement moves to takes it along).
  static bool Active();

 private:
  bool before_;
};

// Tokenizes `text`, whose first character sits at `start` in the script. Comments (-- and /* */)
// are skipped; hints (/*+ ... */) become kHintStart ... kHintEnd. The last token is kEnd.
Result<std::vector<Token>> Tokenize(std::string_view text, Pos start = {});

// One statement of a script, without its terminating ';'.
struct StatementText {
  std::string text;
  Pos start;  // position of text[0] in the script
};

// Splits a script on ';' outside strings, quoted identifiers and comments. Statements made only of
// whitespace and comments are dropped. An unterminated string or comment is an error.
Result<std::vector<StatementText>> SplitStatements(std::string_view script);
// Like SplitStatements, but on an unterminated string, identifier or comment it still returns
// (in *complete) every statement ended by ';' before it, with the error for the rest.
Status SplitStatementsPrefix(std::string_view script, std::vector<StatementText>* complete);

// For the interactive shell: true when `buffer` ends (outside strings and comments) with ';'.
bool EndsWithTerminator(std::string_view buffer);
// For the interactive shell: true when `text` holds only whitespace and complete comments.
bool IsBlankSql(std::string_view text);

}  // namespace tributary::sql
