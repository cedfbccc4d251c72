// FileStoreTable: the Table implementation over a Paimon table directory.
// Thread-safety: as Table (see include/tributary/table.h).
#pragma once

#include <memory>
#include <string>

#include "tributary/table.h"

namespace tributary::read {
class PendingSource;
}  // namespace tributary::read

namespace tributary::table {

// Opens the table at `path` with its latest schema; reads of its latest snapshot also see what
// `pending` holds for it (read/pending.h).
Result<std::unique_ptr<Table>> OpenFileStoreTable(
    const Identifier& id, const std::string& path,
    std::shared_ptr<read::PendingSource> pending = nullptr);

}  // namespace tributary::table
