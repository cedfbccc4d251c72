// The rewrite of a table's rows by one OVERWRITE (rescale, sort compaction): the rows of the
// latest snapshot are read and written again by an OVERWRITE of the partitions they are in,
// which commits only if those partitions still hold the files the rows were read from. A write
// committed meanwhile makes the attempt fail with a conflict (nothing is lost): the rows are read
// again, a few times, before the rewrite gives up and says so.
// Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary {
class TableWriter;
struct TableSchema;
}  // namespace tributary

namespace tributary::table {

// What a rewrite committed: its snapshot (nullopt when there was nothing to rewrite) and the
// warnings of its commit (TableWriter::warnings: the commit stands).
struct RewriteResult {
  std::optional<int64_t> snapshot;
  std::vector<std::string> warnings;
};

// One attempt: reads snapshot `latest` and commits the rewrite (an OVERWRITE based on
// `latest`), returning what its writer committed.
using RewriteAttempt = std::function<Result<RewriteResult>(int64_t latest)>;

// Runs `attempt` on the table's latest snapshot until one commits, trying again (at most
// `attempts` times in all, a short pause between) while the commit conflicts with a write
// committed meanwhile. Nothing to rewrite when the table has no snapshot. After the last
// conflict: the conflict, saying the rewrite gave up and that nothing was `what` (e.g.
// "rescaled").
Result<RewriteResult> RewriteLatest(const std::string& table_path, const std::string& what,
                                    const RewriteAttempt& attempt, int attempts = 5);

// Commits `writer`'s rows as RewriteLatest's attempt does: its snapshot and warnings.
Result<RewriteResult> CommitRewrite(TableWriter& writer);

// Whether a row of a table with `schema` lies in one of `partitions` (partition column ->
// value, as Paimon writes partition values in paths; a column a spec leaves out matches any
// value). No partitions: every row.
std::function<bool(const Row&)> PartitionFilter(
    const TableSchema& schema, const std::vector<std::map<std::string, std::string>>& partitions);

}  // namespace tributary::table
