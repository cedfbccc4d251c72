#include "sql/parser.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace tributary::sql {

namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Words that end an expression or a table reference, so they cannot be an alias without AS.
bool IsReserved(const Token& t) {
  static const std::set<std::string> kReserved = {
      "FROM",   "WHERE",  "GROUP", "ORDER",    "HAVING", "LIMIT",   "OFFSET",  "UNION",
      "EXCEPT", "MINUS",  "INTERSECT", "JOIN", "INNER",  "LEFT",    "RIGHT",   "FULL",
      "CROSS",  "ON",     "AS",    "AND",      "OR",     "NOT",     "IS",      "IN",
      "BETWEEN", "LIKE",  "SELECT", "VALUES",  "WINDOW", "FOR",     "USING",   "WHEN",
      "THEN",   "ELSE",   "END",   "PARTITION", "NATURAL", "ASC",   "DESC",    "NULLS",
      "LATERAL", "FETCH", "WITH",  "SET",      "ESCAPE"};
  return t.type == TokenType::kWord && kReserved.count(Upper(t.text)) > 0;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<StatementPtr> ParseTop();
  Result<ExprPtr> ParseExpressionTop() {
    TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
    TRIB_RETURN_NOT_OK(ExpectEnd());
    return e;
  }

 private:
  // ---- token helpers
  const Token& Peek(size_t ahead = 0) const {
    size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool AcceptKeyword(std::string_view kw) {
    if (!Peek().Is(kw)) return false;
    Next();
    return true;
  }
  bool AcceptSymbol(std::string_view s) {
    if (!Peek().IsSymbol(s)) return false;
    Next();
    return true;
  }
  Status Unexpected(const std::string& expected) const {
    return ErrorAt(Peek().pos, "expected " + expected + " but found " + Peek().Describe());
  }
  Status ExpectKeyword(std::string_view kw) {
    if (AcceptKeyword(kw)) return Status::OK();
    return Unexpected(std::string(kw));
  }
  Status ExpectSymbol(std::string_view s) {
    if (AcceptSymbol(s)) return Status::OK();
    return Unexpected("'" + std::string(s) + "'");
  }
  Status ExpectEnd() {
    if (Peek().type == TokenType::kEnd) return Status::OK();
    return Unexpected("end of statement");
  }

  // ---- names
  Result<std::string> ParseIdentifier(const char* what = "an identifier") {
    const Token& t = Peek();
    if (t.type == TokenType::kWord || t.type == TokenType::kQuotedIdentifier) {
      return Next().text;
    }
    return Unexpected(what);
  }
  Result<QualifiedName> ParseQualifiedName(const char* what = "a name") {
    QualifiedName n;
    n.pos = Peek().pos;
    TRIB_ASSIGN_OR_RETURN(std::string first, ParseIdentifier(what));
    n.parts.push_back(std::move(first));
    while (Peek().IsSymbol(".")) {
      Next();
      TRIB_ASSIGN_OR_RETURN(std::string part, ParseIdentifier(what));
      n.parts.push_back(std::move(part));
    }
    if (n.parts.size() > 3) return ErrorAt(n.pos, "too many parts in name '" + n.ToString() + "'");
    return n;
  }
  Result<std::vector<std::string>> ParseNameList(std::vector<Pos>* positions = nullptr) {
    TRIB_RETURN_NOT_OK(ExpectSymbol("("));
    std::vector<std::string> names;
    do {
      if (positions) positions->push_back(Peek().pos);
      TRIB_ASSIGN_OR_RETURN(std::string n, ParseIdentifier("a column name"));
      names.push_back(std::move(n));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    return names;
  }
  Result<std::string> ParseStringLiteral(const char* what) {
    if (Peek().type != TokenType::kString) return Unexpected(what);
    return Next().text;
  }
  // ('k' = 'v', ...)
  Result<OptionList> ParseOptionList() {
    TRIB_RETURN_NOT_OK(ExpectSymbol("("));
    OptionList out;
    if (AcceptSymbol(")")) return out;
    do {
      OptionEntry e;
      e.pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(e.key, ParseStringLiteral("an option key string"));
      TRIB_RETURN_NOT_OK(ExpectSymbol("="));
      TRIB_ASSIGN_OR_RETURN(e.value, ParseStringLiteral("an option value string"));
      for (const auto& prev : out) {
        if (prev.key == e.key) return ErrorAt(e.pos, "option '" + e.key + "' is given twice");
      }
      out.push_back(std::move(e));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    return out;
  }
  // /*+ OPTIONS('k' = 'v') */ after a table name; absent hints leave `out` empty.
  Status ParseHints(OptionList* out, Pos* pos) {
    while (Peek().type == TokenType::kHintStart) {
      *pos = Next().pos;
      do {
        const Token& name = Peek();
        if (name.type != TokenType::kWord) return Unexpected("a hint name such as OPTIONS");
        if (!name.Is("OPTIONS")) {
          std::string hint = name.text;
          std::string msg = "unknown hint '" + hint + "'";
          if (Upper(hint) == "OPTION") msg += "; did you mean 'OPTIONS'?";
          else msg += "; the supported hint is OPTIONS('key' = 'value', ...)";
          return ErrorAt(name.pos, msg);
        }
        Next();
        TRIB_ASSIGN_OR_RETURN(OptionList opts, ParseOptionList());
        for (auto& o : opts) out->push_back(std::move(o));
      } while (AcceptSymbol(","));
      if (Peek().type != TokenType::kHintEnd) return Unexpected("'*/' closing the hint");
      Next();
    }
    return Status::OK();
  }
  Result<std::vector<PartitionSpecEntry>> ParsePartitionSpec() {
    TRIB_RETURN_NOT_OK(ExpectSymbol("("));
    std::vector<PartitionSpecEntry> out;
    do {
      PartitionSpecEntry e;
      e.pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(e.column, ParseIdentifier("a partition column"));
      TRIB_RETURN_NOT_OK(ExpectSymbol("="));
      TRIB_ASSIGN_OR_RETURN(e.value, ParseUnary());
      out.push_back(std::move(e));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    return out;
  }
  // A type as written: INT, DECIMAL(10, 2), TIMESTAMP(3) WITH LOCAL TIME ZONE, ARRAY<INT>.
  Result<std::string> ParseTypeText(Pos* pos) {
    *pos = Peek().pos;
    if (Peek().type != TokenType::kWord) return Unexpected("a type name");
    std::string out = Upper(Next().text);
    if ((out == "DOUBLE" && Peek().Is("PRECISION")) ||
        ((out == "CHARACTER" || out == "CHAR") && Peek().Is("VARYING"))) {
      out += " " + Upper(Next().text);
    }
    if (Peek().IsSymbol("(")) {
      Next();
      out += "(";
      bool first = true;
      while (!Peek().IsSymbol(")")) {
        if (!first) {
          TRIB_RETURN_NOT_OK(ExpectSymbol(","));
          out += ", ";
        }
        first = false;
        const Token& t = Peek();
        if (t.type != TokenType::kInteger && t.type != TokenType::kWord) {
          return Unexpected("a type parameter");
        }
        out += Next().text;
      }
      Next();
      out += ")";
    }
    if (Peek().IsSymbol("<")) {
      int depth = 0;
      do {
        const Token& t = Next();
        if (t.type == TokenType::kEnd) return Unexpected("'>'");
        if (t.IsSymbol("<")) ++depth;
        if (t.IsSymbol(">")) --depth;
        if (t.IsSymbol(",")) {
          out += ", ";
        } else {
          if (!out.empty() && std::isalnum(static_cast<unsigned char>(out.back())) &&
              t.type == TokenType::kWord) {
            out += " ";
          }
          out += t.type == TokenType::kWord ? Upper(t.text) : t.text;
        }
      } while (depth > 0);
    }
    while (Peek().Is("WITH") || Peek().Is("WITHOUT")) {
      // WITH LOCAL TIME ZONE / WITHOUT TIME ZONE / WITH TIME ZONE
      if (!(Peek(1).Is("LOCAL") || Peek(1).Is("TIME"))) break;
      out += " " + Upper(Next().text);
      while (Peek().Is("LOCAL") || Peek().Is("TIME") || Peek().Is("ZONE")) {
        out += " " + Upper(Next().text);
      }
    }
    return out;
  }

  // ---- statements
  Result<StatementPtr> ParseCreate();
  Result<StatementPtr> ParseCreateTable(Pos start);
  Result<StatementPtr> ParseDrop();
  Result<StatementPtr> ParseAlter();
  Result<StatementPtr> ParseShow();
  Result<StatementPtr> ParseInsert();
  Result<StatementPtr> ParseDelete();
  Result<StatementPtr> ParseUpdate();
  Result<StatementPtr> ParseSet();
  Result<StatementPtr> ParseCall();
  Result<std::unique_ptr<SelectStmt>> ParseQuery();
  Result<std::unique_ptr<SelectStmt>> ParseSelect();
  Result<TableRef> ParseTableRef();

  // ---- expressions
  Result<ExprPtr> ParseExpr() { return ParseOr(); }
  Result<ExprPtr> ParseOr();
  Result<ExprPtr> ParseAnd();
  Result<ExprPtr> ParseNot();
  Result<ExprPtr> ParseComparison();
  Result<ExprPtr> ParseConcat();
  Result<ExprPtr> ParseAdditive();
  Result<ExprPtr> ParseMultiplicative();
  Result<ExprPtr> ParseUnary();
  Result<ExprPtr> ParsePrimary();
  Result<ExprPtr> ParseFunction(const Token& name);
  Result<ExprPtr> ParseCase(Pos pos);

  static ExprPtr MakeBinary(std::string op, ExprPtr l, ExprPtr r, Pos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kBinary;
    e->op = std::move(op);
    e->pos = pos;
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

Result<StatementPtr> Parser::ParseTop() {
  const Token& t = Peek();
  Pos start = t.pos;
  StatementPtr stmt;
  if (t.Is("SELECT") || t.Is("VALUES") || t.IsSymbol("(")) {
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
    stmt = std::move(q);
  } else if (t.Is("WITH")) {
    return NotSupportedAt(t.pos, "WITH (common table expressions) is not supported yet");
  } else if (t.Is("CREATE")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseCreate());
  } else if (t.Is("DROP")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseDrop());
  } else if (t.Is("ALTER")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseAlter());
  } else if (t.Is("USE")) {
    Next();
    if (AcceptKeyword("CATALOG")) {
      auto s = std::make_unique<UseCatalogStmt>();
      TRIB_ASSIGN_OR_RETURN(s->name, ParseIdentifier("a catalog name"));
      stmt = std::move(s);
    } else {
      auto s = std::make_unique<UseStmt>();
      TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a database name"));
      if (s->name.parts.size() > 2) return ErrorAt(s->name.pos, "expected [catalog.]database");
      stmt = std::move(s);
    }
  } else if (t.Is("SHOW")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseShow());
  } else if (t.Is("DESCRIBE") || t.Is("DESC")) {
    Next();
    AcceptKeyword("EXTENDED");
    auto s = std::make_unique<DescribeStmt>();
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
    stmt = std::move(s);
  } else if (t.Is("INSERT")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseInsert());
  } else if (t.Is("DELETE")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseDelete());
  } else if (t.Is("UPDATE")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseUpdate());
  } else if (t.Is("SET")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseSet());
  } else if (t.Is("RESET")) {
    Next();
    auto s = std::make_unique<ResetStmt>();
    if (Peek().type != TokenType::kEnd) {
      s->key_pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(std::string key, ParseStringLiteral("an option key string"));
      s->key = std::move(key);
    }
    stmt = std::move(s);
  } else if (t.Is("CALL")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseCall());
  } else if (t.Is("EXPLAIN")) {
    Next();
    if (AcceptKeyword("PLAN")) TRIB_RETURN_NOT_OK(ExpectKeyword("FOR"));
    auto s = std::make_unique<ExplainStmt>();
    TRIB_ASSIGN_OR_RETURN(s->inner, ParseTop());
    return StatementPtr(std::move(s));
  } else {
    return Unexpected("a statement (SELECT, INSERT, CREATE, ...)");
  }
  stmt->pos = start;
  TRIB_RETURN_NOT_OK(ExpectEnd());
  return stmt;
}

Result<StatementPtr> Parser::ParseCreate() {
  Pos start = Next().pos;  // CREATE
  AcceptKeyword("TEMPORARY");
  if (AcceptKeyword("TABLE")) return ParseCreateTable(start);
  if (AcceptKeyword("DATABASE") || AcceptKeyword("SCHEMA")) {
    auto s = std::make_unique<CreateDatabaseStmt>();
    if (AcceptKeyword("IF")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("NOT"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      s->if_not_exists = true;
    }
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a database name"));
    if (s->name.parts.size() > 2) return ErrorAt(s->name.pos, "expected [catalog.]database");
    if (AcceptKeyword("COMMENT")) {
      TRIB_ASSIGN_OR_RETURN(std::string ignored, ParseStringLiteral("a comment string"));
    }
    if (Peek().Is("WITH")) {
      Next();
      TRIB_ASSIGN_OR_RETURN(OptionList ignored, ParseOptionList());
    }
    return StatementPtr(std::move(s));
  }
  if (AcceptKeyword("CATALOG")) {
    auto s = std::make_unique<CreateCatalogStmt>();
    if (AcceptKeyword("IF")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("NOT"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      s->if_not_exists = true;
    }
    TRIB_ASSIGN_OR_RETURN(s->name, ParseIdentifier("a catalog name"));
    TRIB_RETURN_NOT_OK(ExpectKeyword("WITH"));
    TRIB_ASSIGN_OR_RETURN(s->options, ParseOptionList());
    return StatementPtr(std::move(s));
  }
  if (Peek().Is("VIEW") || Peek().Is("FUNCTION")) {
    return NotSupportedAt(Peek().pos, "CREATE " + Upper(Peek().text) + " is not supported yet");
  }
  return Unexpected("TABLE, DATABASE or CATALOG after CREATE");
}

Result<StatementPtr> Parser::ParseCreateTable(Pos start) {
  auto s = std::make_unique<CreateTableStmt>();
  if (AcceptKeyword("IF")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("NOT"));
    TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
    s->if_not_exists = true;
  }
  TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  if (Peek().Is("LIKE")) {
    return NotSupportedAt(Peek().pos, "CREATE TABLE ... LIKE is not supported yet");
  }
  if (AcceptSymbol("(")) {
    do {
      const Token& t = Peek();
      if (t.Is("PRIMARY") || t.Is("CONSTRAINT")) {
        if (AcceptKeyword("CONSTRAINT")) {
          TRIB_ASSIGN_OR_RETURN(std::string ignored, ParseIdentifier("a constraint name"));
        }
        Pos p = Peek().pos;
        TRIB_RETURN_NOT_OK(ExpectKeyword("PRIMARY"));
        TRIB_RETURN_NOT_OK(ExpectKeyword("KEY"));
        if (!s->primary_key.empty()) return ErrorAt(p, "duplicate PRIMARY KEY");
        TRIB_ASSIGN_OR_RETURN(s->primary_key, ParseNameList(&s->primary_key_pos));
        if (AcceptKeyword("NOT")) TRIB_RETURN_NOT_OK(ExpectKeyword("ENFORCED"));
        continue;
      }
      if (t.Is("WATERMARK")) {
        return NotSupportedAt(t.pos, "WATERMARK is not supported yet");
      }
      ColumnDef col;
      col.pos = t.pos;
      TRIB_ASSIGN_OR_RETURN(col.name, ParseIdentifier("a column name"));
      if (Peek().Is("AS")) {
        return NotSupportedAt(col.pos, "computed column '" + col.name +
                                           "' (name AS expression, e.g. AS PROCTIME()) is not "
                                           "supported yet");
      }
      TRIB_ASSIGN_OR_RETURN(col.type_text, ParseTypeText(&col.type_pos));
      while (true) {
        if (Peek().Is("NOT") && Peek(1).Is("NULL")) {
          Next();
          Next();
          col.not_null = true;
        } else if (AcceptKeyword("NULL")) {
          col.not_null = false;
        } else if (Peek().Is("PRIMARY")) {
          Pos p = Next().pos;
          TRIB_RETURN_NOT_OK(ExpectKeyword("KEY"));
          if (AcceptKeyword("NOT")) TRIB_RETURN_NOT_OK(ExpectKeyword("ENFORCED"));
          if (!s->primary_key.empty()) return ErrorAt(p, "duplicate PRIMARY KEY");
          s->primary_key = {col.name};
          s->primary_key_pos = {col.pos};
        } else if (AcceptKeyword("COMMENT")) {
          TRIB_ASSIGN_OR_RETURN(col.comment, ParseStringLiteral("a comment string"));
        } else if (Peek().Is("METADATA")) {
          return NotSupportedAt(Peek().pos, "METADATA columns are not supported yet");
        } else {
          break;
        }
      }
      s->columns.push_back(std::move(col));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  }
  while (true) {
    if (AcceptKeyword("COMMENT")) {
      TRIB_ASSIGN_OR_RETURN(s->comment, ParseStringLiteral("a comment string"));
    } else if (Peek().Is("PARTITIONED")) {
      Next();
      TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
      TRIB_ASSIGN_OR_RETURN(s->partition_by, ParseNameList(&s->partition_by_pos));
    } else if (Peek().Is("WITH") || Peek().Is("TBLPROPERTIES")) {
      Next();
      TRIB_ASSIGN_OR_RETURN(s->options, ParseOptionList());
    } else if (AcceptKeyword("AS")) {
      TRIB_ASSIGN_OR_RETURN(s->as_select, ParseQuery());
      break;
    } else {
      break;
    }
  }
  if (s->columns.empty() && !s->as_select) {
    return ErrorAt(s->name.pos, "CREATE TABLE needs a column list or AS SELECT");
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseDrop() {
  Next();  // DROP
  AcceptKeyword("TEMPORARY");
  if (AcceptKeyword("TABLE")) {
    auto s = std::make_unique<DropTableStmt>();
    if (AcceptKeyword("IF")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      s->if_exists = true;
    }
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
    return StatementPtr(std::move(s));
  }
  if (AcceptKeyword("DATABASE") || AcceptKeyword("SCHEMA")) {
    auto s = std::make_unique<DropDatabaseStmt>();
    if (AcceptKeyword("IF")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      s->if_exists = true;
    }
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a database name"));
    if (s->name.parts.size() > 2) return ErrorAt(s->name.pos, "expected [catalog.]database");
    if (AcceptKeyword("CASCADE")) {
      s->cascade = true;
    } else {
      AcceptKeyword("RESTRICT");
    }
    return StatementPtr(std::move(s));
  }
  if (Peek().Is("CATALOG") || Peek().Is("VIEW") || Peek().Is("FUNCTION")) {
    return NotSupportedAt(Peek().pos, "DROP " + Upper(Peek().text) + " is not supported yet");
  }
  return Unexpected("TABLE or DATABASE after DROP");
}

Result<StatementPtr> Parser::ParseAlter() {
  Next();  // ALTER
  TRIB_RETURN_NOT_OK(ExpectKeyword("TABLE"));
  auto s = std::make_unique<AlterTableStmt>();
  TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  const Token& t = Peek();
  if (AcceptKeyword("SET")) {
    s->action = AlterTableStmt::Action::kSet;
    TRIB_ASSIGN_OR_RETURN(s->options, ParseOptionList());
    if (s->options.empty()) return ErrorAt(t.pos, "ALTER TABLE ... SET needs at least one option");
  } else if (AcceptKeyword("RESET")) {
    s->action = AlterTableStmt::Action::kReset;
    TRIB_RETURN_NOT_OK(ExpectSymbol("("));
    do {
      TRIB_ASSIGN_OR_RETURN(std::string key, ParseStringLiteral("an option key string"));
      s->reset_keys.push_back(std::move(key));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  } else if ((t.Is("ADD") || t.Is("DROP")) && Peek(1).Is("PARTITION")) {
    s->action = t.Is("ADD") ? AlterTableStmt::Action::kAddPartition
                            : AlterTableStmt::Action::kDropPartition;
    s->other = Upper(t.text) + " PARTITION";
    Next();
    Next();
    TRIB_ASSIGN_OR_RETURN(std::vector<PartitionSpecEntry> ignored, ParsePartitionSpec());
  } else if (t.type == TokenType::kWord) {
    s->action = AlterTableStmt::Action::kOther;
    s->other = Upper(t.text);
    // Skip the rest: the executor reports the action as not supported.
    while (Peek().type != TokenType::kEnd) Next();
  } else {
    return Unexpected("SET, RESET, ADD PARTITION or DROP PARTITION");
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseShow() {
  Next();  // SHOW
  auto s = std::make_unique<ShowStmt>();
  if (AcceptKeyword("DATABASES") || AcceptKeyword("SCHEMAS")) {
    s->what = ShowStmt::What::kDatabases;
  } else if (AcceptKeyword("TABLES")) {
    s->what = ShowStmt::What::kTables;
    if (AcceptKeyword("FROM") || AcceptKeyword("IN")) {
      TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a database name"));
    }
  } else if (AcceptKeyword("CATALOGS")) {
    s->what = ShowStmt::What::kCatalogs;
  } else if (AcceptKeyword("CURRENT")) {
    if (AcceptKeyword("DATABASE")) {
      s->what = ShowStmt::What::kCurrentDatabase;
    } else {
      TRIB_RETURN_NOT_OK(ExpectKeyword("CATALOG"));
      s->what = ShowStmt::What::kCurrentCatalog;
    }
  } else if (AcceptKeyword("CREATE")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    s->what = ShowStmt::What::kCreateTable;
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  } else if (AcceptKeyword("PARTITIONS")) {
    s->what = ShowStmt::What::kPartitions;
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  } else {
    return Unexpected("DATABASES, TABLES, CATALOGS, CREATE TABLE or PARTITIONS after SHOW");
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseInsert() {
  Next();  // INSERT
  auto s = std::make_unique<InsertStmt>();
  if (AcceptKeyword("OVERWRITE")) {
    s->overwrite = true;
  } else if (!AcceptKeyword("INTO")) {
    return Unexpected("INTO or OVERWRITE after INSERT");
  }
  AcceptKeyword("TABLE");
  TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  TRIB_RETURN_NOT_OK(ParseHints(&s->hints, &s->hints_pos));
  if (AcceptKeyword("PARTITION")) {
    s->has_partition = true;
    TRIB_ASSIGN_OR_RETURN(s->partition, ParsePartitionSpec());
  }
  if (Peek().IsSymbol("(") && !Peek(1).Is("SELECT") && !Peek(1).Is("VALUES")) {
    TRIB_ASSIGN_OR_RETURN(s->columns, ParseNameList(&s->column_pos));
  }
  TRIB_ASSIGN_OR_RETURN(s->source, ParseQuery());
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseDelete() {
  Next();  // DELETE
  TRIB_RETURN_NOT_OK(ExpectKeyword("FROM"));
  auto s = std::make_unique<DeleteStmt>();
  TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  TRIB_RETURN_NOT_OK(ParseHints(&s->hints, &s->hints_pos));
  if (AcceptKeyword("WHERE")) {
    TRIB_ASSIGN_OR_RETURN(s->where, ParseExpr());
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseUpdate() {
  Next();  // UPDATE
  auto s = std::make_unique<UpdateStmt>();
  TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
  TRIB_RETURN_NOT_OK(ParseHints(&s->hints, &s->hints_pos));
  TRIB_RETURN_NOT_OK(ExpectKeyword("SET"));
  do {
    Assignment a;
    a.pos = Peek().pos;
    TRIB_ASSIGN_OR_RETURN(a.column, ParseIdentifier("a column name"));
    TRIB_RETURN_NOT_OK(ExpectSymbol("="));
    TRIB_ASSIGN_OR_RETURN(a.value, ParseExpr());
    s->assignments.push_back(std::move(a));
  } while (AcceptSymbol(","));
  if (AcceptKeyword("WHERE")) {
    TRIB_ASSIGN_OR_RETURN(s->where, ParseExpr());
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseSet() {
  Next();  // SET
  auto s = std::make_unique<SetStmt>();
  if (Peek().type == TokenType::kEnd) return StatementPtr(std::move(s));
  s->key_pos = Peek().pos;
  if (Peek().type == TokenType::kString) {
    s->key = Next().text;
  } else {
    // SET execution.runtime-mode = batch: glue the tokens up to '='.
    std::string key;
    while (Peek().type != TokenType::kEnd && !Peek().IsSymbol("=")) key += Next().text;
    if (key.empty()) return Unexpected("an option key");
    s->key = key;
  }
  TRIB_RETURN_NOT_OK(ExpectSymbol("="));
  if (Peek().type == TokenType::kString) {
    s->value = Next().text;
  } else {
    std::string value;
    while (Peek().type != TokenType::kEnd) value += Next().text;
    if (value.empty()) return Unexpected("a value");
    s->value = value;
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseCall() {
  Next();  // CALL
  auto s = std::make_unique<CallStmt>();
  TRIB_ASSIGN_OR_RETURN(s->procedure, ParseQualifiedName("a procedure name"));
  TRIB_RETURN_NOT_OK(ExpectSymbol("("));
  if (!AcceptSymbol(")")) {
    do {
      CallArg arg;
      if ((Peek().type == TokenType::kWord || Peek().type == TokenType::kQuotedIdentifier) &&
          Peek(1).IsSymbol("=>")) {
        arg.name = Next().text;
        Next();
      }
      TRIB_ASSIGN_OR_RETURN(arg.value, ParseExpr());
      s->args.push_back(std::move(arg));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  }
  return StatementPtr(std::move(s));
}

Result<std::unique_ptr<SelectStmt>> Parser::ParseQuery() {
  std::unique_ptr<SelectStmt> q;
  if (Peek().IsSymbol("(")) {
    Next();
    TRIB_ASSIGN_OR_RETURN(q, ParseQuery());
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  } else if (Peek().Is("VALUES")) {
    q = std::make_unique<SelectStmt>();
    q->pos = Next().pos;
    do {
      std::vector<ExprPtr> row;
      Pos row_pos = Peek().pos;
      if (AcceptSymbol("(")) {
        do {
          TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
          row.push_back(std::move(e));
        } while (AcceptSymbol(","));
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
      } else {
        TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
        row.push_back(std::move(e));
      }
      if (!q->values.empty() && row.size() != q->values[0].size()) {
        return ErrorAt(row_pos, "VALUES rows have different numbers of columns (" +
                                    std::to_string(q->values[0].size()) + " and " +
                                    std::to_string(row.size()) + ")");
      }
      q->values.push_back(std::move(row));
    } while (AcceptSymbol(","));
  } else if (Peek().Is("SELECT")) {
    TRIB_ASSIGN_OR_RETURN(q, ParseSelect());
  } else {
    return Unexpected("SELECT or VALUES");
  }
  if (Peek().Is("UNION") || Peek().Is("EXCEPT") || Peek().Is("INTERSECT") ||
      Peek().Is("MINUS")) {
    return NotSupportedAt(Peek().pos, Upper(Peek().text) + " is not supported yet");
  }
  return q;
}

Result<std::unique_ptr<SelectStmt>> Parser::ParseSelect() {
  auto q = std::make_unique<SelectStmt>();
  q->pos = Next().pos;  // SELECT
  if (AcceptKeyword("DISTINCT")) {
    q->distinct = true;
  } else {
    AcceptKeyword("ALL");
  }
  do {
    SelectItem item;
    item.pos = Peek().pos;
    TRIB_ASSIGN_OR_RETURN(item.expr, ParseExpr());
    if (AcceptKeyword("AS")) {
      TRIB_ASSIGN_OR_RETURN(item.alias, ParseIdentifier("an alias"));
    } else if ((Peek().type == TokenType::kWord && !IsReserved(Peek())) ||
               Peek().type == TokenType::kQuotedIdentifier) {
      item.alias = Next().text;
    } else if (Peek().type == TokenType::kString) {
      item.alias = Next().text;
    }
    if (item.expr->kind == ExprKind::kStar && !item.alias.empty()) {
      return ErrorAt(item.pos, "'*' cannot have an alias");
    }
    q->items.push_back(std::move(item));
  } while (AcceptSymbol(","));
  if (AcceptKeyword("FROM")) {
    TRIB_ASSIGN_OR_RETURN(TableRef ref, ParseTableRef());
    q->from = std::move(ref);
    const Token& t = Peek();
    if (t.IsSymbol(",") || t.Is("JOIN") || t.Is("INNER") || t.Is("LEFT") || t.Is("RIGHT") ||
        t.Is("FULL") || t.Is("CROSS") || t.Is("NATURAL")) {
      return NotSupportedAt(t.pos, "joins are not supported yet");
    }
  }
  if (AcceptKeyword("WHERE")) {
    TRIB_ASSIGN_OR_RETURN(q->where, ParseExpr());
  }
  if (AcceptKeyword("GROUP")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
    do {
      TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
      q->group_by.push_back(std::move(e));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("HAVING")) {
    TRIB_ASSIGN_OR_RETURN(q->having, ParseExpr());
  }
  if (AcceptKeyword("ORDER")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
    do {
      OrderItem item;
      TRIB_ASSIGN_OR_RETURN(item.expr, ParseExpr());
      if (AcceptKeyword("DESC")) {
        item.descending = true;
      } else {
        AcceptKeyword("ASC");
      }
      if (AcceptKeyword("NULLS")) {
        if (AcceptKeyword("FIRST")) {
          item.nulls_first = true;
        } else {
          TRIB_RETURN_NOT_OK(ExpectKeyword("LAST"));
          item.nulls_first = false;
        }
      }
      q->order_by.push_back(std::move(item));
    } while (AcceptSymbol(","));
  }
  auto parse_count = [&](int64_t* out) -> Status {
    const Token& t = Peek();
    if (t.type != TokenType::kInteger) return Unexpected("a row count");
    try {
      *out = std::stoll(t.text);
    } catch (...) {
      return ErrorAt(t.pos, "row count " + t.text + " is too large");
    }
    Next();
    return Status::OK();
  };
  for (int round = 0; round < 2; ++round) {
    if (AcceptKeyword("LIMIT")) {
      int64_t n = 0;
      TRIB_RETURN_NOT_OK(parse_count(&n));
      q->limit = n;
    } else if (AcceptKeyword("OFFSET")) {
      TRIB_RETURN_NOT_OK(parse_count(&q->offset));
      if (!AcceptKeyword("ROWS")) AcceptKeyword("ROW");
    } else if (AcceptKeyword("FETCH")) {
      if (!AcceptKeyword("FIRST")) TRIB_RETURN_NOT_OK(ExpectKeyword("NEXT"));
      int64_t n = 0;
      TRIB_RETURN_NOT_OK(parse_count(&n));
      q->limit = n;
      if (!AcceptKeyword("ROWS")) TRIB_RETURN_NOT_OK(ExpectKeyword("ROW"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("ONLY"));
    }
  }
  return q;
}

Result<TableRef> Parser::ParseTableRef() {
  TableRef ref;
  ref.pos = Peek().pos;
  if (Peek().IsSymbol("(")) {
    TRIB_ASSIGN_OR_RETURN(ref.subquery, ParseQuery());
  } else {
    TRIB_ASSIGN_OR_RETURN(ref.name, ParseQualifiedName("a table name"));
    TRIB_RETURN_NOT_OK(ParseHints(&ref.hints, &ref.hints_pos));
    if (Peek().Is("FOR")) {
      return NotSupportedAt(Peek().pos, "FOR SYSTEM_TIME AS OF is not supported yet");
    }
    if (AcceptKeyword("PARTITION")) {
      TRIB_ASSIGN_OR_RETURN(ref.partition, ParsePartitionSpec());
    }
  }
  if (AcceptKeyword("AS")) {
    TRIB_ASSIGN_OR_RETURN(ref.alias, ParseIdentifier("an alias"));
  } else if ((Peek().type == TokenType::kWord && !IsReserved(Peek())) ||
             Peek().type == TokenType::kQuotedIdentifier) {
    ref.alias = Next().text;
  }
  if (!ref.name.parts.empty() && ref.hints.empty()) {
    // Hints may also follow the alias: FROM orders o /*+ OPTIONS(...) */.
    TRIB_RETURN_NOT_OK(ParseHints(&ref.hints, &ref.hints_pos));
  }
  return ref;
}

// ---- expressions

Result<ExprPtr> Parser::ParseOr() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
  while (Peek().Is("OR")) {
    Pos p = Next().pos;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
    left = MakeBinary("OR", std::move(left), std::move(right), p);
  }
  return left;
}

Result<ExprPtr> Parser::ParseAnd() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
  while (Peek().Is("AND")) {
    Pos p = Next().pos;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
    left = MakeBinary("AND", std::move(left), std::move(right), p);
  }
  return left;
}

Result<ExprPtr> Parser::ParseNot() {
  if (Peek().Is("NOT")) {
    Pos p = Next().pos;
    TRIB_ASSIGN_OR_RETURN(ExprPtr operand, ParseNot());
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kUnary;
    e->op = "NOT";
    e->pos = p;
    e->args.push_back(std::move(operand));
    return e;
  }
  return ParseComparison();
}

Result<ExprPtr> Parser::ParseComparison() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseConcat());
  while (true) {
    const Token& t = Peek();
    if (t.type == TokenType::kSymbol &&
        (t.text == "=" || t.text == "<>" || t.text == "!=" || t.text == "<" || t.text == "<=" ||
         t.text == ">" || t.text == ">=")) {
      Pos p = t.pos;
      std::string op = Next().text;
      if (op == "!=") op = "<>";
      TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseConcat());
      left = MakeBinary(op, std::move(left), std::move(right), p);
      continue;
    }
    if (t.Is("IS")) {
      Pos p = Next().pos;
      bool negated = AcceptKeyword("NOT");
      if (Peek().Is("TRUE") || Peek().Is("FALSE")) {
        // x IS [NOT] TRUE: the function IS_TRUE/IS_FALSE, negated.
        auto e = std::make_unique<Expr>();
        e->kind = ExprKind::kFunction;
        e->op = Peek().Is("TRUE") ? "IS_TRUE" : "IS_FALSE";
        Next();
        e->pos = p;
        e->args.push_back(std::move(left));
        if (negated) {
          auto n = std::make_unique<Expr>();
          n->kind = ExprKind::kUnary;
          n->op = "NOT";
          n->pos = p;
          n->args.push_back(std::move(e));
          left = std::move(n);
        } else {
          left = std::move(e);
        }
        continue;
      }
      TRIB_RETURN_NOT_OK(ExpectKeyword("NULL"));
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::kIsNull;
      e->negated = negated;
      e->pos = p;
      e->args.push_back(std::move(left));
      left = std::move(e);
      continue;
    }
    bool negated = false;
    size_t save = pos_;
    if (t.Is("NOT") && (Peek(1).Is("IN") || Peek(1).Is("BETWEEN") || Peek(1).Is("LIKE"))) {
      Next();
      negated = true;
    }
    const Token& op = Peek();
    if (op.Is("IN")) {
      Pos p = Next().pos;
      TRIB_RETURN_NOT_OK(ExpectSymbol("("));
      if (Peek().Is("SELECT")) {
        return NotSupportedAt(Peek().pos, "IN (SELECT ...) subqueries are not supported yet");
      }
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::kIn;
      e->negated = negated;
      e->pos = p;
      e->args.push_back(std::move(left));
      do {
        TRIB_ASSIGN_OR_RETURN(ExprPtr item, ParseExpr());
        e->args.push_back(std::move(item));
      } while (AcceptSymbol(","));
      TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
      left = std::move(e);
      continue;
    }
    if (op.Is("BETWEEN")) {
      Pos p = Next().pos;
      AcceptKeyword("ASYMMETRIC");
      TRIB_ASSIGN_OR_RETURN(ExprPtr lo, ParseConcat());
      TRIB_RETURN_NOT_OK(ExpectKeyword("AND"));
      TRIB_ASSIGN_OR_RETURN(ExprPtr hi, ParseConcat());
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::kBetween;
      e->negated = negated;
      e->pos = p;
      e->args.push_back(std::move(left));
      e->args.push_back(std::move(lo));
      e->args.push_back(std::move(hi));
      left = std::move(e);
      continue;
    }
    if (op.Is("LIKE")) {
      Pos p = Next().pos;
      TRIB_ASSIGN_OR_RETURN(ExprPtr pattern, ParseConcat());
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::kLike;
      e->negated = negated;
      e->pos = p;
      e->args.push_back(std::move(left));
      e->args.push_back(std::move(pattern));
      if (AcceptKeyword("ESCAPE")) {
        TRIB_ASSIGN_OR_RETURN(ExprPtr esc, ParseConcat());
        e->args.push_back(std::move(esc));
      }
      left = std::move(e);
      continue;
    }
    pos_ = save;
    return left;
  }
}

Result<ExprPtr> Parser::ParseConcat() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseAdditive());
  while (Peek().IsSymbol("||")) {
    Pos p = Next().pos;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseAdditive());
    left = MakeBinary("||", std::move(left), std::move(right), p);
  }
  return left;
}

Result<ExprPtr> Parser::ParseAdditive() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseMultiplicative());
  while (Peek().IsSymbol("+") || Peek().IsSymbol("-")) {
    Pos p = Peek().pos;
    std::string op = Next().text;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseMultiplicative());
    left = MakeBinary(op, std::move(left), std::move(right), p);
  }
  return left;
}

Result<ExprPtr> Parser::ParseMultiplicative() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseUnary());
  while (Peek().IsSymbol("*") || Peek().IsSymbol("/") || Peek().IsSymbol("%")) {
    Pos p = Peek().pos;
    std::string op = Next().text;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseUnary());
    left = MakeBinary(op, std::move(left), std::move(right), p);
  }
  return left;
}

Result<ExprPtr> Parser::ParseUnary() {
  if (Peek().IsSymbol("-") || Peek().IsSymbol("+")) {
    Pos p = Peek().pos;
    std::string op = Next().text;
    TRIB_ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
    if (operand->kind == ExprKind::kLiteral &&
        (operand->literal_kind == LiteralKind::kInteger ||
         operand->literal_kind == LiteralKind::kDecimal ||
         operand->literal_kind == LiteralKind::kFloat)) {
      // Fold the sign into the literal so -128 is a TINYINT-sized literal, and the minimum BIGINT
      // is representable.
      if (op == "-") {
        operand->text = operand->text[0] == '-' ? operand->text.substr(1) : "-" + operand->text;
      }
      operand->pos = p;
      return operand;
    }
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kUnary;
    e->op = op;
    e->pos = p;
    e->args.push_back(std::move(operand));
    return e;
  }
  return ParsePrimary();
}

Result<ExprPtr> Parser::ParsePrimary() {
  const Token& t = Peek();
  auto e = std::make_unique<Expr>();
  e->pos = t.pos;
  switch (t.type) {
    case TokenType::kInteger:
    case TokenType::kDecimal:
    case TokenType::kFloat:
      e->kind = ExprKind::kLiteral;
      e->literal_kind = t.type == TokenType::kInteger   ? LiteralKind::kInteger
                        : t.type == TokenType::kDecimal ? LiteralKind::kDecimal
                                                        : LiteralKind::kFloat;
      e->text = Next().text;
      return e;
    case TokenType::kString:
      e->kind = ExprKind::kLiteral;
      e->literal_kind = LiteralKind::kString;
      e->text = Next().text;
      return e;
    case TokenType::kSymbol:
      if (t.text == "(") {
        Next();
        if (Peek().Is("SELECT")) {
          return NotSupportedAt(Peek().pos, "scalar subqueries are not supported yet");
        }
        TRIB_ASSIGN_OR_RETURN(ExprPtr inner, ParseExpr());
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
        return inner;
      }
      if (t.text == "*") {
        Next();
        e->kind = ExprKind::kStar;
        return e;
      }
      if (t.text == "?") {
        return NotSupportedAt(t.pos, "parameters (?) are not supported");
      }
      return Unexpected("an expression");
    case TokenType::kWord: {
      if (t.Is("TRUE") || t.Is("FALSE")) {
        e->kind = ExprKind::kLiteral;
        e->literal_kind = LiteralKind::kBool;
        e->text = Upper(Next().text);
        return e;
      }
      if (t.Is("NULL")) {
        Next();
        e->kind = ExprKind::kLiteral;
        e->literal_kind = LiteralKind::kNull;
        return e;
      }
      if ((t.Is("DATE") || t.Is("TIME") || t.Is("TIMESTAMP")) &&
          Peek(1).type == TokenType::kString) {
        e->kind = ExprKind::kLiteral;
        e->literal_kind = t.Is("DATE")   ? LiteralKind::kDate
                          : t.Is("TIME") ? LiteralKind::kTime
                                         : LiteralKind::kTimestamp;
        Next();
        e->text = Next().text;
        return e;
      }
      if (t.Is("INTERVAL")) return NotSupportedAt(t.pos, "INTERVAL is not supported yet");
      if (t.Is("CASE")) {
        Next();
        return ParseCase(t.pos);
      }
      if ((t.Is("CAST") || t.Is("TRY_CAST")) && Peek(1).IsSymbol("(")) {
        Next();
        Next();
        e->kind = ExprKind::kCast;
        TRIB_ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
        e->args.push_back(std::move(operand));
        TRIB_RETURN_NOT_OK(ExpectKeyword("AS"));
        TRIB_ASSIGN_OR_RETURN(e->type_text, ParseTypeText(&e->type_pos));
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
        return e;
      }
      if (Peek(1).IsSymbol("(")) {
        const Token& name = Next();
        return ParseFunction(name);
      }
      if (t.Is("CURRENT_DATE") || t.Is("CURRENT_TIMESTAMP") || t.Is("LOCALTIMESTAMP") ||
          t.Is("CURRENT_TIME") || t.Is("NOW")) {
        e->kind = ExprKind::kFunction;
        e->op = Upper(Next().text);
        return e;
      }
      [[fallthrough]];
    }
    case TokenType::kQuotedIdentifier: {
      e->kind = ExprKind::kColumn;
      e->names.push_back(Next().text);
      while (Peek().IsSymbol(".")) {
        Next();
        if (Peek().IsSymbol("*")) {
          Next();
          e->kind = ExprKind::kStar;
          return e;
        }
        TRIB_ASSIGN_OR_RETURN(std::string part, ParseIdentifier("a column name"));
        e->names.push_back(std::move(part));
      }
      return e;
    }
    default:
      return Unexpected("an expression");
  }
}

Result<ExprPtr> Parser::ParseFunction(const Token& name) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kFunction;
  e->pos = name.pos;
  e->op = Upper(name.text);
  TRIB_RETURN_NOT_OK(ExpectSymbol("("));
  if (AcceptSymbol(")")) return e;
  if (Peek().IsSymbol("*") && Peek(1).IsSymbol(")")) {
    Next();
    Next();
    e->star_arg = true;
    return e;
  }
  if (AcceptKeyword("DISTINCT")) {
    e->distinct = true;
  } else {
    AcceptKeyword("ALL");
  }
  TRIB_ASSIGN_OR_RETURN(ExprPtr first, ParseExpr());
  e->args.push_back(std::move(first));
  if ((e->op == "SUBSTRING" || e->op == "SUBSTR") && Peek().Is("FROM")) {
    Next();
    TRIB_ASSIGN_OR_RETURN(ExprPtr start, ParseExpr());
    e->args.push_back(std::move(start));
    if (AcceptKeyword("FOR")) {
      TRIB_ASSIGN_OR_RETURN(ExprPtr len, ParseExpr());
      e->args.push_back(std::move(len));
    }
  } else {
    while (AcceptSymbol(",")) {
      TRIB_ASSIGN_OR_RETURN(ExprPtr arg, ParseExpr());
      e->args.push_back(std::move(arg));
    }
  }
  TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  return e;
}

Result<ExprPtr> Parser::ParseCase(Pos pos) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kCase;
  e->pos = pos;
  if (!Peek().Is("WHEN")) {
    TRIB_ASSIGN_OR_RETURN(ExprPtr operand, ParseExpr());
    e->args.push_back(std::move(operand));
    e->has_case_operand = true;
  }
  if (!Peek().Is("WHEN")) return Unexpected("WHEN");
  while (AcceptKeyword("WHEN")) {
    TRIB_ASSIGN_OR_RETURN(ExprPtr when, ParseExpr());
    TRIB_RETURN_NOT_OK(ExpectKeyword("THEN"));
    TRIB_ASSIGN_OR_RETURN(ExprPtr then, ParseExpr());
    e->args.push_back(std::move(when));
    e->args.push_back(std::move(then));
  }
  if (AcceptKeyword("ELSE")) {
    TRIB_ASSIGN_OR_RETURN(ExprPtr other, ParseExpr());
    e->args.push_back(std::move(other));
    e->has_else = true;
  }
  TRIB_RETURN_NOT_OK(ExpectKeyword("END"));
  return e;
}

}  // namespace

ExprPtr Expr::Clone() const {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  e->literal_kind = literal_kind;
  e->text = text;
  e->names = names;
  e->op = op;
  for (const auto& a : args) e->args.push_back(a->Clone());
  e->distinct = distinct;
  e->negated = negated;
  e->star_arg = star_arg;
  e->has_case_operand = has_case_operand;
  e->has_else = has_else;
  e->type_text = type_text;
  e->type_pos = type_pos;
  return e;
}

std::string QualifiedName::ToString() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ".";
    out += parts[i];
  }
  return out;
}

std::string ExprToString(const Expr& e) {
  auto args = [&](size_t from) {
    std::string out;
    for (size_t i = from; i < e.args.size(); ++i) {
      if (i > from) out += ", ";
      out += ExprToString(*e.args[i]);
    }
    return out;
  };
  switch (e.kind) {
    case ExprKind::kLiteral:
      switch (e.literal_kind) {
        case LiteralKind::kNull: return "NULL";
        case LiteralKind::kString: {
          std::string out = "'";
          for (char c : e.text) {
            if (c == '\'') out += "'";
            out += c;
          }
          return out + "'";
        }
        case LiteralKind::kDate: return "DATE '" + e.text + "'";
        case LiteralKind::kTime: return "TIME '" + e.text + "'";
        case LiteralKind::kTimestamp: return "TIMESTAMP '" + e.text + "'";
        default: return e.text;
      }
    case ExprKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < e.names.size(); ++i) out += (i ? "." : "") + e.names[i];
      return out;
    }
    case ExprKind::kStar: {
      std::string out;
      for (const auto& n : e.names) out += n + ".";
      return out + "*";
    }
    case ExprKind::kUnary:
      return e.op == "NOT" ? "NOT " + ExprToString(*e.args[0]) : e.op + ExprToString(*e.args[0]);
    case ExprKind::kBinary:
      return "(" + ExprToString(*e.args[0]) + " " + e.op + " " + ExprToString(*e.args[1]) + ")";
    case ExprKind::kFunction:
      if (e.star_arg) return e.op + "(*)";
      return e.op + "(" + (e.distinct ? "DISTINCT " : "") + args(0) + ")";
    case ExprKind::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      if (e.has_case_operand) out += " " + ExprToString(*e.args[i++]);
      size_t end = e.args.size() - (e.has_else ? 1 : 0);
      for (; i < end; i += 2) {
        out += " WHEN " + ExprToString(*e.args[i]) + " THEN " + ExprToString(*e.args[i + 1]);
      }
      if (e.has_else) out += " ELSE " + ExprToString(*e.args.back());
      return out + " END";
    }
    case ExprKind::kCast:
      return "CAST(" + ExprToString(*e.args[0]) + " AS " + e.type_text + ")";
    case ExprKind::kIn:
      return ExprToString(*e.args[0]) + (e.negated ? " NOT IN (" : " IN (") + args(1) + ")";
    case ExprKind::kBetween:
      return ExprToString(*e.args[0]) + (e.negated ? " NOT BETWEEN " : " BETWEEN ") +
             ExprToString(*e.args[1]) + " AND " + ExprToString(*e.args[2]);
    case ExprKind::kLike:
      return ExprToString(*e.args[0]) + (e.negated ? " NOT LIKE " : " LIKE ") +
             ExprToString(*e.args[1]);
    case ExprKind::kIsNull:
      return ExprToString(*e.args[0]) + (e.negated ? " IS NOT NULL" : " IS NULL");
  }
  return "?";
}

Result<StatementPtr> ParseStatement(std::string_view text, Pos start) {
  TRIB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, start));
  if (tokens.size() == 1) return ErrorAt(start, "empty statement");
  Parser p(std::move(tokens));
  return p.ParseTop();
}

Result<ExprPtr> ParseExpression(std::string_view text) {
  TRIB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  Parser p(std::move(tokens));
  return p.ParseExpressionTop();
}

}  // namespace tributary::sql
