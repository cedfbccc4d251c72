// The parser's DDL statements: CREATE (TABLE, DATABASE, CATALOG, VIEW), DROP, ALTER TABLE, SHOW.
#include "sql/parser/parser.h"
#include "sql/parser/parser_internal.h"

namespace tributary::sql {

namespace internal {

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
    return NotSupportedAt(Peek().pos,
                          "CREATE TEMPORARY TABLE is not supported yet (a table of "
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
      return ErrorAt(Peek().pos,
                     "a table is partitioned by PARTITIONED BY (...), not PARTITION "
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
        return NotSupportedAt(
            Peek().pos, "ALTER TABLE ... " + Upper(t.text) + " " + k + " is not supported yet");
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
        return NotSupportedAt(Peek().pos,
                              std::string("ALTER TABLE ... DROP ") + k + " is not supported yet");
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
    return Unexpected(
        "DATABASES, TABLES, COLUMNS, CATALOGS, FUNCTIONS, CREATE TABLE or "
        "PARTITIONS after SHOW");
  }
  return StatementPtr(std::move(s));
}

}  // namespace internal

}  // namespace tributary::sql
