// Computed columns (Flink's `name AS expression` in CREATE TABLE), stored as Paimon's Flink catalog
// stores them, in the table's options: 'schema.<position>.name', 'schema.<position>.data-type' and
// 'schema.<position>.expr' (the expression in Flink SQL, column names in backquotes), <position>
// counting every column of the table in declared order. The data files hold only the stored
// columns; a query reads the table through a SELECT that computes the others.
// Thread-safety: stateless functions.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sql/ast.h"
#include "tributary/result.h"
#include "tributary/types.h"

namespace tributary::sql {

struct ComputedColumn {
  int position = 0;  // among all the table's columns (stored and computed), in declared order
  std::string name;
  DataType type;
  std::string expr;  // Flink SQL text
};

// The computed columns a table's options declare, by position; an error names a malformed key.
Result<std::vector<ComputedColumn>> ComputedColumnsOf(
    const std::map<std::string, std::string>& options);

// The options recording `column` at `position`.
void PutComputedColumn(const ComputedColumn& column, std::map<std::string, std::string>* options);

// SELECT <every column of the table, in declared order> FROM <ref, its stored columns only>:
// how a query reads a table with computed columns. `stored`: the table's stored columns.
Result<std::shared_ptr<SelectStmt>> ComputedColumnsQuery(const TableRef& ref,
                                                         const std::vector<Field>& stored,
                                                         const std::vector<ComputedColumn>& computed);

}  // namespace tributary::sql
