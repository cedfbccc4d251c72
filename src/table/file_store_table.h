// FileStoreTable: the Table implementation over a Paimon table directory.
// Thread-safety: as Table (see include/tributary/table.h).
#pragma once

#include <memory>
#include <string>

#include "tributary/table.h"

namespace tributary::table {

// Opens the table at `path` with its latest schema.
Result<std::unique_ptr<Table>> OpenFileStoreTable(const Identifier& id, const std::string& path);

// Writer and scan factories (table_write.cc, table_read.cc).
Result<std::unique_ptr<TableWriter>> NewFileStoreWriter(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema,
                                                        const WriteOptions& options);
// `meta_path`: where schema/ and snapshot/ are when reading a branch (empty: `path`).
Result<std::unique_ptr<TableScan>> NewFileStoreScan(const std::string& path,
                                                    std::shared_ptr<const TableSchema> schema,
                                                    const ScanOptions& options,
                                                    const std::string& meta_path = "");
Result<std::unique_ptr<TableLookup>> NewFileStoreLookup(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema);
Result<std::optional<int64_t>> CountFromMetadata(const std::string& path, const TableSchema& schema,
                                                 std::optional<int64_t> snapshot_id);
// CALL sys.compact: full compaction of every bucket.
Result<std::optional<int64_t>> CompactTableFull(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const std::function<void(int64_t, int64_t)>& progress = {});

// Checks that `v` has the representation of `t` (value.h) and fits it (string length, integer
// range); names the column in the error.
Status CheckValue(const Value& v, const Field& field);

}  // namespace tributary::table
