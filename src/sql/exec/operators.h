// Physical operators of a query: a tree whose root the caller pulls column batches from, each
// operator pulling from its children only as much as it needs (a LIMIT stops its scan, rows
// reach the output while the scan is still reading). Only sorting, grouping, DISTINCT, set
// operations, windows and a hash join's build side hold state proportional to their input, each
// within a memory limit the planner gives it (a session option: more is an error naming it);
// everything else holds one batch at a time.
// Thread-safety: an operator tree is used by one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "datafile/spill_file.h"
#include "sql/binder/expression.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"

namespace tributary {
class Table;
class TableScan;
class StreamScan;
}  // namespace tributary

namespace tributary::sql {

// Where operators that outgrow their memory limits spill: the session's 'io.tmp.dirs'.
using SpillOptions = datafile::SpillOptions;

class Operator {
 public:
  virtual ~Operator() = default;
  // The columns of the batches this operator returns.
  const std::vector<Field>& fields() const { return fields_; }
  // Replaces `out` with the next batch (at least one row) and returns true, or returns false
  // when there are no more rows.
  virtual Result<bool> Next(ColumnBatch* out) = 0;
  // One line saying what the operator does (EXPLAIN), and the operators it reads.
  virtual std::string Describe() const = 0;
  virtual std::vector<const Operator*> children() const { return {}; }
  // Streaming: every row Next() returned so far has been delivered (printed and flushed), or,
  // with `delivered_of_last`, all but the last batch's rows from that index on. Stream sources
  // then move their consumers' positions past the changes behind the delivered rows
  // (StreamScan::Checkpoint). An operator passes it on to its input translated to the input's
  // rows (a filter's dropped rows count as delivered, a LIMIT's cut ones do not); one that
  // holds state across batches (a join's, a top-N's) does not pass it on, so a consumer
  // restarted from its position never misses a change. Default: not passed on.
  virtual Status Checkpoint(std::optional<size_t> delivered_of_last) { return Status::OK(); }
  // Streaming: whether this operator holds nothing across batches and passes Checkpoint on to
  // every input, so that once each batch it returned is delivered, its stream sources' positions
  // (StreamScan::position) say exactly what was delivered: what a streaming job needs of every
  // operator between its sources and its sink. Default: no.
  virtual bool PassesPositions() const { return false; }
  // Streaming, of an operator that does not pass positions on: whether what it holds is a
  // function of its input's current rows alone (a top-N that breaks ties by value holds every
  // current row), so a streaming job restarted at a source position rebuilds it by reading the
  // source's rows as of the snapshot before that position, emitting nothing. Default: no.
  virtual bool StateFromInputRows() const { return false; }

 protected:
  std::vector<Field> fields_;
};
using OperatorPtr = std::unique_ptr<Operator>;

// The tree under `op`, one operator a line, children indented (EXPLAIN).
std::string ExplainTree(const Operator& op);

// Rows of a table scan (the projected columns, in projection order). Owns the table.
// `description`: what EXPLAIN says of it (table, projection, pushed filters, ...).
OperatorPtr MakeScan(std::unique_ptr<Table> table, std::unique_ptr<TableScan> scan,
                     std::string description);
// A streaming read of a table's changes: an `op` column (+I, -U, +U, -D), then the stream's
// columns. Ends once `idle_timeout` passes without a change (never without one). Owns the table.
OperatorPtr MakeStreamSource(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                             std::optional<std::chrono::milliseconds> idle_timeout,
                             std::string description);
// A streaming read of change table `change_table` (audit_log, changelog, binlog) of `table`: each
// change a row (op +I), in the change table's columns. `stream` reads every column with
// StreamOptions::with_change_metadata. Ends as MakeStreamSource does.
OperatorPtr MakeChangeTableSource(std::unique_ptr<Table> table, std::unique_ptr<StreamScan> stream,
                                  std::string change_table,
                                  std::optional<std::chrono::milliseconds> idle_timeout,
                                  std::string description);
// Rows held in memory (VALUES, system tables, a query without FROM), in batches.
OperatorPtr MakeRows(std::vector<Field> fields, std::vector<Row> rows, std::string description);
// The rows of `child` for which every predicate is TRUE. `note`: added to its EXPLAIN line.
OperatorPtr MakeFilter(OperatorPtr child, std::vector<BoundExprPtr> predicates,
                       std::string note = "");
// One output column per expression, computed over the child's rows.
OperatorPtr MakeProject(OperatorPtr child, std::vector<BoundExprPtr> exprs,
                        std::vector<Field> fields);
// One row per group: [key values..., aggregate values...] (AggregateBinding's layout). Without
// keys, one row even for no input. The groups (keys, states, the hash table; DISTINCT
// aggregates' values) hold at most about `memory_limit` bytes: past it, the groups held keep
// taking their rows while the rows of new groups are spilled to disk (`spill`), partitioned by
// key, and aggregated partition by partition after the groups held are handed out. Without
// keys, or when the groups held alone grow past twice the limit (DISTINCT values, LISTAGG
// text), it is an error naming `memory_limit_key`.
OperatorPtr MakeAggregate(OperatorPtr child, AggregateBinding binding, int64_t memory_limit,
                          std::string memory_limit_key, SpillOptions spill = {});
// The child's rows (in input order), each with one column per window call appended (the
// WindowBinding's layout). Reads its input whole, holding at most `memory_limit` bytes. Past it,
// when every call has the same PARTITION BY, the input is sorted by it (the sort spilling to
// `spill`'s directories) and computed a group of whole partitions at a time, rows coming out
// partition by partition; otherwise, or for one partition larger than the limit, it is an error
// naming `memory_limit_key`. `top_n` (a single ROW_NUMBER() call whose number the query keeps
// only up to n): only the first n rows of each partition come out (grouped by partition), each
// partition keeping n rows as the input streams by.
OperatorPtr MakeWindow(OperatorPtr child, WindowBinding binding, int64_t memory_limit,
                       std::string memory_limit_key, std::optional<int64_t> top_n = std::nullopt,
                       SpillOptions spill = {});
// Each distinct row once. The distinct rows seen are held in a hash table of about
// `memory_limit` bytes, each handed out as it first arrives; past the limit, rows not seen yet
// are spilled (`spill`'s directories) in partitions by hash, each partition's distinct rows
// handed out once the input ends (distinct.cc).
// `depth`: the levels of hash partitioning the rows went through already (each level hashes
// differently, so rows one level put together the next may separate).
OperatorPtr MakeDistinct(OperatorPtr child, int64_t memory_limit, std::string memory_limit_key,
                         SpillOptions spill = {}, int depth = 0);

// How one ORDER BY key orders the rows: column `column` of the input.
struct SortKeySpec {
  int column = 0;
  bool descending = false;
  bool nulls_first = true;
};
struct SortOptions {
  std::vector<SortKeySpec> keys;
  // Only the first `limit` rows are wanted (ORDER BY ... LIMIT): a top-N heap, not a full sort.
  std::optional<int64_t> limit;
  // Columns kept in the output: the first `output_columns` (the others are sort keys only).
  size_t output_columns = 0;
  // The most the sort holds in memory: a larger input is sorted in runs of about this size,
  // spilled to disk (`spill`) and merged (at most 16 at a time, each read a segment at a time).
  int64_t memory_limit = 0;
  std::string memory_limit_key;
  SpillOptions spill;
};
// The child's rows in key order (stable).
OperatorPtr MakeSort(OperatorPtr child, SortOptions options);
// Rows `offset` ... `offset + limit` of the child (no limit: all after the offset).
OperatorPtr MakeLimit(OperatorPtr child, int64_t offset, std::optional<int64_t> limit);

// How MakeHashJoin joins its inputs. Keys and conditions are bound expressions: the keys over
// their own input's columns, the residual over the joined row (left columns, then right).
struct HashJoinSpec {
  JoinKind kind = JoinKind::kInner;
  // Equal key values join (a NULL key joins nothing); no keys: every pair is a candidate.
  std::vector<BoundExprPtr> left_keys, right_keys;
  // Conditions a candidate pair must also meet to join.
  std::vector<BoundExprPtr> residual;
  // The input read whole into the hash table (the other one streams through it).
  bool build_left = false;
  std::string condition;     // the ON condition as EXPLAIN shows it
  std::string build_reason;  // why that side is built, for EXPLAIN
  std::string note;          // more for EXPLAIN (a lookup join's)
  // The most the build side may hold. Past it, with equality keys, the join spills (a Grace
  // hash join: both inputs partitioned by a hash of their keys to `spill`'s directories, each
  // pair of partitions joined on its own, partitioned again by another hash when its build side
  // does not fit either, up to 8 levels); without keys it is an error naming the setting.
  int64_t memory_limit = 0;
  std::string memory_limit_key;
  SpillOptions spill;
  int spill_depth = 0;  // how many times these rows were partitioned already
};
// The join of `left` and `right`: left columns, then right columns (a side that may go
// unmatched becomes nullable). Outer joins add each unmatched row of a kept side, the other
// side's columns NULL.
OperatorPtr MakeHashJoin(OperatorPtr left, OperatorPtr right, HashJoinSpec spec);

// The rows of `first`, then those of `second` (same column types: UNION ALL).
OperatorPtr MakeUnionAll(OperatorPtr first, OperatorPtr second);
// INTERSECT (`intersect`) or EXCEPT of `left` and `right` (same column types): the rows of
// `left` that are (not) among the rows of `right`, NULLs comparing equal; with `all` each row
// counts as often as it occurs (a left row matched by a right one uses it up), else each
// distinct row once. `right` is read whole first and counted in a hash table of about
// `memory_limit` bytes; past it, the right rows of values not counted and the left rows of those
// values are spilled (`spill`'s directories) in partitions by hash, each pair of partitions taken
// on its own once the inputs end; the distinct rows returned are held within the same limit,
// and past it the rows still to return are spilled and each partition's distinct rows returned
// at the end (set_ops.cc).
OperatorPtr MakeSetDifference(OperatorPtr left, OperatorPtr right, bool intersect, bool all,
                              int64_t memory_limit, std::string memory_limit_key,
                              SpillOptions spill = {});

// Bytes a value takes in memory, roughly (what sorts and joins hold is bounded by this).
int64_t ApproxBytes(const Value& v);
// A batch of the rows [begin, end) (moved out) with Value columns of `fields`.
ColumnBatch RowsToBatch(const std::vector<Field>& fields, std::vector<Row>::iterator begin,
                        std::vector<Row>::iterator end);

// Pulls every batch of `op` into rows.
Result<std::vector<Row>> CollectRows(Operator& op);
// The rows of `batch` (rows `begin` to `end`, or all), as a row scan would return them.
std::vector<Row> BatchRows(const ColumnBatch& batch, size_t begin = 0, size_t end = SIZE_MAX);

}  // namespace tributary::sql
