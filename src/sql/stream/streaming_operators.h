// Streaming operators (sql/stream/): lookup joins with their caches (lookup_join.cc), delta joins
// (delta_join.cc) and Flink's top-N over a stream of changes (streaming_rank.cc), built by the
// streaming planner (sql/planner/streaming_query.cc) over the operators of sql/exec/.
// Thread-safety: an operator tree is used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/binder/expression.h"
#include "sql/exec/operators.h"
#include "tributary/result.h"

namespace tributary {
class Table;
class StreamScan;
}  // namespace tributary

namespace tributary::sql {

// How a lookup join finds the dimension's rows (the dimension table's options and hints, as
// Flink's lookup options name them; docs/sql.md):
//   kNone     each key looked up in the dimension's latest snapshot when its batch arrives;
//   kPartial  looked-up rows (and misses) kept and served until they expire, up to `max_rows`
//             (least recently used first out), so later changes of the dimension are seen only
//             once an entry expired;
//   kFull     the whole dimension held in memory, loaded again when a commit to it is seen.
// `async_threads` > 1: the keys of a batch are looked up by that many threads at once (output
// order kept).
struct LookupCacheOptions {
  enum class Mode { kNone, kPartial, kFull };
  Mode mode = Mode::kNone;
  std::optional<int64_t> expire_after_write_ms, expire_after_access_ms, max_rows;
  int async_threads = 1;
  // Keys of a batch looked up together at most ('client.lookup.queue-size',
  // 'table.exec.async-lookup.buffer-capacity' when asynchronous); 0: no bound.
  int64_t max_keys = 0;
};
// The options above from a dimension table's options (`lookup.cache`, `lookup.partial-cache.*`,
// `lookup.async`, `lookup.async-thread-number`); errors name the option.
Result<LookupCacheOptions> ParseLookupCacheOptions(
    const std::map<std::string, std::string>& options);
// What EXPLAIN says of the cache ("" for kNone on one thread).
std::string DescribeLookupCache(const LookupCacheOptions& cache);
// A lookup join: each row of `child` joined with the rows of `table` whose columns
// `key_columns` (its primary key in order; with `prefix`, its bucket key and partition keys: a
// prefix lookup, several rows per key) hold the values of `keys` (expressions over the child's
// columns, one per key column), as `cache` finds them (commits to the table are seen by later
// rows), each joined row then checked by `residual` (expressions over the joined row). No row
// passing: INNER drops the row, LEFT (`left_outer`) pads it with NULLs. Columns: the child's,
// then the table's. Owns the table. In lookup_join.cc.
OperatorPtr MakeLookupJoin(OperatorPtr child, std::unique_ptr<Table> table,
                           std::vector<BoundExprPtr> keys, std::vector<int> key_columns,
                           bool prefix, std::vector<BoundExprPtr> residual, bool left_outer,
                           LookupCacheOptions cache, std::string description);
// Flink's top-N over a stream of changes (column 0 of `child` its op: +I, -U, +U, -D): each
// partition's rows (`partition_by`, over the child's columns) ranked by `order_by`
// (`descending`, `nulls_first`; ties by arrival, or with `ties_by_value` by the rows' values, so
// that what it holds depends on its input's current rows alone: Operator::StateFromInputRows)
// with ROW_NUMBER(), and the changes of its first `n` rows emitted: the child's columns, then `rn`
// (BIGINT). A rank taken over by another row is -U / +U, a rank emptied -D, a new rank +I. Holds
// every current row of the input (a retraction in the first n brings the next row up). In
// streaming_rank.cc.
OperatorPtr MakeStreamingTopN(OperatorPtr child, std::vector<BoundExprPtr> partition_by,
                              std::vector<BoundExprPtr> order_by, std::vector<bool> descending,
                              std::vector<bool> nulls_first, int64_t n, bool ties_by_value,
                              std::string description);
// One side of a delta join: its table, its stream (StreamOptions::with_change_metadata, every
// column) and the columns its join equalities compare, pairwise with the other side's.
struct DeltaJoinSide {
  std::unique_ptr<Table> table;
  std::unique_ptr<StreamScan> stream;
  std::vector<int> key_columns;
  // Join keys of this side's rows kept in memory ('table.exec.delta-join.*.cache-size'); 0: none.
  int64_t cache_size = 0;
  // Keys looked up in this side by one scan at most ('client.lookup.queue-size' of the table,
  // 'table.exec.async-lookup.buffer-capacity'); more go in several scans. 0: no bound.
  int64_t lookup_batch = 0;
};
// A delta join (delta_join.cc): the streaming INNER join of two primary-key tables on
// left.key_columns[i] = right.key_columns[i] (and `condition`, over the left table's columns then
// the right's), keeping no join state: each side's changes, a snapshot at a time, are joined
// with the other side's rows at the last snapshot of it processed, read by a scan filtered on
// the keys. Columns: op, the left table's, the right table's. Ends as MakeStreamSource does.
OperatorPtr MakeDeltaJoin(DeltaJoinSide left, DeltaJoinSide right,
                          std::vector<BoundExprPtr> condition,
                          std::optional<std::chrono::milliseconds> idle_timeout,
                          std::string description);
// UNION ALL over streaming inputs (streaming_union.cc): each input's changes handed out as they
// come, the inputs asked in turn in poll mode (interrupt.h PollScope), so none waits for
// another. `fields`: the inputs' columns (op first), all of these types. Each input must pass
// positions on (Operator::PassesPositions). Ends at the idle time-out or Ctrl-C.
OperatorPtr MakeStreamingUnion(std::vector<OperatorPtr> inputs, std::vector<Field> fields,
                               std::optional<std::chrono::milliseconds> idle_timeout);
}  // namespace tributary::sql
