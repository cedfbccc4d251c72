#include "sql/parser/lexer.h"

#include <cctype>
#include <cstdio>

#include "common/strings.h"

namespace tributary::sql {

namespace {
thread_local bool g_double_quoted_identifiers = false;
}  // namespace

DoubleQuotedIdentifiers::DoubleQuotedIdentifiers() : before_(g_double_quoted_identifiers) {
  g_double_quoted_identifiers = true;
}
DoubleQuotedIdentifiers::~DoubleQuotedIdentifiers() { g_double_quoted_identifiers = before_; }
bool DoubleQuotedIdentifiers::Active() { return g_double_quoted_identifiers; }

std::string PosPrefix(const Pos& pos) {
  return "line " + std::to_string(pos.line) + ", column " + std::to_string(pos.column) + ": ";
}

// A message that already names a position keeps it (the innermost position is the precise one).
static bool HasPosition(const std::string& message) { return message.rfind("line ", 0) == 0; }

Status ErrorAt(const Pos& pos, const std::string& message) {
  return Status::Invalid(HasPosition(message) ? message : PosPrefix(pos) + message);
}

Status Locate(const Status& st, const Pos& pos) {
  if (st.ok() || st.message().rfind("line ", 0) == 0) return st;
  return Status(st.code(), PosPrefix(pos) + st.message());
}

Status NotSupportedAt(const Pos& pos, const std::string& message) {
  return Status::NotSupported(HasPosition(message) ? message : PosPrefix(pos) + message);
}

bool Token::Is(std::string_view keyword) const {
  if (type != TokenType::kWord || text.size() != keyword.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(text[i])) != keyword[i]) return false;
  }
  return true;
}

std::string Token::Describe() const {
  switch (type) {
    case TokenType::kEnd:
      return "end of input";
    case TokenType::kString:
      return "string '" + text + "'";
    case TokenType::kQuotedIdentifier:
      return "`" + text + "`";
    case TokenType::kHintStart:
      return "'/*+'";
    case TokenType::kHintEnd:
      return "'*/'";
    default:
      return "'" + text + "'";
  }
}

namespace {

bool IsWordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsWordChar(char c) {
  return IsWordStart(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$';
}

// Walks text while keeping the line and column of the current character.
class Cursor {
 public:
  Cursor(std::string_view text, Pos start) : text_(text), pos_(start) {}
  bool done() const { return i_ >= text_.size(); }
  char peek(size_t ahead = 0) const { return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0'; }
  size_t index() const { return i_; }
  const Pos& pos() const { return pos_; }
  void advance() {
    if (text_[i_] == '\n') {
      ++pos_.line;
      pos_.column = 1;
    } else {
      ++pos_.column;
    }
    ++i_;
  }
  void advance(size_t n) {
    for (size_t k = 0; k < n && !done(); ++k) advance();
  }

 private:
  std::string_view text_;
  size_t i_ = 0;
  Pos pos_;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view text, Pos start) {
  std::vector<Token> out;
  Cursor c(text, start);
  // SQL text is UTF-8: a stray byte would be stored raw in a STRING and break JSON output.
  if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
    Cursor at(text, start);
    at.advance(bad);
    char hex[8];
    std::snprintf(hex, sizeof(hex), "0x%02X", static_cast<unsigned char>(text[bad]));
    return ErrorAt(at.pos(), std::string("invalid UTF-8 in the SQL text (byte ") + hex + ")");
  }
  bool in_hint = false;
  while (!c.done()) {
    char ch = c.peek();
    if (std::isspace(static_cast<unsigned char>(ch))) {
      c.advance();
      continue;
    }
    Pos pos = c.pos();
    if (ch == '-' && c.peek(1) == '-') {
      while (!c.done() && c.peek() != '\n') c.advance();
      continue;
    }
    if (ch == '/' && c.peek(1) == '*') {
      if (c.peek(2) == '+' && !in_hint) {
        c.advance(3);
        out.push_back({TokenType::kHintStart, "/*+", pos});
        in_hint = true;
        continue;
      }
      c.advance(2);
      while (!c.done() && !(c.peek() == '*' && c.peek(1) == '/')) c.advance();
      if (c.done()) return ErrorAt(pos, "unterminated comment");
      c.advance(2);
      continue;
    }
    if (in_hint && ch == '*' && c.peek(1) == '/') {
      c.advance(2);
      out.push_back({TokenType::kHintEnd, "*/", pos});
      in_hint = false;
      continue;
    }
    if (ch == '\'') {
      std::string value;
      c.advance();
      while (true) {
        if (c.done()) return ErrorAt(pos, "unterminated string literal");
        if (c.peek() == '\'') {
          if (c.peek(1) == '\'') {
            value.push_back('\'');
            c.advance(2);
            continue;
          }
          c.advance();
          break;
        }
        value.push_back(c.peek());
        c.advance();
      }
      out.push_back({TokenType::kString, std::move(value), pos});
      continue;
    }
    if (ch == '`' || (ch == '"' && g_double_quoted_identifiers)) {
      const char quote = ch;
      std::string value;
      c.advance();
      while (true) {
        if (c.done()) return ErrorAt(pos, "unterminated quoted identifier");
        if (c.peek() == quote) {
          if (c.peek(1) == quote) {
            value.push_back(quote);
            c.advance(2);
            continue;
          }
          c.advance();
          break;
        }
        value.push_back(c.peek());
        c.advance();
      }
      if (value.empty()) return ErrorAt(pos, "empty quoted identifier");
      out.push_back({TokenType::kQuotedIdentifier, std::move(value), pos});
      continue;
    }
    if (ch == '"') {
      return ErrorAt(pos,
                     "double quotes are not allowed: write strings as 'text' and quote "
                     "identifiers with backquotes (`name`)");
    }
    bool digit = std::isdigit(static_cast<unsigned char>(ch));
    if (digit || (ch == '.' && std::isdigit(static_cast<unsigned char>(c.peek(1))))) {
      size_t begin = c.index();
      TokenType type = TokenType::kInteger;
      while (std::isdigit(static_cast<unsigned char>(c.peek()))) c.advance();
      if (c.peek() == '.') {
        type = TokenType::kDecimal;
        c.advance();
        while (std::isdigit(static_cast<unsigned char>(c.peek()))) c.advance();
      }
      if (c.peek() == 'e' || c.peek() == 'E') {
        size_t k = 1;
        if (c.peek(1) == '+' || c.peek(1) == '-') k = 2;
        if (std::isdigit(static_cast<unsigned char>(c.peek(k)))) {
          type = TokenType::kFloat;
          c.advance(k);
          while (std::isdigit(static_cast<unsigned char>(c.peek()))) c.advance();
        }
      }
      if (IsWordStart(c.peek())) {
        return ErrorAt(pos, "malformed number '" +
                                std::string(text.substr(begin, c.index() - begin + 1)) + "'");
      }
      out.push_back({type, std::string(text.substr(begin, c.index() - begin)), pos});
      continue;
    }
    if (IsWordStart(ch)) {
      size_t begin = c.index();
      while (IsWordChar(c.peek())) c.advance();
      out.push_back({TokenType::kWord, std::string(text.substr(begin, c.index() - begin)), pos});
      continue;
    }
    static const char* kTwoChar[] = {"<>", "!=", "<=", ">=", "||", "=>"};
    bool matched = false;
    for (const char* sym : kTwoChar) {
      if (ch == sym[0] && c.peek(1) == sym[1]) {
        c.advance(2);
        out.push_back({TokenType::kSymbol, sym, pos});
        matched = true;
        break;
      }
    }
    if (matched) continue;
    static const std::string_view kOneChar = "(),;.+-*/%=<>?[]";
    if (kOneChar.find(ch) != std::string_view::npos) {
      c.advance();
      out.push_back({TokenType::kSymbol, std::string(1, ch), pos});
      continue;
    }
    return ErrorAt(pos, std::string("unexpected character '") + ch + "'");
  }
  if (in_hint) return ErrorAt(c.pos(), "unterminated hint: expected '*/'");
  out.push_back({TokenType::kEnd, "", c.pos()});
  return out;
}

namespace {

// Scans `script` outside strings and comments, calling on_char(i) for each such character.
// Returns false (and the position of the opening quote or comment) when something is unterminated.
template <typename F>
bool ScanCode(std::string_view s, F&& on_char, size_t* open_at) {
  size_t i = 0;
  while (i < s.size()) {
    char ch = s[i];
    if (ch == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (ch == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) {
        *open_at = i;
        return false;
      }
      // A hint's contents are code, but contain no ';' worth splitting on.
      i = end + 2;
      continue;
    }
    if (ch == '\'' || ch == '`' || ch == '"') {
      size_t j = i + 1;
      while (true) {
        if (j >= s.size()) {
          *open_at = i;
          return false;
        }
        if (s[j] == ch) {
          if (j + 1 < s.size() && s[j + 1] == ch) {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      on_char(i, /*quoted=*/true);
      i = j + 1;
      continue;
    }
    on_char(i, /*quoted=*/false);
    ++i;
  }
  return true;
}

// The position of s[index], counted on from `from` (the position of s[from_index]; by default
// the start): a splitter walking a script forward counts each character once.
Pos PosOf(std::string_view s, size_t index, Pos from = {}, size_t from_index = 0) {
  Pos p = from;
  for (size_t i = from_index; i < index && i < s.size(); ++i) {
    if (s[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

// The words of one statement as the splitter sees them, so that EXECUTE STATEMENT SET BEGIN ...
// END stays one statement: its INSERTs end with ';' too. The set ends at an END that closes no
// CASE.
class StatementSetTracker {
 public:
  void Feed(char ch, bool quoted) {
    if (!quoted && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) {
      word_ += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      return;
    }
    EndWord();
  }
  // Whether an unquoted ';' here ends the statement.
  bool SemicolonEnds() {
    EndWord();
    return !(words_ >= 4 && is_set_ && !(last_ == "END" && case_depth_ == 0));
  }
  void Reset() { *this = StatementSetTracker(); }

 private:
  void EndWord() {
    if (word_.empty()) return;
    static const char* kHead[] = {"EXECUTE", "STATEMENT", "SET", "BEGIN"};
    if (words_ < 4) is_set_ = is_set_ && word_ == kHead[words_];
    if (words_ >= 4 && word_ == "CASE") case_depth_++;
    if (words_ >= 4 && word_ == "END" && case_depth_ > 0) {
      case_depth_--;
      last_ = "END-CASE";
    } else {
      last_ = word_;
    }
    words_++;
    word_.clear();
  }
  std::string word_, last_;
  int words_ = 0;
  int case_depth_ = 0;
  bool is_set_ = true;
};

}  // namespace

Result<std::vector<StatementText>> SplitStatements(std::string_view script) {
  std::vector<StatementText> out;
  TRIB_RETURN_NOT_OK(SplitStatementsPrefix(script, &out));
  return out;
}

Status SplitStatementsPrefix(std::string_view script, std::vector<StatementText>* complete) {
  std::vector<StatementText>& out = *complete;
  size_t begin = 0;
  bool has_code = false;
  Pos counted;  // the position of script[counted_at]
  size_t counted_at = 0;
  auto flush = [&](size_t end) {
    if (has_code) {
      counted = PosOf(script, begin, counted, counted_at);
      counted_at = begin;
      out.push_back({std::string(script.substr(begin, end - begin)), counted});
    }
    begin = end + 1;
    has_code = false;
  };
  size_t open_at = 0;
  StatementSetTracker set;
  bool ok = ScanCode(
      script,
      [&](size_t i, bool quoted) {
        if (!quoted && script[i] == ';' && set.SemicolonEnds()) {
          flush(i);
          set.Reset();
        } else {
          set.Feed(script[i], quoted);
          if (quoted || !std::isspace(static_cast<unsigned char>(script[i]))) has_code = true;
        }
      },
      &open_at);
  if (!ok) {
    char ch = script[open_at];
    const char* what = ch == '\''  ? "unterminated string literal"
                       : ch == '`' ? "unterminated quoted identifier"
                       : ch == '"' ? "unterminated double-quoted text"
                                   : "unterminated comment";
    return ErrorAt(PosOf(script, open_at), what);
  }
  flush(script.size());
  return Status::OK();
}

bool IsBlankSql(std::string_view text) {
  bool blank = true;
  size_t open_at = 0;
  const bool ok = ScanCode(
      text,
      [&](size_t i, bool quoted) {
        if (quoted || !std::isspace(static_cast<unsigned char>(text[i]))) blank = false;
      },
      &open_at);
  return ok && blank;
}

bool EndsWithTerminator(std::string_view buffer) {
  char last = 0;
  bool ends = false;  // the last ';' ended a statement
  size_t open_at = 0;
  StatementSetTracker set;
  bool ok = ScanCode(
      buffer,
      [&](size_t i, bool quoted) {
        if (!quoted && buffer[i] == ';') {
          ends = set.SemicolonEnds();
          if (ends) set.Reset();
          last = ';';
        } else {
          set.Feed(buffer[i], quoted);
          if (quoted || !std::isspace(static_cast<unsigned char>(buffer[i]))) last = 'x';
        }
      },
      &open_at);
  return ok && last == ';' && ends;
}

}  // namespace tributary::sql
