// What `tributary serve` answers of PostgreSQL's catalog (pg_catalog): the queries psql sends for
// its describe commands `\dt`, `\d`, `\d t`, `\d+ t`, `\dt+`, `\dn` and `\l`, answered from the
// warehouse's catalog (docs/server.md says how Tributary maps onto PostgreSQL's objects: a
// database of the catalog is a schema, a table a relation with its columns and its primary key).
// The queries are not run by the SQL engine (they are PostgreSQL's SQL, over tables Tributary
// does not have): each is recognised by the catalog table it reads and answered item by item
// of its select list, so psql versions that ask for a column more or less still work; an item
// or a catalog table not known here is refused ("not supported yet"), never answered wrongly.
// Thread-safety: pure functions over the catalog given.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/result.h"

namespace tributary {
class Catalog;
}

namespace tributary::server {

struct CatalogAnswer {
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<std::string>>> rows;
};

// Whether `query` reads PostgreSQL's catalog (names pg_catalog tables; information_schema is
// answered by the SQL engine as in `tributary sql`).
bool ReadsPgCatalog(std::string_view query);

// The answer to psql's catalog query `query` over the tables of `catalog`, `database` being the
// connection's (the schema psql sees as visible). NotSupported for another query.
Result<CatalogAnswer> AnswerPgCatalogQuery(std::string_view query, const Catalog& catalog,
                                           const std::string& database);

// The object id a table is shown with (stable: a hash of its database and name, at or above
// PostgreSQL's first user OID, 16384).
uint32_t RelationOid(const std::string& database, const std::string& table);

}  // namespace tributary::server
