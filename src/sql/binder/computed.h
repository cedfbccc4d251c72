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

#include "sql/parser/ast.h"
#include "tributary/catalog.h"
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

// ALTER TABLE column changes on a table whose options record computed (or metadata) columns at
// positions among all its columns: the changes of the stored columns (FIRST / AFTER read
// against all columns: an AFTER naming a computed column becomes AFTER the stored column before
// it), and the options that record the other columns at their positions afterwards. A computed
// column may be dropped, renamed, moved, or given another expression (MODIFY c AS expr); it does
// not become a stored column nor a stored one a computed column; a stored column a computed
// column reads is not dropped, renamed or given another type (as Flink refuses).
struct ComputedAlter {
  std::vector<ColumnChange> stored;
  std::map<std::string, std::string> set_options;
  std::vector<std::string> reset_options;
};
// `added[i]`, when set, makes changes[i] (a kAdd, or a kModify of a computed column) the
// computed column it describes (its position read from the change's FIRST / AFTER).
Result<ComputedAlter> PlanComputedAlter(
    const std::vector<Field>& stored, const std::map<std::string, std::string>& options,
    const std::vector<ColumnChange>& changes,
    const std::vector<std::optional<ComputedColumn>>& added = {});

// Computed column `name AS e` over the stored columns `stored`: its type, from binding `e`, and
// its expression as the SQL text stored for it; aggregates, window functions, subqueries,
// computed columns (`computed_names`) and forms whose text does not read back alike are errors.
Result<ComputedColumn> BindComputedColumn(const std::string& name, const Expr& e,
                                          const std::vector<Field>& stored,
                                          const std::vector<std::string>& computed_names);

// SELECT <every column of the table, in declared order> FROM <ref, its stored columns only>:
// how a query reads a table with computed columns. `stored`: the table's stored columns.
Result<std::shared_ptr<SelectStmt>> ComputedColumnsQuery(
    const TableRef& ref, const std::vector<Field>& stored,
    const std::vector<ComputedColumn>& computed);

}  // namespace tributary::sql
