// The subscriptions of one connection of `tributary serve` (docs/server.md, Subscriptions): in
// streaming mode, `DECLARE c CURSOR FOR SELECT ...` starts a streaming read of the query,
// `FETCH n FROM c` hands out at least one change and at most n (waiting for the first), `CLOSE c`
// or `CLOSE ALL` ends them. Sent as simple queries or through the extended protocol alike.
// Thread-safety: belongs to its connection's thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/types.h"
#include "tributary/value.h"

namespace tributary::sql {
class Session;
}

namespace tributary::server {

// What a statement stopped by a cancel request fails with (57014).
Status StatementCancelled();

class Cursors {
 public:
  // Over `session` (its options say whether it is in streaming mode); `cancel`: the
  // connection's cancel flag, which a FETCH's wait polls.
  Cursors(sql::Session* session, std::atomic<bool>* cancel);
  ~Cursors();

  // Whether the session is in streaming mode.
  bool Streaming() const;
  size_t size() const { return cursors_.size(); }

  // DECLARE name CURSOR FOR query: its command tag.
  Result<std::string> Declare(const std::string& text);

  // The rows a FETCH hands out, and what to do once they are written to the client: move a
  // consumer id's position past them.
  struct Fetched {
    std::vector<Field> fields;
    std::vector<Row> rows;
    std::function<Status()> sent;
  };
  // FETCH [FORWARD | NEXT] [n | ALL] [FROM | IN] name. A wait cancelled ends the subscription
  // (StatementCancelled).
  Result<Fetched> Fetch(const std::string& text);

  // CLOSE name | CLOSE ALL: its command tag.
  Result<std::string> Close(const std::string& text);

 private:
  struct Cursor;
  sql::Session* session_;
  std::atomic<bool>* cancel_;
  std::map<std::string, std::unique_ptr<Cursor>> cursors_;
};

}  // namespace tributary::server
