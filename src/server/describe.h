// The result columns of a prepared statement before it runs: what a Describe of the statement
// (not of a portal) answers, which drivers such as asyncpg and pgjdbc read to decode the rows
// that Execute sends later (docs/server.md).
// Thread-safety: one thread at a time, with the session.
#pragma once

#include <cstdint>
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

// What a Describe of the prepared statement `text` (with '?' markers; `order` the parameter
// number of each, 1-based) answers: its parameters' types and, for a query, its columns
// (sql::DescribeStatement plans it, with a NULL for each marker). A parameter declared in Parse
// (`declared`, 0 unspecified) keeps its type; an unspecified one takes the type its markers take
// from their context where Bind reads values of that type (pg_binary.h ParamValue: booleans,
// integers, floats, numeric, strings, bytea, date, time, timestamp, timestamptz), else text (25),
// which the statement converts as a string literal. `columns` nullopt: not a query, or one that
// does not plan so (its columns are then known at Execute).
struct Description {
  std::vector<int32_t> parameter_oids;
  std::optional<std::vector<Field>> columns;
};
Description DescribeStatement(sql::Session* session, const std::string& text,
                              const std::vector<int32_t>& declared, const std::vector<int>& order);

// Makes the rows of an Execute decode as the statement's Describe said (a client reads them by
// those types): columns whose wire type differs (pg_wire.h ColumnOf: a parameter's value can
// decide a computed column's type) are cast to the described type. PostgreSQL's error "cached
// plan must not change result type" (0A000) when the columns differ in number or do not cast
// (a table altered since the Describe: describe the statement again).
Status ConformToDescribed(const std::vector<Field>& described, std::vector<Field>* fields,
                          std::vector<Row>* rows);

}  // namespace tributary::server
