// The query executor: SELECT and VALUES over data tables, system tables and subqueries. It binds
// the query, pushes the projection, simple filters and LIMIT into Table::NewScan, then filters,
// groups, sorts and limits the rows in memory.
// Thread-safety: stateless functions; the session is used by one thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sql/ast.h"
#include "sql/session.h"
#include "tributary/table.h"

namespace tributary::sql {

Result<QueryResult> ExecuteQuery(const Session& session, const SelectStmt& q);

// A few lines saying how the query reads its table: projection, pushed filters, limit.
Result<std::string> ExplainQuery(const Session& session, const SelectStmt& q);

// Every row of `table` (all columns) for which `where` is TRUE (all rows when null), reading
// through a scan with the pushed-down filters. For DELETE and UPDATE.
Result<std::vector<Row>> ReadMatchingRows(Table& table, const Expr* where,
                                          const std::map<std::string, std::string>& options);

// Validates /*+ OPTIONS(...) */ hints against the option table; returns canonical keys.
Result<std::map<std::string, std::string>> NormalizeHints(const OptionList& hints,
                                                          const TableSchema& schema);

// Splits a predicate on its top-level ANDs.
void SplitConjuncts(const Expr& e, std::vector<const Expr*>* out);

}  // namespace tributary::sql
