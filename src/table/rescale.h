// Rescale (Paimon's sys.rescale): a fixed-bucket table's rows, in the partitions named or all,
// written again into another number of buckets by one OVERWRITE of those partitions (rewrite.h:
// retried while other writers commit meanwhile; nothing changes if it gives up). Later writes to
// a rescaled partition use its new bucket count (the table's 'bucket' option changes separately,
// by ALTER TABLE, for partitions not yet written).
// Thread-safety: stateless functions; a table object is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "table/rewrite.h"
#include "tributary/result.h"

namespace tributary {
class Table;
}  // namespace tributary

namespace tributary::table {

struct RescaleRequest {
  int32_t buckets = 1;  // the new bucket count
  // Partition column -> value of the partitions to rescale (a column left out matches any
  // value); none: every partition.
  std::vector<std::map<std::string, std::string>> partitions;
  // Threads that read the rows and that write them (Paimon's scan_parallelism and
  // sink_parallelism); 0: every core.
  int scan_threads = 0;
  int sink_threads = 0;
  // Called with the number of rows written so far, every 100,000 rows, if set.
  std::function<void(int64_t rows)> progress;
};

// Rewrites the rows: the new snapshot (none when there were no rows) and its warnings.
Result<RewriteResult> Rescale(Table& table, const RescaleRequest& request);

}  // namespace tributary::table
