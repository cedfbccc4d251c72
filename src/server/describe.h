// The result columns of a prepared statement before it runs: what a Describe of the statement
// (not of a portal) answers, which drivers such as asyncpg and pgjdbc read to decode the rows
// that Execute sends later (docs/server.md).
// Thread-safety: one thread at a time, with the session.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/types.h"

namespace tributary::sql {
class Session;
}

namespace tributary::server {

// The columns query `text` (with '?' markers) returns, found by running it with every
// parameter NULL under `SELECT * FROM (...) LIMIT 0` (planned, no row read); nullopt for a
// statement that is not a query (SELECT, WITH, VALUES), or one that does not run so (its
// columns are then known at Execute, as before).
std::optional<std::vector<Field>> DescribeQuery(sql::Session* session, const std::string& text);

// Whether rows of `b` decode as `a` describes them: as many columns, each of the type the
// wire names the same way (pg_wire.h ColumnOf).
bool SameWireTypes(const std::vector<Field>& a, const std::vector<Field>& b);

}  // namespace tributary::server
