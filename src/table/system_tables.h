// System tables of a table: t$snapshots, t$files, t$options, t$schemas, t$partitions,
// t$row_tracking, t$branch_<name>, and the change tables t$audit_log, t$changelog, t$binlog
// (docs/streaming.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tributary/catalog.h"
#include "tributary/table.h"

namespace tributary::table {

// The rows of system table `name` of the table at `table_path`. An unknown name is an error with
// a did-you-mean. `options`: a query's hints (Catalog::ReadSystemTable says which apply).
Result<SystemTableData> ReadSystemTable(const std::string& table_path, const std::string& name,
                                        const std::map<std::string, std::string>& options = {});

// The change tables, which a streaming SELECT also follows: audit_log, changelog, binlog.
bool IsChangeTable(const std::string& name);
// Their columns over a table of `schema`.
std::vector<Field> ChangeTableFields(const std::string& name, const TableSchema& schema);
// Appends the rows of change table `name` for a stream's changes (read with
// StreamOptions::with_change_metadata, every column); consumes `batch`.
Status ToChangeTableRows(const std::string& name, const TableSchema& schema, RowBatch* batch,
                         std::vector<Row>* out);

}  // namespace tributary::table
