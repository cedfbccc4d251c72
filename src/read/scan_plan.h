// Planning a scan (Paimon's FileStoreScan): the snapshot to read (latest, or by id or time), its
// live files from the manifests, pruned by partition, bucket (an equality filter on the bucket
// key) and file statistics or key ranges, grouped into one split per partition-bucket, and the
// snapshot's deletion vectors.
// Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "read/pending.h"
#include "read/split_read.h"
#include "tributary/table_scan.h"

namespace tributary::options {
struct CoreOptions;
}  // namespace tributary::options

namespace tributary::read {

struct ScanPlan {
  std::optional<int64_t> snapshot_id;  // nullopt: nothing to read (empty, or before any commit)
  std::vector<DataSplit> splits;
  DeletionVectorIndex deletion_vectors;  // deletion-vector tables only
  // Every partition of the snapshot (serialized) when the request asks for them
  // (every_partition), else at least those of the splits.
  std::set<std::string> partitions;
};

struct ScanPlanRequest {
  std::string path;       // the table's folder
  std::string meta_path;  // where schema/ and snapshot/ are (the table, or a branch's folder)
  std::shared_ptr<const TableSchema> schema;
  const options::CoreOptions* core = nullptr;
  const ScanOptions* options = nullptr;             // snapshot id, time travel hints, filters
  const std::set<std::string>* excluded = nullptr;  // partitions not to read (fallback branch)
  bool top_level_only = false;  // only files of level num-levels - 1 (NewFileStoreScan)
  // ScanPlan::partitions must list every partition (a fallback branch's read). Otherwise a scan
  // filtered on partition columns reads only the live files of the partitions that match,
  // without merging every partition's (issue 38).
  bool every_partition = false;
  // A read of the latest snapshot reads the snapshot this names and its pending files instead.
  const PendingHook* pending = nullptr;
};

Result<ScanPlan> PlanScan(const ScanPlanRequest& request);

}  // namespace tributary::read
