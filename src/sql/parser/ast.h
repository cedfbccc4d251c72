// The syntax tree the parser produces: unbound expressions and statements, with the position of
// every name and expression for error messages. Plain data; thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sql/parser/lexer.h"

namespace tributary::sql {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct SelectStmt;

enum class ExprKind {
  kLiteral,
  kColumn,    // names = [qualifier..., column]
  kStar,      // * or t.* (names = qualifier); only in select lists and COUNT(*)
  kUnary,     // op: "-", "+", "NOT"
  kBinary,    // op: + - * / % || = <> < <= > >= AND OR
  kFunction,  // op: upper-cased function name; distinct; star_arg for COUNT(*)
  kCase,      // args: [operand] (when, then)... [else]
  kCast,      // args[0]; type_text
  kIn,        // args[0] IN (args[1..]); negated
  kBetween,   // args[0] BETWEEN args[1] AND args[2]; negated
  kLike,      // args[0] LIKE args[1] [ESCAPE args[2]]; negated
  kIsNull,    // args[0] IS [NOT] NULL; negated
  kExists,    // [NOT] EXISTS (subquery); negated
  kSubquery,  // (subquery): its single value
};

// kBinary: X'hex', the hex digits as text.
enum class LiteralKind {
  kNull,
  kBool,
  kInteger,
  kDecimal,
  kFloat,
  kString,
  kDate,
  kTime,
  kTimestamp,
  kBinary
};

struct OrderItem;
struct WindowSpec;

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  Pos pos;
  int depth = 1;  // height of the tree below (bounded by the parser)
  LiteralKind literal_kind = LiteralKind::kNull;
  std::string text;  // literal text: digits, string value, "TRUE"/"FALSE"
  std::vector<std::string> names;
  std::string op;
  std::vector<ExprPtr> args;
  bool distinct = false;
  bool negated = false;
  bool star_arg = false;
  bool has_case_operand = false;
  bool has_else = false;
  std::string type_text;  // CAST target, as written (normalized spacing)
  Pos type_pos;
  std::shared_ptr<const WindowSpec> over;  // a window function call: f(...) OVER (...)
  // The query of kExists, kSubquery, and of kIn with a subquery (args then holds only the left
  // side).
  std::shared_ptr<const SelectStmt> subquery;

  ExprPtr Clone() const;
};

// Canonical SQL text of an expression: used to match GROUP BY expressions and in messages.
std::string ExprToString(const Expr& e);
// The same with every column name in backquotes, as Flink serializes an expression (a computed
// column's 'schema.N.expr' option): `price` * 2.
std::string ExprToSql(const Expr& e);

// A possibly qualified name: t, db.t, catalog.db.t (each part already unquoted).
struct QualifiedName {
  std::vector<std::string> parts;
  Pos pos;
  std::string ToString() const;
};

// ('k' = 'v', ...) as written, in order.
struct OptionEntry {
  std::string key;
  std::string value;
  Pos pos;
};
using OptionList = std::vector<OptionEntry>;

// PARTITION (k = 'v', ...): static partition values.
struct PartitionSpecEntry {
  std::string column;
  ExprPtr value;
  Pos pos;
};

struct TableRef {
  QualifiedName name;  // empty parts for a subquery
  // Made by the planner: the table's stored columns only (the SELECT that adds its computed
  // columns reads it so).
  bool raw = false;
  OptionList hints;  // /*+ OPTIONS(...) */
  Pos hints_pos;
  std::unique_ptr<SelectStmt> subquery;
  std::string alias;
  std::vector<std::string> column_aliases;    // AS x (a, b): the input's columns renamed
  ExprPtr system_time;                        // FOR SYSTEM_TIME AS OF <expr>
  std::vector<PartitionSpecEntry> partition;  // FROM t PARTITION (k = 'v')
  Pos pos;
};

// One join of a FROM clause; joins nest to the left: FROM a JOIN b ON ... JOIN c ON ... joins c
// to (a JOIN b). A comma (FROM a, b) is a CROSS join.
enum class JoinKind { kInner, kLeft, kRight, kFull, kCross };
struct JoinClause {
  JoinKind kind = JoinKind::kInner;
  TableRef table;
  ExprPtr on;  // the ON condition; null for CROSS, USING and NATURAL joins
  // JOIN ... USING (a, b): the columns both sides have, joined by equality and merged into one
  // column each; NATURAL JOIN: every column name both sides have.
  std::vector<std::string> using_columns;
  bool natural = false;
  Pos using_pos;
  Pos pos;  // the JOIN keyword (or the comma)
  // Made by the planner (a correlated subquery rewritten as a join): its columns are read by
  // qualified name only, never by `*`.
  bool hidden = false;
};

struct SelectItem {
  ExprPtr expr;  // kStar for * and t.*
  std::string alias;
  Pos pos;
};

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  std::optional<bool> nulls_first;
};

// One end of a window frame: UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW, n FOLLOWING,
// UNBOUNDED FOLLOWING.
struct FrameBound {
  enum class Kind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  Kind kind = Kind::kCurrentRow;
  int64_t offset = 0;  // n of n PRECEDING / FOLLOWING
  // INTERVAL '...' PRECEDING / FOLLOWING (RANGE frames over a time ORDER BY): `offset` counts
  // milliseconds, and `interval_text` is the interval as written.
  bool interval = false;
  std::string interval_text;
};

// OVER ([PARTITION BY ...] [ORDER BY ...] [ROWS | RANGE BETWEEN start AND end]).
struct WindowSpec {
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  bool has_frame = false;
  bool rows = false;  // ROWS (else RANGE)
  FrameBound start, end;
  Pos pos;
  std::string text;  // as written, normalized (ExprToString)
};

enum class StmtKind {
  kSelect,
  kCreateDatabase,
  kDropDatabase,
  kCreateTable,
  kDropTable,
  kCreateCatalog,
  kUseCatalog,
  kUse,
  kShow,
  kDescribe,
  kAlterTable,
  kInsert,
  kDelete,
  kUpdate,
  kSet,
  kReset,
  kCall,
  kExplain,
  kTruncate,
  kCreateView,
  kDropView,
  kStatementSet,       // EXECUTE STATEMENT SET BEGIN INSERT ...; ... END
  kBeginStatementSet,  // BEGIN STATEMENT SET (the SQL client's form; INSERTs follow until END)
  kEndStatementSet,    // END
};

struct Statement {
  explicit Statement(StmtKind k) : kind(k) {}
  virtual ~Statement() = default;
  StmtKind kind;
  Pos pos;
};
using StatementPtr = std::unique_ptr<Statement>;

// WITH name [(columns)] AS (query): a named query the statement's FROM clauses may read.
struct CommonTableExpr {
  std::string name;
  std::vector<std::string> columns;         // renames the query's columns; empty: its own names
  std::shared_ptr<const SelectStmt> query;  // shared: a temporary view outlives its statement
  Pos pos;
};

// One query of a UNION / INTERSECT / EXCEPT, and how it combines with the ones before it.
enum class SetOpKind { kUnion, kIntersect, kExcept };
struct SetOperand {
  SetOpKind kind = SetOpKind::kUnion;  // unused for the first operand
  bool all = false;                    // UNION ALL, ...: duplicates kept
  std::unique_ptr<SelectStmt> query;
  Pos pos;
};

// SELECT ... or VALUES (...), (...) (values non-empty, everything else unset), or a set
// operation (set_operands non-empty: then only order_by, limit, offset and with are used, and
// they apply to the combined rows).
struct SelectStmt : Statement {
  SelectStmt() : Statement(StmtKind::kSelect) {}
  std::vector<std::vector<ExprPtr>> values;
  bool distinct = false;
  std::vector<SelectItem> items;
  std::optional<TableRef> from;
  std::vector<JoinClause> joins;  // joined to `from`, in order
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<OrderItem> order_by;
  std::optional<int64_t> limit;
  int64_t offset = 0;
  std::vector<SetOperand> set_operands;
  std::vector<CommonTableExpr> with;
};

struct CreateDatabaseStmt : Statement {
  CreateDatabaseStmt() : Statement(StmtKind::kCreateDatabase) {}
  QualifiedName name;
  bool if_not_exists = false;
};

struct DropDatabaseStmt : Statement {
  DropDatabaseStmt() : Statement(StmtKind::kDropDatabase) {}
  QualifiedName name;
  bool if_exists = false;
  bool cascade = false;
};

struct ColumnDef {
  std::string name;
  Pos pos;
  std::string type_text;
  Pos type_pos;
  bool not_null = false;
  std::string comment;
  bool computed = false;             // name AS expr
  std::shared_ptr<const Expr> expr;  // of a computed column
};

struct CreateTableStmt : Statement {
  CreateTableStmt() : Statement(StmtKind::kCreateTable) {}
  QualifiedName name;
  bool if_not_exists = false;
  std::vector<ColumnDef> columns;
  std::vector<std::string> primary_key;
  std::vector<Pos> primary_key_pos;  // of each name
  std::vector<std::string> partition_by;
  std::vector<Pos> partition_by_pos;
  OptionList options;
  std::string comment;
  std::unique_ptr<SelectStmt> as_select;  // CREATE TABLE t AS SELECT ...
  // CREATE TABLE t [(...)] [WITH (...)] LIKE source [(like options)], as Flink: the source's
  // columns (then these), its primary key and partitioning unless EXCLUDING CONSTRAINTS /
  // PARTITIONS (or ALL), its options unless EXCLUDING OPTIONS, overwritten by WITH's (the
  // default, OVERWRITING OPTIONS) or, with INCLUDING OPTIONS, an error when both set a key.
  std::optional<QualifiedName> like;
  bool like_constraints = true;
  bool like_partitions = true;
  enum class LikeOptions { kOverwriting, kIncluding, kExcluding };
  LikeOptions like_options = LikeOptions::kOverwriting;
};

struct DropTableStmt : Statement {
  DropTableStmt() : Statement(StmtKind::kDropTable) {}
  QualifiedName name;
  bool if_exists = false;
};

struct CreateCatalogStmt : Statement {
  CreateCatalogStmt() : Statement(StmtKind::kCreateCatalog) {}
  std::string name;
  bool if_not_exists = false;
  OptionList options;
};

struct UseCatalogStmt : Statement {
  UseCatalogStmt() : Statement(StmtKind::kUseCatalog) {}
  std::string name;
};

struct UseStmt : Statement {
  UseStmt() : Statement(StmtKind::kUse) {}
  QualifiedName name;  // [catalog.]db
};

struct ShowStmt : Statement {
  enum class What {
    kDatabases,
    kTables,
    kCreateTable,
    kPartitions,
    kCatalogs,
    kCurrentDatabase,
    kCurrentCatalog,
    kFunctions,
    kColumns
  };
  ShowStmt() : Statement(StmtKind::kShow) {}
  What what = What::kDatabases;
  QualifiedName name;               // the table, or the database of SHOW TABLES FROM db
  std::optional<std::string> like;  // SHOW TABLES / COLUMNS ... LIKE 'pattern'
};

struct DescribeStmt : Statement {
  DescribeStmt() : Statement(StmtKind::kDescribe) {}
  QualifiedName name;
};

// One column change of ALTER TABLE: ADD / MODIFY a column definition (with FIRST or AFTER x),
// DROP a column, RENAME a column TO a new name.
struct AlterColumn {
  enum class Kind { kAdd, kDrop, kRename, kModify };
  Kind kind = Kind::kAdd;
  ColumnDef def;  // kAdd, kModify: name, type, NOT NULL, COMMENT; others: the name
  bool has_comment = false;
  std::string new_name;  // kRename
  bool first = false;    // FIRST
  std::string after;     // AFTER x
  Pos after_pos;
};

struct AlterTableStmt : Statement {
  enum class Action { kSet, kReset, kAddPartition, kDropPartition, kColumns, kRenameTable, kOther };
  AlterTableStmt() : Statement(StmtKind::kAlterTable) {}
  QualifiedName name;
  Action action = Action::kSet;
  std::vector<AlterColumn> columns;  // kColumns
  QualifiedName new_name;            // kRenameTable
  OptionList options;
  std::vector<std::string> reset_keys;
  std::vector<std::vector<PartitionSpecEntry>> partitions;  // DROP PARTITION (...), PARTITION (...)
  std::string other;  // the unsupported action's first words, for the message
};

struct InsertStmt : Statement {
  InsertStmt() : Statement(StmtKind::kInsert) {}
  QualifiedName name;
  OptionList hints;
  Pos hints_pos;
  bool overwrite = false;
  std::vector<PartitionSpecEntry> partition;
  bool has_partition = false;
  std::vector<std::string> columns;
  std::vector<Pos> column_pos;
  std::unique_ptr<SelectStmt> source;
};

// CREATE [TEMPORARY] VIEW [IF NOT EXISTS] v [(a, b)] AS query.
struct CreateViewStmt : Statement {
  CreateViewStmt() : Statement(StmtKind::kCreateView) {}
  QualifiedName name;
  bool temporary = false;
  bool if_not_exists = false;
  std::vector<std::string> columns;
  std::shared_ptr<const SelectStmt> query;
};

// DROP [TEMPORARY] VIEW [IF EXISTS] v.
struct DropViewStmt : Statement {
  DropViewStmt() : Statement(StmtKind::kDropView) {}
  QualifiedName name;
  bool temporary = false;
  bool if_exists = false;
};

// EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END: the INSERTs run together, and are
// committed only if every one of them wrote its rows.
struct StatementSetStmt : Statement {
  StatementSetStmt() : Statement(StmtKind::kStatementSet) {}
  std::vector<std::unique_ptr<InsertStmt>> inserts;
};

// TRUNCATE TABLE t: every row goes (an OVERWRITE commit that writes nothing).
struct TruncateStmt : Statement {
  TruncateStmt() : Statement(StmtKind::kTruncate) {}
  QualifiedName name;
};

struct DeleteStmt : Statement {
  DeleteStmt() : Statement(StmtKind::kDelete) {}
  QualifiedName name;
  OptionList hints;
  Pos hints_pos;
  ExprPtr where;
};

struct Assignment {
  std::string column;
  Pos pos;
  ExprPtr value;
};

struct UpdateStmt : Statement {
  UpdateStmt() : Statement(StmtKind::kUpdate) {}
  QualifiedName name;
  OptionList hints;
  Pos hints_pos;
  std::vector<Assignment> assignments;
  ExprPtr where;
};

struct SetStmt : Statement {
  SetStmt() : Statement(StmtKind::kSet) {}
  std::optional<std::string> key;  // unset: SET lists the session options
  std::string value;
  Pos key_pos;
};

struct ResetStmt : Statement {
  ResetStmt() : Statement(StmtKind::kReset) {}
  std::optional<std::string> key;  // unset: RESET clears every session option
  Pos key_pos;
};

struct CallArg {
  std::string name;  // named argument (`table` => 'db.t'), else empty
  ExprPtr value;
};

struct CallStmt : Statement {
  CallStmt() : Statement(StmtKind::kCall) {}
  QualifiedName procedure;
  std::vector<CallArg> args;
};

struct ExplainStmt : Statement {
  ExplainStmt() : Statement(StmtKind::kExplain) {}
  StatementPtr inner;
};

}  // namespace tributary::sql
