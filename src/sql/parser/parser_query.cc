// The parser's queries: SELECT with its set operations, WITH, joins, ORDER BY and LIMIT.
#include "sql/parser/parser.h"
#include "sql/parser/parser_internal.h"

namespace tributary::sql {

namespace internal {

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
    return ErrorAt(Peek().pos,
                   "ORDER BY, LIMIT and OFFSET go after the last query of a set "
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
    if (out->set_operands.size() > 1 && !parenthesized &&
        trailing(*out->set_operands.back().query)) {
      return ErrorAt(Peek().pos,
                     "ORDER BY, LIMIT and OFFSET go after the last query of a set "
                     "operation (or put the query in parentheses)");
    }
    SetOperand op;
    op.pos = Peek().pos;
    const std::string word = Upper(Next().text);
    op.kind = word == "UNION"       ? SetOpKind::kUnion
              : word == "INTERSECT" ? SetOpKind::kIntersect
                                    : SetOpKind::kExcept;  // EXCEPT, MINUS
    mixed = mixed || (first_kind &&
                      (*first_kind == SetOpKind::kIntersect) != (op.kind == SetOpKind::kIntersect));
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
      return ErrorAt(item.pos,
                     "'*' cannot have an alias" +
                         (meant.empty() ? std::string()
                                        : " ('" + item.alias + "'); did you mean " + meant + "?"));
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
        return NotSupportedAt(Peek().pos,
                              std::string(kw == std::string("GROUPING") ? "GROUPING SETS" : kw) +
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
      join.kind = side == "LEFT"    ? JoinKind::kLeft
                  : side == "RIGHT" ? JoinKind::kRight
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
    return NotSupportedAt(Peek().pos,
                          "LATERAL (a table function or lateral subquery per row) "
                          "is not supported yet");
  }
  if (Peek().Is("UNNEST") && Peek(1).IsSymbol("(")) {
    return NotSupportedAt(Peek().pos, "UNNEST is not supported yet");
  }
  if (Peek().Is("TABLE") && Peek(1).IsSymbol("(")) {
    return NotSupportedAt(Peek().pos,
                          "table functions (TABLE(TUMBLE(...)), HOP, CUMULATE, "
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

}  // namespace tributary::sql
