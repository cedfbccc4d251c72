// System tables of a table: t$snapshots, t$files, t$options, t$schemas, t$partitions.
#pragma once

#include <string>

#include "tributary/catalog.h"

namespace tributary::table {

// The rows of system table `name` of the table at `table_path`. An unknown name is an error with
// a did-you-mean.
Result<SystemTableData> ReadSystemTable(const std::string& table_path, const std::string& name);

}  // namespace tributary::table
