// The query planner: SELECT and VALUES over data tables, system tables and subqueries. It binds
// the query, pushes the projection, simple filters and LIMIT into Table::NewScan, and builds the
// operators (operators.h) that filter, group, sort and limit the scanned column batches.
// Thread-safety: stateless functions; the session is used by one thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/parser/ast.h"
#include "sql/planner/query_context.h"
#include "tributary/table.h"

namespace tributary::sql {

class Operator;

// The session option bounding what an ORDER BY holds in memory.
inline constexpr const char* kSortMemoryLimitKey = "sql.sort.memory-limit";
// The session option bounding the build side of a hash join.
inline constexpr const char* kJoinMemoryLimitKey = "sql.join.memory-limit";
// The session option bounding what a hash aggregation holds: GROUP BY, DISTINCT (SELECT DISTINCT,
// aggregates' DISTINCT), UNION, INTERSECT and EXCEPT.
inline constexpr const char* kAggregateMemoryLimitKey = "sql.aggregate.memory-limit";
// Where ORDER BY and GROUP BY spill past their memory limits (Flink's key).
inline constexpr const char* kSpillDirsKey = "io.tmp.dirs";

// Plans the query and returns its operator tree: rows are read as the caller pulls them
// (operators.h), so a query without ORDER BY, GROUP BY or DISTINCT holds one batch at a time.
Result<std::unique_ptr<Operator>> OpenQuery(const QueryContext& session, const SelectStmt& q);
// A SELECT over one table in streaming mode: its changes as they are committed, each row led by
// an `op` column (+I, -U, +U, -D); the projection and simple filters go into the stream. Ends
// at its LIMIT, or once `idle_timeout` passes without a change (never without one).
Result<std::unique_ptr<Operator>> OpenStreamingQuery(
    const QueryContext& session, const SelectStmt& q,
    std::optional<std::chrono::milliseconds> idle_timeout);
// Every row of the query (for CREATE TABLE AS and INSERT ... SELECT).
Result<QueryResult> ExecuteQuery(const QueryContext& session, const SelectStmt& q);

// A few lines saying how the query reads its table: projection, pushed filters, limit.
Result<std::string> ExplainQuery(const QueryContext& session, const SelectStmt& q);

// Rows a chunk at a time: replaces *rows with the next chunk and returns true, or returns false
// when there are no more.
using RowChunks = std::function<Result<bool>(std::vector<Row>* rows)>;

// The rows of `table` (all columns) for which `where` is TRUE (all rows when null), a scan's
// batch at a time, reading through a scan with the pushed-down filters (its snapshot planned at
// the first chunk). For DELETE and UPDATE, which write each chunk as it comes. `table` must
// outlive the chunks.
Result<RowChunks> OpenMatchingRows(Table& table, const Expr* where,
                                   const std::map<std::string, std::string>& options);

// Validates /*+ OPTIONS(...) */ hints against the option table; returns canonical keys. An
// option not implemented yet is refused.
Result<std::map<std::string, std::string>> NormalizeHints(const OptionList& hints,
                                                          const TableSchema& schema);
// Paimon's 'branch' hint (/*+ OPTIONS('branch' = 'b') */): taken out of `hints` and set on `id`
// (as `t$branch_b` names it); 'main' names the main branch. An error when it names another
// branch than `id` does.
Status TakeBranchHint(OptionList* hints, Identifier* id);
// `text` ('YYYY-MM-DD HH:MM:SS[.fff]') read as a time of the session's zone
// ('table.local-time-zone'; unset: UTC), in epoch milliseconds.
Result<int64_t> SessionTimeToUtcMillis(const QueryContext& session, std::string_view text);

// Splits a predicate on its top-level ANDs.
void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out);

}  // namespace tributary::sql
