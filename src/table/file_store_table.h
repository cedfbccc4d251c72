// FileStoreTable: the Table implementation over a Paimon table directory.
// Thread-safety: as Table (see include/tributary/table.h).
#pragma once

#include <memory>
#include <string>

#include "tributary/table.h"

namespace tributary::table {

// Opens the table at `path` with its latest schema.
Result<std::unique_ptr<Table>> OpenFileStoreTable(const Identifier& id, const std::string& path);

}  // namespace tributary::table
