#include "server/cursors.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "server/tags.h"
#include "sql/exec/operators.h"
#include "sql/session/session.h"
#include "tributary/column_batch.h"

namespace tributary::server {

Status StatementCancelled() { return Status::Invalid("canceling statement due to user request"); }

struct Cursors::Cursor {
  sql::StatementResult result;  // its operator (result.cursor) and fields
  ColumnBatch batch;            // the batch being handed out
  size_t next = 0;              // its next row
  bool ended = false;
};

Cursors::Cursors(sql::Session* session, std::atomic<bool>* cancel)
    : session_(session), cancel_(cancel) {}

Cursors::~Cursors() = default;

bool Cursors::Streaming() const {
  auto mode = session_->options().find("execution.runtime-mode");
  return mode != session_->options().end() && mode->second == "streaming";
}

Result<std::string> Cursors::Declare(const std::string& text) {
  // DECLARE name [BINARY] [INSENSITIVE] [[NO] SCROLL] CURSOR [{WITH | WITHOUT} HOLD] FOR query
  const std::vector<std::string> words = LeadingWords(text, 16);
  if (words.size() < 3) return Status::Invalid("syntax: DECLARE name CURSOR FOR query");
  // The name as written (case kept), then the query after FOR.
  size_t at = text.find_first_not_of(" \t\r\n");  // DECLARE
  at = text.find_first_of(" \t\r\n", at);
  at = at == std::string::npos ? at : text.find_first_not_of(" \t\r\n", at);
  const size_t end = at == std::string::npos ? at : text.find_first_of(" \t\r\n", at);
  if (end == std::string::npos) return Status::Invalid("syntax: DECLARE name CURSOR FOR query");
  const std::string name = text.substr(at, end - at);
  size_t i = 2;
  bool saw_cursor = false;
  for (; i < words.size(); i++) {
    const std::string& w = words[i];
    if (w == "BINARY") return Status::NotSupported("binary cursors are not supported yet");
    if (w == "SCROLL") return Status::NotSupported("a subscription is not scrollable (NO SCROLL)");
    if (w == "CURSOR") saw_cursor = true;
    if (w == "FOR") break;
  }
  if (!saw_cursor || i == words.size()) {
    return Status::Invalid("syntax: DECLARE name CURSOR FOR query");
  }
  // The query: the text after the first FOR following CURSOR.
  std::string rest = text.substr(end);
  std::string upper_rest = rest;
  for (char& c : upper_rest) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const size_t cursor_at = upper_rest.find("CURSOR");
  const size_t for_at = upper_rest.find("FOR", cursor_at);
  if (cursor_at == std::string::npos || for_at == std::string::npos) {
    return Status::Invalid("syntax: DECLARE name CURSOR FOR query");
  }
  const std::string query = rest.substr(for_at + 3);
  if (!Streaming()) {
    return Status::NotSupported(
        "a cursor in batch mode is not supported yet: SET 'execution.runtime-mode' = "
        "'streaming' first (a subscription), or run the SELECT itself");
  }
  if (cursors_.count(name)) {
    return Status::AlreadyExists("cursor \"" + name + "\" already exists");
  }
  TRIB_ASSIGN_OR_RETURN(sql::StatementResult r, session_->ExecuteText(query, sql::Pos{}));
  if (!r.has_rows || !r.cursor) {
    return Status::Invalid("DECLARE ... CURSOR FOR needs a query (SELECT)");
  }
  auto c = std::make_unique<Cursor>();
  c->result = std::move(r);
  cursors_.emplace(name, std::move(c));
  return std::string("DECLARE CURSOR");
}

Result<Cursors::Fetched> Cursors::Fetch(const std::string& text) {
  // FETCH [FORWARD | NEXT] [n | ALL] [FROM | IN] name
  std::vector<std::string> tokens;
  {
    std::string t;
    for (char c : text + " ") {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!t.empty()) tokens.push_back(t);
        t.clear();
      } else {
        t.push_back(c);
      }
    }
  }
  if (tokens.size() < 2) return Status::Invalid("syntax: FETCH n FROM cursor");
  int64_t count = 1;
  size_t k = 1;
  auto upper = [](std::string w) {
    for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return w;
  };
  if (upper(tokens[k]) == "FORWARD" || upper(tokens[k]) == "NEXT") k++;
  if (k < tokens.size() && upper(tokens[k]) == "ALL") {
    count = INT64_MAX;
    k++;
  } else if (k < tokens.size() && std::isdigit(static_cast<unsigned char>(tokens[k][0]))) {
    count = std::atoll(tokens[k].c_str());
    k++;
  } else if (k < tokens.size() &&
             (upper(tokens[k]) == "BACKWARD" || upper(tokens[k]) == "PRIOR" ||
              upper(tokens[k]) == "FIRST" || upper(tokens[k]) == "LAST" ||
              upper(tokens[k]) == "ABSOLUTE" || upper(tokens[k]) == "RELATIVE")) {
    return Status::NotSupported("FETCH " + tokens[k] +
                                ": a subscription only moves forward (FETCH n FROM c)");
  }
  if (k < tokens.size() && (upper(tokens[k]) == "FROM" || upper(tokens[k]) == "IN")) k++;
  if (k + 1 != tokens.size()) return Status::Invalid("syntax: FETCH n FROM cursor");
  auto it = cursors_.find(tokens[k]);
  if (it == cursors_.end()) {
    return Status::NotFound("cursor \"" + tokens[k] + "\" does not exist (invalid cursor name)");
  }
  Cursor& c = *it->second;
  Fetched out;
  out.fields = c.result.rows.fields;
  // The rows of the batch being handed out; else the next batch, waiting for it (a change
  // committed to the table ends the wait).
  if (c.next >= c.batch.num_rows && !c.ended && count > 0) {
    TRIB_ASSIGN_OR_RETURN(bool more, c.result.cursor->Next(&c.batch));
    if (cancel_->load()) {
      // The wait was cancelled: the subscription ends (a consumer id resumes it where its
      // last FETCH left it), as a cursor goes with PostgreSQL's failed transaction.
      cursors_.erase(it);
      return StatementCancelled();
    }
    c.next = 0;
    if (!more) {
      c.ended = true;
      c.batch.Clear();
    }
  }
  const size_t end =
      c.ended ? c.next
              : static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(c.batch.num_rows),
                                                      static_cast<int64_t>(c.next) + count));
  const size_t begin = c.next;
  if (end > begin) out.rows = sql::BatchRows(c.batch, begin, end);
  c.next = end;
  // Once sent, a consumer id's position moves past them (the rest of the batch is read again by
  // a consumer that resumes).
  const std::string name = tokens[k];
  const bool whole = end >= c.batch.num_rows;
  out.sent = [this, name, begin, end, whole]() -> Status {
    auto at = cursors_.find(name);
    if (end == begin || at == cursors_.end()) return Status::OK();
    return at->second->result.cursor->Checkpoint(whole ? std::optional<size_t>()
                                                       : std::optional<size_t>(end));
  };
  return out;
}

Result<std::string> Cursors::Close(const std::string& text) {
  const std::vector<std::string> words = LeadingWords(text, 2);
  if (words.size() == 2 && words[1] == "ALL") {
    cursors_.clear();
  } else {
    size_t at = text.find_first_not_of(" \t\r\n");  // CLOSE
    at = text.find_first_of(" \t\r\n", at);
    at = at == std::string::npos ? at : text.find_first_not_of(" \t\r\n", at);
    const size_t end = at == std::string::npos ? at : text.find_first_of(" \t\r\n", at);
    const std::string name =
        at == std::string::npos ? "" : text.substr(at, end == std::string::npos ? end : end - at);
    if (!cursors_.erase(name)) {
      return Status::NotFound("cursor \"" + name + "\" does not exist (invalid cursor name)");
    }
  }
  return std::string("CLOSE CURSOR");
}

}  // namespace tributary::server
