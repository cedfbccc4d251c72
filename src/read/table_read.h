// Reading a Paimon table directory: scans (snapshot, manifests, pruning, splits read and merged
// in parallel), point lookups, and counts answered from metadata alone.
// Thread-safety: as TableScan and TableLookup (include/tributary/table_scan.h, table.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "read/pending.h"
#include "tributary/table.h"

namespace tributary::read {

// `meta_path`: where schema/ and snapshot/ are when reading a branch (empty: `path`).
// `top_level_only`: only the files of the top LSM level (num-levels - 1) are read: the table as
// its last compaction into that level left it (what a 'full-compaction' changelog follows on).
// `pending`: a read of the latest snapshot also reads what it holds (read/pending.h).
Result<std::unique_ptr<TableScan>> NewFileStoreScan(const std::string& path,
                                                    std::shared_ptr<const TableSchema> schema,
                                                    const ScanOptions& options,
                                                    const std::string& meta_path = "",
                                                    bool top_level_only = false,
                                                    const PendingHook& pending = {});
// Point lookups by primary key (table_lookup.cc), of the latest snapshot and what `pending`
// holds.
Result<std::unique_ptr<TableLookup>> NewFileStoreLookup(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema,
                                                        PendingHook pending = {});
// The row count of a snapshot from its manifests, when no row needs reading (nullopt when the
// files must be merged to know it).
Result<std::optional<int64_t>> CountFromMetadata(const std::string& path, const TableSchema& schema,
                                                 std::optional<int64_t> snapshot_id);

}  // namespace tributary::read
