#include "sql/parser.h"

#include "sql/parser_internal.h"

namespace tributary::sql {

namespace internal {

Result<StatementPtr> Parser::ParseTop() {
  const Token& t = Peek();
  Pos start = t.pos;
  StatementPtr stmt;
  if (t.Is("SELECT") || t.Is("VALUES") || t.IsSymbol("(")) {
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
    stmt = std::move(q);
  } else if (t.Is("WITH")) {
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
    stmt = std::move(q);
  } else if (t.Is("CREATE")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseCreate());
  } else if (t.Is("DROP")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseDrop());
  } else if (t.Is("ALTER")) {
    TRIB_ASSIGN_OR_RETURN(stmt, ParseAlter());
  } else if (t.Is("TRUNCATE")) {
    Next();
    TRIB_RETURN_NOT_OK(ExpectKeyword("TABLE"));
    auto s = std::make_unique<TruncateStmt>();
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
    stmt = std::move(s);
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
  } else if (t.Is("EXECUTE")) {
    Next();
    TRIB_RETURN_NOT_OK(ExpectKeyword("STATEMENT"));
    TRIB_RETURN_NOT_OK(ExpectKeyword("SET"));
    TRIB_RETURN_NOT_OK(ExpectKeyword("BEGIN"));
    auto s = std::make_unique<StatementSetStmt>();
    while (!Peek().Is("END")) {
      if (!Peek().Is("INSERT")) {
        if (Peek().type == TokenType::kEnd) return Unexpected("END of the statement set");
        return ErrorAt(Peek().pos, "a statement set holds INSERT statements only");
      }
      const Pos at = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(StatementPtr insert, ParseInsert());
      insert->pos = at;
      s->inserts.emplace_back(static_cast<InsertStmt*>(insert.release()));
      TRIB_RETURN_NOT_OK(ExpectSymbol(";"));
    }
    Next();  // END
    if (s->inserts.empty()) return ErrorAt(Peek().pos, "a statement set needs an INSERT");
    stmt = std::move(s);
  } else if (t.Is("BEGIN")) {
    Next();
    TRIB_RETURN_NOT_OK(ExpectKeyword("STATEMENT"));
    TRIB_RETURN_NOT_OK(ExpectKeyword("SET"));
    stmt = std::make_unique<Statement>(StmtKind::kBeginStatementSet);
  } else if (t.Is("END")) {
    Next();
    stmt = std::make_unique<Statement>(StmtKind::kEndStatementSet);
  } else if (t.Is("EXPLAIN")) {
    Next();
    if (AcceptKeyword("PLAN")) TRIB_RETURN_NOT_OK(ExpectKeyword("FOR"));
    auto s = std::make_unique<ExplainStmt>();
    if (Peek().Is("EXPLAIN")) return ErrorAt(Peek().pos, "EXPLAIN of an EXPLAIN");
    TRIB_ASSIGN_OR_RETURN(s->inner, ParseTop());
    return StatementPtr(std::move(s));
  } else {
    // Flink statements Tributary has no use for yet: named, not a parse error.
    for (const char* kw : {"LOAD", "UNLOAD", "ANALYZE", "ADD", "REMOVE"}) {
      if (t.Is(kw)) {
        std::string what = Upper(t.text) + (Peek(1).type == TokenType::kWord
                                                ? " " + Upper(Peek(1).text) : std::string());
        return NotSupportedAt(t.pos, what + " is not supported yet");
      }
    }
    return Unexpected("a statement (SELECT, INSERT, CREATE, ...)");
  }
  stmt->pos = start;
  TRIB_RETURN_NOT_OK(ExpectEnd());
  return stmt;
}

Result<StatementPtr> Parser::ParseCreate() {
  Pos start = Next().pos;  // CREATE
  const bool temporary = AcceptKeyword("TEMPORARY");
  if (AcceptKeyword("VIEW")) {
    auto s = std::make_unique<CreateViewStmt>();
    s->temporary = temporary;
    if (AcceptKeyword("IF")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("NOT"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      s->if_not_exists = true;
    }
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a view name"));
    if (AcceptSymbol("(")) {
      do {
        TRIB_ASSIGN_OR_RETURN(std::string c, ParseIdentifier("a column name"));
        s->columns.push_back(std::move(c));
      } while (AcceptSymbol(","));
      TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    }
    if (AcceptKeyword("COMMENT")) {
      TRIB_ASSIGN_OR_RETURN(std::string ignored, ParseStringLiteral("a comment string"));
    }
    TRIB_RETURN_NOT_OK(ExpectKeyword("AS"));
    TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
    s->query = std::move(q);
    return StatementPtr(std::move(s));
  }
  if (temporary && Peek().Is("TABLE")) {
    return NotSupportedAt(Peek().pos, "CREATE TEMPORARY TABLE is not supported yet (a table of "
                                      "the catalog outlives the session: CREATE TABLE)");
  }
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
  if (Peek().Is("FUNCTION")) {
    return NotSupportedAt(Peek().pos, "CREATE " + Upper(Peek().text) + " is not supported yet");
  }
  return Unexpected("TABLE, VIEW, DATABASE or CATALOG after CREATE");
}

Result<StatementPtr> Parser::ParseCreateTable(Pos start) {
  auto s = std::make_unique<CreateTableStmt>();
  if (AcceptKeyword("IF")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("NOT"));
    TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
    s->if_not_exists = true;
  }
  TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
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
      if (AcceptKeyword("AS")) {
        // A computed column: name AS expression [COMMENT '...'].
        col.computed = true;
        TRIB_ASSIGN_OR_RETURN(ExprPtr expr, ParseExpr());
        col.expr = std::shared_ptr<const Expr>(std::move(expr));
        if (AcceptKeyword("COMMENT")) {
          TRIB_ASSIGN_OR_RETURN(col.comment, ParseStringLiteral("a comment string"));
        }
        s->columns.push_back(std::move(col));
        continue;
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
    } else if (Peek().Is("PARTITION") && Peek(1).Is("BY")) {
      return ErrorAt(Peek().pos, "a table is partitioned by PARTITIONED BY (...), not PARTITION "
                                 "BY; did you mean PARTITIONED BY?");
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
    } else if (AcceptKeyword("LIKE")) {
      TRIB_ASSIGN_OR_RETURN(s->like, ParseQualifiedName("the table to copy"));
      if (AcceptSymbol("(")) {
        // INCLUDING | EXCLUDING ALL | CONSTRAINTS | PARTITIONS; ... | OVERWRITING OPTIONS.
        do {
          const Token& mode = Peek();
          if (!mode.Is("INCLUDING") && !mode.Is("EXCLUDING") && !mode.Is("OVERWRITING")) {
            return Unexpected("INCLUDING, EXCLUDING or OVERWRITING");
          }
          Next();
          const Token& what = Peek();
          const bool include = !mode.Is("EXCLUDING");
          if (what.Is("OPTIONS")) {
            s->like_options = mode.Is("INCLUDING")   ? CreateTableStmt::LikeOptions::kIncluding
                              : mode.Is("EXCLUDING") ? CreateTableStmt::LikeOptions::kExcluding
                                                     : CreateTableStmt::LikeOptions::kOverwriting;
          } else if (mode.Is("OVERWRITING")) {
            return NotSupportedAt(what.pos, "OVERWRITING " + Upper(what.text) +
                                                " is not supported (only OVERWRITING OPTIONS)");
          } else if (what.Is("ALL")) {
            s->like_constraints = s->like_partitions = include;
            s->like_options = include ? CreateTableStmt::LikeOptions::kIncluding
                                      : CreateTableStmt::LikeOptions::kExcluding;
          } else if (what.Is("CONSTRAINTS")) {
            s->like_constraints = include;
          } else if (what.Is("PARTITIONS")) {
            s->like_partitions = include;
          } else if (what.Is("GENERATED") || what.Is("WATERMARKS") || what.Is("METADATA")) {
            // Tributary tables have none of these: nothing to include or exclude.
          } else {
            return Unexpected("ALL, CONSTRAINTS, PARTITIONS, OPTIONS, GENERATED or WATERMARKS");
          }
          Next();
        } while (AcceptSymbol(","));
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
      }
    } else {
      break;
    }
  }
  if (s->like && s->as_select) {
    return ErrorAt(s->like->pos, "CREATE TABLE takes LIKE or AS SELECT, not both");
  }
  if (s->columns.empty() && !s->as_select && !s->like) {
    return ErrorAt(s->name.pos, "CREATE TABLE needs a column list or AS SELECT");
  }
  return StatementPtr(std::move(s));
}

Result<StatementPtr> Parser::ParseDrop() {
  Next();  // DROP
  const bool temporary = AcceptKeyword("TEMPORARY");
  if (AcceptKeyword("VIEW")) {
    auto s = std::make_unique<DropViewStmt>();
    s->temporary = temporary;
    if (AcceptKeyword("IF")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("EXISTS"));
      s->if_exists = true;
    }
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a view name"));
    return StatementPtr(std::move(s));
  }
  if (temporary && Peek().Is("TABLE")) {
    return NotSupportedAt(Peek().pos, "DROP TEMPORARY TABLE is not supported yet");
  }
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
  if (Peek().Is("CATALOG") || Peek().Is("FUNCTION")) {
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
    while (true) {
      TRIB_ASSIGN_OR_RETURN(std::vector<PartitionSpecEntry> spec, ParsePartitionSpec());
      s->partitions.push_back(std::move(spec));
      if (!(Peek().IsSymbol(",") && Peek(1).Is("PARTITION"))) break;
      Next();
      Next();
    }
  } else if (t.Is("ADD") || t.Is("MODIFY")) {
    // Flink's ADD / MODIFY col ..., ADD (col ..., col ...); Spark's ADD COLUMN.
    const bool add = t.Is("ADD");
    Next();
    AcceptKeyword("COLUMN");
    for (const char* k : {"PRIMARY", "CONSTRAINT", "WATERMARK"}) {
      if (Peek().Is(k)) {
        return NotSupportedAt(Peek().pos, "ALTER TABLE ... " + Upper(t.text) + " " + k +
                                              " is not supported yet");
      }
    }
    s->action = AlterTableStmt::Action::kColumns;
    const bool list = AcceptSymbol("(");
    do {
      AlterColumn c;
      c.kind = add ? AlterColumn::Kind::kAdd : AlterColumn::Kind::kModify;
      TRIB_RETURN_NOT_OK(ParseAlterColumnDef(&c));
      s->columns.push_back(std::move(c));
    } while (list && AcceptSymbol(","));
    if (list) TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  } else if (t.Is("DROP")) {
    Next();
    AcceptKeyword("COLUMN");
    for (const char* k : {"PRIMARY", "CONSTRAINT", "WATERMARK"}) {
      if (Peek().Is(k)) {
        return NotSupportedAt(Peek().pos, std::string("ALTER TABLE ... DROP ") + k +
                                              " is not supported yet");
      }
    }
    s->action = AlterTableStmt::Action::kColumns;
    const bool list = AcceptSymbol("(");
    do {
      AlterColumn c;
      c.kind = AlterColumn::Kind::kDrop;
      c.def.pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(c.def.name, ParseIdentifier("a column name"));
      s->columns.push_back(std::move(c));
    } while (list && AcceptSymbol(","));
    if (list) TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  } else if (t.Is("RENAME")) {
    Next();
    if (AcceptKeyword("TO")) {
      s->action = AlterTableStmt::Action::kRenameTable;
      TRIB_ASSIGN_OR_RETURN(s->new_name, ParseQualifiedName("the new table name"));
    } else {
      AcceptKeyword("COLUMN");
      s->action = AlterTableStmt::Action::kColumns;
      AlterColumn c;
      c.kind = AlterColumn::Kind::kRename;
      c.def.pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(c.def.name, ParseIdentifier("a column name"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("TO"));
      TRIB_ASSIGN_OR_RETURN(c.new_name, ParseIdentifier("the new column name"));
      s->columns.push_back(std::move(c));
    }
  } else if (t.type == TokenType::kWord) {
    s->action = AlterTableStmt::Action::kOther;
    s->other = Upper(t.text);
    // Skip the rest: the executor reports the action as not supported.
    while (Peek().type != TokenType::kEnd) Next();
  } else {
    return Unexpected("SET, RESET, ADD, DROP, RENAME, MODIFY or a PARTITION clause");
  }
  return StatementPtr(std::move(s));
}

Status Parser::ParseAlterColumnDef(AlterColumn* c) {
  c->def.pos = Peek().pos;
  TRIB_ASSIGN_OR_RETURN(c->def.name, ParseIdentifier("a column name"));
  if (AcceptKeyword("AS")) {
    // A computed column: name AS expression [COMMENT '...'] [FIRST | AFTER x].
    c->def.computed = true;
    TRIB_ASSIGN_OR_RETURN(ExprPtr expr, ParseExpr());
    c->def.expr = std::shared_ptr<const Expr>(std::move(expr));
  } else {
    TRIB_ASSIGN_OR_RETURN(c->def.type_text, ParseTypeText(&c->def.type_pos));
  }
  while (true) {
    if (!c->def.computed && Peek().Is("NOT") && Peek(1).Is("NULL")) {
      Next();
      Next();
      c->def.not_null = true;
    } else if (!c->def.computed && AcceptKeyword("NULL")) {
      c->def.not_null = false;
    } else if (AcceptKeyword("COMMENT")) {
      TRIB_ASSIGN_OR_RETURN(c->def.comment, ParseStringLiteral("a comment string"));
      c->has_comment = true;
    } else if (AcceptKeyword("FIRST")) {
      c->first = true;
    } else if (AcceptKeyword("AFTER")) {
      c->after_pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(c->after, ParseIdentifier("a column name"));
    } else {
      return Status::OK();
    }
  }
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
    if (AcceptKeyword("LIKE")) {
      TRIB_ASSIGN_OR_RETURN(std::string pattern, ParseStringLiteral("a LIKE pattern string"));
      s->like = std::move(pattern);
    }
  } else if (AcceptKeyword("COLUMNS")) {
    s->what = ShowStmt::What::kColumns;
    if (!AcceptKeyword("FROM")) TRIB_RETURN_NOT_OK(ExpectKeyword("IN"));
    TRIB_ASSIGN_OR_RETURN(s->name, ParseQualifiedName("a table name"));
    if (AcceptKeyword("LIKE")) {
      TRIB_ASSIGN_OR_RETURN(std::string pattern, ParseStringLiteral("a LIKE pattern string"));
      s->like = std::move(pattern);
    }
  } else if (AcceptKeyword("CATALOGS")) {
    s->what = ShowStmt::What::kCatalogs;
  } else if (AcceptKeyword("FUNCTIONS")) {
    s->what = ShowStmt::What::kFunctions;
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
    return Unexpected("DATABASES, TABLES, COLUMNS, CATALOGS, FUNCTIONS, CREATE TABLE or "
                      "PARTITIONS after SHOW");
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

Result<std::unique_ptr<SelectStmt>> Parser::ParseQueryTerm(bool* parenthesized) {
  // Parentheses around a query add no level: they are counted here, not recursed into.
  size_t parens = 0;
  while (Peek().IsSymbol("(")) {
    Next();
    parens++;
  }
  *parenthesized = parens > 0;
  if (++query_nesting_ > kMaxQueryDepth) {
    return ErrorAt(Peek().pos, "queries nested too deeply (more than " +
                                   std::to_string(kMaxQueryDepth) + " levels)");
  }
  NestingExit exit{&query_nesting_};
  std::unique_ptr<SelectStmt> q;
  if (parens > 0 && (Peek().Is("WITH") || Peek().IsSymbol("("))) {
    // A parenthesized query with its own WITH or set operation.
    TRIB_ASSIGN_OR_RETURN(q, ParseQuery());
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
  for (; parens > 0; parens--) {
    if (parens > 1 || !IsSetOperator(Peek())) {
      TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
      continue;
    }
    // ( a UNION b ): the set operation inside the parentheses.
    TRIB_ASSIGN_OR_RETURN(q, ParseSetOperation(std::move(q), /*first_parenthesized=*/false));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  }
  return q;
}

bool Parser::IsSetOperator(const Token& t) {
  return t.Is("UNION") || t.Is("EXCEPT") || t.Is("INTERSECT") || t.Is("MINUS");
}

Result<std::unique_ptr<SelectStmt>> Parser::ParseQuery() {
  std::vector<CommonTableExpr> with;
  if (Peek().Is("WITH")) {
    const Pos with_pos = Next().pos;
    if (Peek().Is("RECURSIVE")) {
      return NotSupportedAt(Peek().pos, "WITH RECURSIVE is not supported yet");
    }
    do {
      CommonTableExpr cte;
      cte.pos = Peek().pos;
      TRIB_ASSIGN_OR_RETURN(cte.name, ParseIdentifier("a name for the WITH query"));
      if (AcceptSymbol("(")) {
        do {
          TRIB_ASSIGN_OR_RETURN(std::string c, ParseIdentifier("a column name"));
          cte.columns.push_back(std::move(c));
        } while (AcceptSymbol(","));
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
      }
      TRIB_RETURN_NOT_OK(ExpectKeyword("AS"));
      if (!Peek().IsSymbol("(")) return Unexpected("'(' and the WITH query");
      for (const auto& other : with) {
        if (other.name == cte.name) {
          return ErrorAt(cte.pos, "WITH query '" + cte.name + "' is defined twice");
        }
      }
      TRIB_ASSIGN_OR_RETURN(cte.query, ParseQuery());
      with.push_back(std::move(cte));
    } while (AcceptSymbol(","));
    (void)with_pos;
  }
  bool parenthesized = false;
  TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQueryTerm(&parenthesized));
  if (IsSetOperator(Peek())) {
    TRIB_ASSIGN_OR_RETURN(q, ParseSetOperation(std::move(q), parenthesized));
  }
  if (!with.empty()) {
    if (!q->with.empty()) {
      // WITH a AS (...) (WITH b AS (...) SELECT ...): the inner query keeps its own.
      auto outer = std::make_unique<SelectStmt>();
      outer->pos = q->pos;
      SetOperand only;
      only.query = std::move(q);
      outer->set_operands.push_back(std::move(only));
      q = std::move(outer);
    }
    q->with = std::move(with);
  }
  return q;
}

Result<std::unique_ptr<SelectStmt>> Parser::ParseSetOperation(std::unique_ptr<SelectStmt> first,
                                                              bool first_parenthesized) {
  auto out = std::make_unique<SelectStmt>();
  out->pos = first->pos;
  auto trailing = [](const SelectStmt& q) {
    return !q.order_by.empty() || q.limit.has_value() || q.offset > 0;
  };
  if (!first_parenthesized && trailing(*first)) {
    return ErrorAt(Peek().pos, "ORDER BY, LIMIT and OFFSET go after the last query of a set "
                               "operation (or put the query in parentheses)");
  }
  SetOperand head;
  head.query = std::move(first);
  head.pos = out->pos;
  out->set_operands.push_back(std::move(head));
  bool parenthesized = false;
  std::optional<SetOpKind> first_kind;
  bool mixed = false;  // INTERSECT beside UNION or EXCEPT
  while (IsSetOperator(Peek())) {
    if (!out->set_operands.back().query->with.empty() && !parenthesized &&
        out->set_operands.size() > 1) {
      return ErrorAt(Peek().pos, "a WITH query inside a set operation needs parentheses");
    }
    if (out->set_operands.size() > 1 && !parenthesized && trailing(*out->set_operands.back().query)) {
      return ErrorAt(Peek().pos, "ORDER BY, LIMIT and OFFSET go after the last query of a set "
                                 "operation (or put the query in parentheses)");
    }
    SetOperand op;
    op.pos = Peek().pos;
    const std::string word = Upper(Next().text);
    op.kind = word == "UNION"       ? SetOpKind::kUnion
              : word == "INTERSECT" ? SetOpKind::kIntersect
                                    : SetOpKind::kExcept;  // EXCEPT, MINUS
    mixed = mixed || (first_kind && (*first_kind == SetOpKind::kIntersect) !=
                                        (op.kind == SetOpKind::kIntersect));
    first_kind = op.kind;
    if (AcceptKeyword("ALL")) {
      op.all = true;
    } else {
      AcceptKeyword("DISTINCT");
    }
    TRIB_ASSIGN_OR_RETURN(op.query, ParseQueryTerm(&parenthesized));
    out->set_operands.push_back(std::move(op));
  }
  // The last query's ORDER BY, LIMIT and OFFSET (unless in its parentheses) are the whole's.
  SelectStmt& last = *out->set_operands.back().query;
  if (parenthesized) {
    TRIB_RETURN_NOT_OK(ParseOrderLimit(out.get()));
  } else {
    out->order_by = std::move(last.order_by);
    last.order_by.clear();
    out->limit = last.limit;
    last.limit.reset();
    out->offset = last.offset;
    last.offset = 0;
  }
  if (mixed) {
    // Standard precedence, as Flink's (Calcite's): INTERSECT binds tighter than UNION and
    // EXCEPT, which apply left to right. Each run of queries joined by INTERSECT becomes one
    // operand: a UNION b INTERSECT c is a UNION (b INTERSECT c).
    std::vector<SetOperand> flat = std::move(out->set_operands);
    std::vector<SetOperand> grouped;
    std::vector<SetOperand> run;
    auto close_run = [&]() {
      if (run.size() == 1) {
        grouped.push_back(std::move(run[0]));
      } else {
        SetOperand term;
        term.kind = run[0].kind;  // how the run joins what is before it
        term.all = run[0].all;
        term.pos = run[0].pos;
        term.query = std::make_unique<SelectStmt>();
        term.query->pos = run[0].query->pos;
        run[0].kind = SetOpKind::kUnion;  // the first of a set operation: unused
        run[0].all = false;
        term.query->set_operands = std::move(run);
        grouped.push_back(std::move(term));
      }
      run.clear();
    };
    for (auto& operand : flat) {
      if (!run.empty() && operand.kind != SetOpKind::kIntersect) close_run();
      run.push_back(std::move(operand));
    }
    close_run();
    out->set_operands = std::move(grouped);
  }
  return out;
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
      const std::string meant = MeantKeyword(item.alias);
      return ErrorAt(item.pos, "'*' cannot have an alias" +
                                   (meant.empty() ? std::string()
                                                  : " ('" + item.alias + "'); did you mean " +
                                                        meant + "?"));
    }
    q->items.push_back(std::move(item));
  } while (AcceptSymbol(","));
  if (AcceptKeyword("FROM")) {
    TRIB_ASSIGN_OR_RETURN(TableRef ref, ParseTableRef());
    q->from = std::move(ref);
    TRIB_RETURN_NOT_OK(ParseJoins(q.get()));
  }
  if (AcceptKeyword("WHERE")) {
    TRIB_ASSIGN_OR_RETURN(q->where, ParseExpr());
  }
  if (AcceptKeyword("GROUP")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
    for (const char* kw : {"GROUPING", "ROLLUP", "CUBE"}) {
      if (Peek().Is(kw) && (Peek(1).IsSymbol("(") || Peek(1).Is("SETS"))) {
        return NotSupportedAt(Peek().pos, std::string(kw == std::string("GROUPING")
                                                          ? "GROUPING SETS"
                                                          : kw) +
                                              " is not supported yet; write one GROUP BY per "
                                              "grouping and UNION ALL them");
      }
    }
    do {
      TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParseExpr());
      q->group_by.push_back(std::move(e));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("HAVING")) {
    TRIB_ASSIGN_OR_RETURN(q->having, ParseExpr());
  }
  TRIB_RETURN_NOT_OK(ParseOrderLimit(q.get()));
  return q;
}

Result<OrderItem> Parser::ParseOrderItem() {
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
  return item;
}

Status Parser::ParseOrderLimit(SelectStmt* q) {
  if (AcceptKeyword("ORDER")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
    do {
      TRIB_ASSIGN_OR_RETURN(OrderItem item, ParseOrderItem());
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
  return Status::OK();
}

Status Parser::ParseJoins(SelectStmt* q) {
  while (true) {
    const Token& t = Peek();
    JoinClause join;
    join.pos = t.pos;
    if (AcceptKeyword("NATURAL")) {
      join.natural = true;
      join.using_pos = t.pos;
      if (Peek().Is("CROSS")) return Unexpected("JOIN, INNER, LEFT, RIGHT or FULL after NATURAL");
    }
    const Token& k = Peek();
    if (!join.natural && AcceptSymbol(",")) {
      join.kind = JoinKind::kCross;
    } else if (AcceptKeyword("CROSS")) {
      join.kind = JoinKind::kCross;
      TRIB_RETURN_NOT_OK(ExpectKeyword("JOIN"));
    } else if (AcceptKeyword("JOIN")) {
      join.kind = JoinKind::kInner;
    } else if (AcceptKeyword("INNER")) {
      join.kind = JoinKind::kInner;
      TRIB_RETURN_NOT_OK(ExpectKeyword("JOIN"));
    } else if (k.Is("LEFT") || k.Is("RIGHT") || k.Is("FULL")) {
      const std::string side = Upper(Next().text);
      join.kind = side == "LEFT" ? JoinKind::kLeft : side == "RIGHT" ? JoinKind::kRight
                                                                       : JoinKind::kFull;
      AcceptKeyword("OUTER");
      TRIB_RETURN_NOT_OK(ExpectKeyword("JOIN"));
    } else {
      if (join.natural) return Unexpected("JOIN after NATURAL");
      return Status::OK();
    }
    TRIB_ASSIGN_OR_RETURN(join.table, ParseTableRef());
    if (join.kind != JoinKind::kCross && !join.natural) {
      if (Peek().Is("USING")) {
        join.using_pos = Next().pos;
        TRIB_RETURN_NOT_OK(ExpectSymbol("("));
        do {
          TRIB_ASSIGN_OR_RETURN(std::string c, ParseIdentifier("a column name"));
          join.using_columns.push_back(std::move(c));
        } while (AcceptSymbol(","));
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
      } else {
        if (!AcceptKeyword("ON")) return Unexpected("ON, USING and the join condition");
        TRIB_ASSIGN_OR_RETURN(join.on, ParseExpr());
      }
    }
    q->joins.push_back(std::move(join));
  }
}

Result<TableRef> Parser::ParseTableRef() {
  TableRef ref;
  ref.pos = Peek().pos;
  // Table-valued inputs Flink has and Tributary does not yet: named, not a parse error.
  if (Peek().Is("LATERAL")) {
    return NotSupportedAt(Peek().pos, "LATERAL (a table function or lateral subquery per row) "
                                      "is not supported yet");
  }
  if (Peek().Is("UNNEST") && Peek(1).IsSymbol("(")) {
    return NotSupportedAt(Peek().pos, "UNNEST is not supported yet");
  }
  if (Peek().Is("TABLE") && Peek(1).IsSymbol("(")) {
    return NotSupportedAt(Peek().pos, "table functions (TABLE(TUMBLE(...)), HOP, CUMULATE, "
                                      "SESSION windows) are not supported yet");
  }
  if (Peek().IsSymbol("(")) {
    TRIB_ASSIGN_OR_RETURN(ref.subquery, ParseQuery());
  } else {
    TRIB_ASSIGN_OR_RETURN(ref.name, ParseQualifiedName("a table name"));
    TRIB_RETURN_NOT_OK(ParseHints(&ref.hints, &ref.hints_pos));
    if (AcceptKeyword("FOR")) {
      TRIB_RETURN_NOT_OK(ExpectKeyword("SYSTEM_TIME"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("AS"));
      TRIB_RETURN_NOT_OK(ExpectKeyword("OF"));
      TRIB_ASSIGN_OR_RETURN(ref.system_time, ParseExpr());
    }
    if (AcceptKeyword("PARTITION")) {
      TRIB_ASSIGN_OR_RETURN(ref.partition, ParsePartitionSpec());
    }
  }
  for (const char* kw : {"MATCH_RECOGNIZE", "TABLESAMPLE"}) {
    if (Peek().Is(kw)) return NotSupportedAt(Peek().pos, std::string(kw) + " is not supported yet");
  }
  if (AcceptKeyword("AS")) {
    TRIB_ASSIGN_OR_RETURN(ref.alias, ParseIdentifier("an alias"));
  } else if ((Peek().type == TokenType::kWord && !IsReserved(Peek())) ||
             Peek().type == TokenType::kQuotedIdentifier) {
    ref.alias = Next().text;
  }
  if (!ref.alias.empty() && Peek().IsSymbol("(")) {
    // AS x (a, b): names for the input's columns.
    Next();
    do {
      TRIB_ASSIGN_OR_RETURN(std::string c, ParseIdentifier("a column name"));
      ref.column_aliases.push_back(std::move(c));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  }
  if (!ref.name.parts.empty() && ref.hints.empty()) {
    // Hints may also follow the alias: FROM orders o /*+ OPTIONS(...) */.
    TRIB_RETURN_NOT_OK(ParseHints(&ref.hints, &ref.hints_pos));
  }
  return ref;
}

}  // namespace internal

Result<StatementPtr> ParseStatement(std::string_view text, Pos start) {
  TRIB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text, start));
  if (tokens.size() == 1) return ErrorAt(start, "empty statement");
  internal::Parser p(std::move(tokens));
  return p.ParseTop();
}

Result<ExprPtr> ParseExpression(std::string_view text) {
  TRIB_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(text));
  internal::Parser p(std::move(tokens));
  return p.ParseExpressionTop();
}

}  // namespace tributary::sql
