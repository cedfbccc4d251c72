#include "sql/parser/parser.h"

#include "sql/parser/parser_internal.h"

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
        std::string what =
            Upper(t.text) +
            (Peek(1).type == TokenType::kWord ? " " + Upper(Peek(1).text) : std::string());
        return NotSupportedAt(t.pos, what + " is not supported yet");
      }
    }
    return Unexpected("a statement (SELECT, INSERT, CREATE, ...)");
  }
  stmt->pos = start;
  TRIB_RETURN_NOT_OK(ExpectEnd());
  return stmt;
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
