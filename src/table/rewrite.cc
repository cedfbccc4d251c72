#include "table/rewrite.h"

#include <chrono>
#include <thread>

#include "meta/paths.h"
#include "meta/snapshot.h"
#include "tributary/schema.h"
#include "tributary/table_writer.h"

namespace tributary::table {

Result<RewriteResult> RewriteLatest(const std::string& table_path, const std::string& what,
                                    const RewriteAttempt& attempt, int attempts) {
  Status last;
  for (int i = 1; i <= attempts; i++) {
    TRIB_ASSIGN_OR_RETURN(auto latest, meta::SnapshotManager(table_path).LatestId());
    if (!latest) return RewriteResult{};
    auto done = attempt(*latest);
    if (done.ok()) return done;
    last = done.status();
    if (!last.IsConflict()) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * i));
  }
  return last.WithContext("gave up after " + std::to_string(attempts) +
                          " attempts: other writers kept changing the partitions; nothing was " +
                          what);
}

Result<RewriteResult> CommitRewrite(TableWriter& writer) {
  TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> committed, writer.CommitAndWaitForCompaction());
  return RewriteResult{committed, writer.warnings()};
}

std::function<bool(const Row&)> PartitionFilter(
    const TableSchema& schema, const std::vector<std::map<std::string, std::string>>& partitions) {
  std::vector<int> pidx;
  std::vector<DataType> types;
  for (const auto& k : schema.partition_keys) {
    pidx.push_back(schema.FieldIndex(k));
    types.push_back(schema.fields[pidx.back()].type);
  }
  return [pidx, types, keys = schema.partition_keys, partitions](const Row& row) {
    if (partitions.empty()) return true;
    for (const auto& spec : partitions) {
      bool all = true;
      for (size_t i = 0; all && i < pidx.size(); i++) {
        auto it = spec.find(keys[i]);
        all = it == spec.end() || meta::PartitionValueString(row[pidx[i]], types[i]) == it->second;
      }
      if (all) return true;
    }
    return false;
  };
}

}  // namespace tributary::table
