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
#include "tributary/value.h"

namespace tributary::sql {
class Session;
}

namespace tributary::server {

// The columns query `text` (with '?' markers) returns, found by running it with every
// parameter NULL under `SELECT * FROM (...) LIMIT 0` (planned, no row read); nullopt for a
// statement that is not a query (SELECT, WITH, VALUES), or one that does not run so (its
// columns are then known at Execute, as before).
std::optional<std::vector<Field>> DescribeQuery(sql::Session* session, const std::string& text);

// Makes the rows of an Execute decode as the statement's Describe said (a client reads them by
// those types): columns whose wire type differs (pg_wire.h ColumnOf: a parameter's value can
// decide a computed column's type) are cast to the described type. PostgreSQL's error "cached
// plan must not change result type" (0A000) when the columns differ in number or do not cast
// (a table altered since the Describe: describe the statement again).
Status ConformToDescribed(const std::vector<Field>& described, std::vector<Field>* fields,
                          std::vector<Row>* rows);

}  // namespace tributary::server
