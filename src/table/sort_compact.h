// CALL sys.compact(..., order_strategy => 'order' | 'zorder' | 'hilbert', order_by => 'a,b'):
// Paimon's sort compaction of an append table without buckets ('bucket' = '-1'). The rows of each
// partition compacted are sorted by the columns (lexicographically, along a Z-order curve or
// along a Hilbert curve over the columns' values) and written again by one OVERWRITE of those
// partitions, so files hold ranges of the sort key and filters on those columns skip files.
// Thread-safety: stateless functions; a table object is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "table/rewrite.h"
#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary {
class Table;
}  // namespace tributary

namespace tributary::table {

struct SortCompactRequest {
  std::string strategy;              // order, zorder, hilbert
  std::vector<std::string> columns;  // order_by
  // Partition column -> value of the partitions to compact (several or none: every partition).
  std::vector<std::map<std::string, std::string>> partitions;
  // Bytes of rows sorted at once ('sql.sort.memory-limit'); more are sorted in runs of about
  // that size spilled to `spill_dirs` ('io.tmp.dirs'; empty: $TMPDIR, else /tmp) and merged.
  int64_t memory_limit = 0;
  std::vector<std::string> spill_dirs;
  // Called with a line of progress every 100,000 rows (a terminal shows it), if set.
  std::function<void(const std::string&)> progress;
};

// Checks the request against the table (an error names what is wrong), then rewrites the rows
// (rewrite.h): the new snapshot (none when there was nothing to compact) and its warnings.
Result<RewriteResult> SortCompact(Table& table, const SortCompactRequest& request);

// The key a row sorts by: its columns' values mapped to order-preserving 64-bit numbers, then
// concatenated ('order'), bit-interleaved ('zorder') or taken as a Hilbert index ('hilbert'); the
// keys compare as byte strings. Exposed for tests.
std::string SortCompactKey(const std::string& strategy, const std::vector<Value>& values);

}  // namespace tributary::table
