// What catalog.cc and catalog_alter.cc share: checks of names and the building of a new schema.
// Internal to table/. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "tributary/catalog.h"
#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/types.h"

namespace tributary::catalog_internal {

// A database, table or column name as Paimon's catalogs accept it (`kind` names it in errors).
Status CheckName(const std::string& kind, const std::string& name);
// `t` with field ids given to its nested ROW fields from *next on, depth-first (as Paimon).
DataType AssignFieldIds(const DataType& t, int32_t* next);
// A new table's schema from its spec: columns, keys and options checked (CREATE TABLE; ALTER
// TABLE builds the schema after the change the same way).
Result<TableSchema> BuildSchema(const TableSpec& spec);

}  // namespace tributary::catalog_internal
