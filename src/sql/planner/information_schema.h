// The SQL standard's INFORMATION_SCHEMA over a catalog: `information_schema.schemata`, `tables`,
// `columns`, `table_constraints` and `key_column_usage`, read as tables by any query (a
// catalog's own database of that name is hidden by them). A database of the catalog is a schema
// (as the server maps it for PostgreSQL clients: docs/server.md), its tables base tables with
// their columns in Tributary's types (as DESCRIBE writes them) and their primary key as a
// PRIMARY KEY constraint `<table>_pkey` (not enforced, as Paimon's). Computed when read, from
// the catalog's latest schemas: docs/sql.md.
// Thread-safety: pure functions over the catalog given.
#pragma once

#include <string>

#include "tributary/catalog.h"
#include "tributary/result.h"

namespace tributary::sql {

// Whether `database` names the information schema (any case).
bool IsInformationSchema(const std::string& database);

// The rows of information_schema table `table` (any case) of `catalog`, whose name in the
// session is `catalog_name`. An unknown table is an error naming the ones there are.
Result<SystemTableData> ReadInformationSchema(const Catalog& catalog,
                                              const std::string& catalog_name,
                                              const std::string& table);

}  // namespace tributary::sql
