// The table writer of a Paimon table directory (partitions, buckets, write buffers, flushes,
// compaction in the background, commits) and the full compaction of CALL sys.compact.
// Thread-safety: as TableWriter (include/tributary/table_writer.h); CompactTableFull is safe to
// run beside other writers (its commit is checked like theirs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tributary/table.h"

namespace tributary::write {

// Reads the latest snapshot of the table with the columns `projection` (table column indexes),
// calling `row` for each row: how a cross-partition-update writer (a primary key without every
// partition key) learns each key's partition (the scan lives in read/, beside this module).
using TableRowScanner = std::function<Status(const std::vector<int>& projection,
                                             const std::function<void(const Row&)>& row)>;

Result<std::unique_ptr<TableWriter>> NewFileStoreWriter(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema,
                                                        const WriteOptions& options,
                                                        TableRowScanner scanner = {});

// CALL sys.compact: full compaction of every bucket (of the partitions matching one of
// `partitions`, when given: Table::CompactFull), merges past 'sort-spill-threshold' spilling to
// `spill_dirs`.
Result<std::optional<int64_t>> CompactTableFull(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const std::function<void(int64_t, int64_t)>& progress = {},
    const std::vector<std::map<std::string, std::string>>& partitions = {},
    std::vector<std::string>* warnings = nullptr, const std::vector<std::string>& spill_dirs = {});

}  // namespace tributary::write
