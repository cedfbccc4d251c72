// PostgreSQL's run-time parameters as a connection's clients set and read them: in the startup
// packet, by `SET name {= | TO} value` (also SESSION, `SET TIME ZONE`), `RESET name` and `SHOW
// name`, and as ParameterStatus messages for the reported ones. Drivers set some before their
// first statement (pgjdbc: extra_float_digits, application_name, TimeZone); each accepted value
// does what PostgreSQL's does, the others are refused naming the parameter (docs/server.md).
// Flink's `SET 'key' = 'value'` (a quoted key) is the session's, not these.
// Thread-safety: one per connection, used by its thread.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tributary/result.h"

namespace tributary::sql {
class Session;
}

namespace tributary::server {

struct JobAnswer;  // server/jobs.h

class PgSettings {
 public:
  // (Made once the connection's database is in use: search_path's default.)
  explicit PgSettings(sql::Session* session);

  // Whether `text` is SET, RESET or SHOW of one of PostgreSQL's parameters (by its name,
  // unquoted: SET extra_float_digits = 3, SHOW TimeZone, SET TIME ZONE 'UTC').
  static bool IsSettingStatement(const std::string& text);

  // Runs it: SHOW's one row (a column named as the parameter), SET's and RESET's none; its
  // CommandComplete tag.
  Result<JobAnswer> Run(const std::string& text);

  // The startup packet's parameters other than user and database, each set as SET sets it; a
  // name PostgreSQL does not know (42704) or a value not supported fails the connection.
  Status ApplyStartup(const std::map<std::string, std::string>& params);

  // The reported parameters whose values changed since the last call (all of them at the
  // first): a ParameterStatus message each. TimeZone follows the session's
  // 'table.local-time-zone', however it was set.
  std::vector<std::pair<std::string, std::string>> TakeReports();

 private:
  Status Set(const std::string& name, const std::string* value);  // null: its default
  Result<std::string> Get(const std::string& name) const;

  sql::Session* session_;
  std::map<std::string, std::string> values_;                 // by canonical name: what SET gave
  std::map<std::string, std::string, std::less<>> reported_;  // what the client was told
  std::string startup_zone_;      // TimeZone of the startup packet: RESET's ("" UTC)
  std::string startup_database_;  // the connection's database: search_path's RESET
};

}  // namespace tributary::server
