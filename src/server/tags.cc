#include "server/tags.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

#include "server/stats.h"
#include "sql/parser/lexer.h"

namespace tributary::server {

std::string SqlState(const Status& st) {
  const std::string& m = st.message();
  auto says = [&](const char* words) { return m.find(words) != std::string::npos; };
  if (says("invalid input syntax")) return "22P02";
  if (says("bind message supplies") || says("protocol: ") ||
      says("insufficient data left in message")) {
    return "08P01";
  }
  if (says("prepared statement \"")) return "26000";
  if (says("portal \"") || says("invalid cursor name")) return "34000";
  if (says("cursor \"") && says("already exists")) return "42P03";
  if (says("unknown column")) return "42703";
  if (says("job '") && says("does not exist")) return "42704";  // (undefined_object)
  if (says("does not exist")) return says("database") ? "3D000" : "42P01";
  if (says("already exists")) return "42P07";
  if (says("division by zero")) return "22012";
  if (says("canceling statement due to user request")) return "57014";
  switch (st.code()) {
    case StatusCode::kInvalidArgument:
      return says("expected") || says("syntax") || says("unexpected") ? "42601" : "22023";
    case StatusCode::kNotFound:
      return "42P01";
    case StatusCode::kAlreadyExists:
      return "42P07";
    case StatusCode::kNotSupported:
      return "0A000";
    case StatusCode::kConflict:
      return "40001";
    case StatusCode::kIOError:
      return "58030";
    case StatusCode::kCorruption:
      return "XX001";
    default:
      return "XX000";
  }
}

std::vector<std::string> LeadingWords(const std::string& text, size_t n) {
  std::vector<std::string> words;
  std::string w;
  // Leading white space and comments (-- to the end of the line, /* ... */) are skipped.
  size_t start = 0;
  while (start < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[start]))) {
      start++;
    } else if (text.compare(start, 2, "--") == 0) {
      const size_t eol = text.find('\n', start);
      start = eol == std::string::npos ? text.size() : eol + 1;
    } else if (text.compare(start, 2, "/*") == 0 && text.compare(start, 3, "/*+") != 0) {
      const size_t end = text.find("*/", start + 2);
      start = end == std::string::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  for (char c : std::string_view(text).substr(start)) {
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      w.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
      continue;
    }
    if (!w.empty()) {
      words.push_back(w);
      w.clear();
      if (words.size() == n) return words;
    }
    if (words.empty() && !std::isspace(static_cast<unsigned char>(c))) break;  // a comment, '('
  }
  if (!w.empty() && words.size() < n) words.push_back(w);
  return words;
}

namespace {
// The first number in `message` ("Inserted 3 rows"), else 0.
int64_t CountIn(const std::string& message) {
  const size_t at = message.find_first_of("0123456789");
  return at == std::string::npos ? 0 : std::atoll(message.c_str() + at);
}
}  // namespace

std::string CommandTag(const std::string& text, const std::string& message) {
  const std::vector<std::string> words = LeadingWords(text, 2);
  if (words.empty()) return "OK";
  const std::string& first = words[0];
  if (first == "INSERT" || first == "UPDATE" || first == "DELETE") {
    const int64_t n = CountIn(message);
    ServerStats::Get().rows_written += n;
    return (first == "INSERT" ? "INSERT 0 " : first + " ") + std::to_string(n);
  }
  if ((first == "CREATE" || first == "DROP" || first == "ALTER") && words.size() > 1) {
    return first + " " + words[1];
  }
  return first;
}

// Whether `text` is INSERT INTO name VALUES ... with no hint, no column list (which makes a
// primary-key table's write a partial-column one, committed otherwise) and no query: the write
// the hot tier takes without a barrier. Tokens, so comments and strings are no trouble.
bool IsPlainInsertValues(const std::string& text) {
  auto tokens = sql::Tokenize(text);
  if (!tokens.ok()) return false;
  const std::vector<sql::Token>& t = *tokens;
  size_t i = 0;
  if (t.size() < 4 || !t[0].Is("INSERT") || !t[1].Is("INTO")) return false;
  i = 2;
  while (i < t.size() &&
         (t[i].type == sql::TokenType::kWord || t[i].type == sql::TokenType::kQuotedIdentifier)) {
    i++;
    if (i < t.size() && t[i].IsSymbol(".")) {
      i++;
    } else {
      break;
    }
  }
  if (i >= t.size() || !t[i].Is("VALUES")) return false;
  for (const sql::Token& token : t) {
    if (token.Is("SELECT") || token.type == sql::TokenType::kHintStart) return false;
  }
  return true;
}

}  // namespace tributary::server
