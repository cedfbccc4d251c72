// Partitions added by ALTER TABLE ... ADD PARTITION before any row is written to them. Paimon's
// filesystem catalog keeps no empty partitions (its createPartitions does nothing), so this is a
// Tributary-only record: a marker file `_TRIBUTARY_PARTITION` in the partition's directory, which
// Paimon readers and orphan-file cleaning (they look into bucket directories) leave alone. SHOW
// PARTITIONS and t$partitions list a marked partition, a writer with
// 'client.writer.dynamic-create-partition.enabled' = false may write it, 'max.partition.num'
// counts it, DROP PARTITION removes the marker.
// Thread-safety: stateless functions over the file system.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary::meta {

std::string PartitionMarkerPath(const std::string& table_path, const std::string& partition_path);
// The partition paths ("k=v/k2=v2") with a marker, for a table partitioned by `keys`.
Result<std::set<std::string>> ListMarkedPartitions(const std::string& table_path,
                                                   const std::vector<std::string>& keys);
// Writes the marker durably (an existing one stays).
Status MarkPartition(const std::string& table_path, const std::string& partition_path);
// Removes the marker (none is no error).
Status UnmarkPartition(const std::string& table_path, const std::string& partition_path);

}  // namespace tributary::meta
