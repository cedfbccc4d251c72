// The parser's function calls: arguments and the special forms (CAST, EXTRACT, TRIM, POSITION,
// JSON_VALUE, ...), OVER windows, CASE.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "sql/parser/parser_internal.h"

namespace tributary::sql {

namespace internal {

Result<ExprPtr> Parser::ParseFunction(const Token& name) {
  auto e = std::make_unique<Expr>();
  e->kind = ExprKind::kFunction;
  e->pos = name.pos;
  e->op = Upper(name.text);
  TRIB_RETURN_NOT_OK(ExpectSymbol("("));
  if (e->op == "POSITION") {
    // POSITION(needle IN haystack) is LOCATE(needle, haystack).
    TRIB_ASSIGN_OR_RETURN(ExprPtr needle, ParseConcat());
    TRIB_RETURN_NOT_OK(ExpectKeyword("IN"));
    TRIB_ASSIGN_OR_RETURN(ExprPtr hay, ParseExpr());
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    e->op = "LOCATE";
    e->args.push_back(std::move(needle));
    e->args.push_back(std::move(hay));
    return e;
  }
  if (e->op == "TRIM" && (Peek().Is("BOTH") || Peek().Is("LEADING") || Peek().Is("TRAILING") ||
                          Peek().Is("FROM") || !Peek(1).IsSymbol(")"))) {
    return ParseTrimCall(std::move(e));
  }
  if (e->op == "JSON_VALUE" || e->op == "JSON_QUERY") {
    return ParseJsonCall(std::move(e));
  }
  if (e->op == "OVERLAY") {
    // OVERLAY(s PLACING r FROM pos [FOR len]): OVERLAY(s, r, pos[, len]).
    TRIB_ASSIGN_OR_RETURN(ExprPtr str, ParseConcat());
    TRIB_RETURN_NOT_OK(ExpectKeyword("PLACING"));
    TRIB_ASSIGN_OR_RETURN(ExprPtr r, ParseConcat());
    TRIB_RETURN_NOT_OK(ExpectKeyword("FROM"));
    TRIB_ASSIGN_OR_RETURN(ExprPtr from, ParseConcat());
    e->args.push_back(std::move(str));
    e->args.push_back(std::move(r));
    e->args.push_back(std::move(from));
    if (AcceptKeyword("FOR")) {
      TRIB_ASSIGN_OR_RETURN(ExprPtr len, ParseConcat());
      e->args.push_back(std::move(len));
    }
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    return e;
  }
  if (e->op == "EXTRACT") {
    // EXTRACT(unit FROM x): the unit's function of x.
    static const std::map<std::string, std::string> kUnits = {{"YEAR", "YEAR"},
                                                              {"QUARTER", "QUARTER"},
                                                              {"MONTH", "MONTH"},
                                                              {"DAY", "DAYOFMONTH"},
                                                              {"DOY", "DAYOFYEAR"},
                                                              {"DOW", "DAYOFWEEK"},
                                                              {"WEEK", "WEEK"},
                                                              {"HOUR", "HOUR"},
                                                              {"MINUTE", "MINUTE"},
                                                              {"SECOND", "SECOND"},
                                                              {"MILLISECOND", "$MILLISECOND"},
                                                              {"MICROSECOND", "$MICROSECOND"},
                                                              {"EPOCH", "$EPOCH"},
                                                              {"DECADE", "$DECADE"},
                                                              {"CENTURY", "$CENTURY"},
                                                              {"MILLENNIUM", "$MILLENNIUM"},
                                                              {"ISODOW", "$ISODOW"},
                                                              {"ISOYEAR", "$ISOYEAR"}};
    const Token& unit = Peek();
    auto it = unit.type == TokenType::kWord ? kUnits.find(Upper(unit.text)) : kUnits.end();
    if (it == kUnits.end()) {
      return ErrorAt(unit.pos,
                     "EXTRACT takes MILLENNIUM, CENTURY, DECADE, YEAR, ISOYEAR, "
                     "QUARTER, MONTH, WEEK, DAY, DOY, DOW, ISODOW, HOUR, MINUTE, "
                     "SECOND, MILLISECOND, MICROSECOND or EPOCH");
    }
    Next();
    TRIB_RETURN_NOT_OK(ExpectKeyword("FROM"));
    TRIB_ASSIGN_OR_RETURN(ExprPtr x, ParseExpr());
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    e->op = it->second;
    e->args.push_back(std::move(x));
    return e;
  }
  if ((e->op == "TIMESTAMPADD" || e->op == "TIMESTAMPDIFF") && Peek().type == TokenType::kWord &&
      Peek(1).IsSymbol(",")) {
    // TIMESTAMPADD(unit, n, t), TIMESTAMPDIFF(unit, t1, t2): the unit as a string.
    const Token& unit = Next();
    auto u = std::make_unique<Expr>();
    u->kind = ExprKind::kLiteral;
    u->literal_kind = LiteralKind::kString;
    u->text = Upper(unit.text);
    u->pos = unit.pos;
    e->args.push_back(std::move(u));
    Next();  // ,
    do {
      TRIB_ASSIGN_OR_RETURN(ExprPtr a, ParseExpr());
      e->args.push_back(std::move(a));
    } while (AcceptSymbol(","));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    return e;
  }
  if (AcceptSymbol(")")) return ParseOver(std::move(e));
  if (Peek().IsSymbol("*") && Peek(1).IsSymbol(")")) {
    Next();
    Next();
    e->star_arg = true;
    return ParseOver(std::move(e));
  }
  if (AcceptKeyword("DISTINCT")) {
    e->distinct = true;
  } else {
    AcceptKeyword("ALL");
  }
  TRIB_ASSIGN_OR_RETURN(ExprPtr first, ParseExpr());
  e->args.push_back(std::move(first));
  if ((e->op == "FLOOR" || e->op == "CEIL" || e->op == "CEILING") && Peek().Is("TO")) {
    // FLOOR(t TO unit) / CEIL(t TO unit): a date or time rounded down / up to the unit.
    Next();
    const Token& unit = Peek();
    static const std::set<std::string> kUnits = {"YEAR", "QUARTER", "MONTH",  "WEEK",       "DAY",
                                                 "HOUR", "MINUTE",  "SECOND", "MILLISECOND"};
    if (unit.type != TokenType::kWord || !kUnits.count(Upper(unit.text))) {
      return ErrorAt(unit.pos, e->op +
                                   "(... TO unit) takes YEAR, QUARTER, MONTH, WEEK, DAY, "
                                   "HOUR, MINUTE, SECOND or MILLISECOND");
    }
    auto u = std::make_unique<Expr>();
    u->kind = ExprKind::kLiteral;
    u->literal_kind = LiteralKind::kString;
    u->text = Upper(unit.text);
    u->pos = unit.pos;
    Next();
    e->op = e->op == "FLOOR" ? "$FLOOR_TO" : "$CEIL_TO";
    e->args.push_back(std::move(u));
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    TRIB_RETURN_NOT_OK(Seal(e));
    return e;
  }
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
  return ParseOver(std::move(e));
}

Result<ExprPtr> Parser::ParseOver(ExprPtr call) {
  if (Peek().Is("FILTER") && Peek(1).IsSymbol("(")) {
    // agg(x) FILTER (WHERE c): the aggregate of the rows where c holds, written as
    // agg(CASE WHEN c THEN x END) (aggregates skip NULL; COUNT(*) counts CASE WHEN c THEN 1 END).
    const Pos filter_pos = Next().pos;
    Next();  // (
    TRIB_RETURN_NOT_OK(ExpectKeyword("WHERE"));
    TRIB_ASSIGN_OR_RETURN(ExprPtr cond, ParseExpr());
    TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
    static const std::set<std::string> kAggregates = {
        "COUNT",      "SUM",        "MIN",         "MAX",    "AVG",     "LISTAGG",  "FIRST_VALUE",
        "LAST_VALUE", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE"};
    if (call->kind != ExprKind::kFunction || !kAggregates.count(call->op)) {
      return ErrorAt(filter_pos,
                     "FILTER (WHERE ...) follows an aggregate function only, not " +
                         (call->op.empty() ? std::string("this expression") : call->op));
    }
    auto when = [&](ExprPtr value) {
      auto c = std::make_unique<Expr>();
      c->kind = ExprKind::kCase;
      c->pos = filter_pos;
      c->args.push_back(cond->Clone());
      c->args.push_back(std::move(value));
      return c;
    };
    if (call->star_arg) {
      call->star_arg = false;
      auto one = std::make_unique<Expr>();
      one->kind = ExprKind::kLiteral;
      one->literal_kind = LiteralKind::kInteger;
      one->text = "1";
      one->pos = filter_pos;
      call->args.push_back(when(std::move(one)));
    } else {
      // LISTAGG's separator stays as it is.
      const size_t n =
          call->op == "LISTAGG" ? std::min<size_t>(1, call->args.size()) : call->args.size();
      for (size_t i = 0; i < n; i++) call->args[i] = when(std::move(call->args[i]));
    }
    for (auto& a : call->args) TRIB_RETURN_NOT_OK(Seal(a));
    TRIB_RETURN_NOT_OK(Seal(call));
  }
  if (!(Peek().Is("OVER") && Peek(1).IsSymbol("("))) return call;
  auto spec = std::make_shared<WindowSpec>();
  spec->pos = Next().pos;
  Next();  // (
  std::string text = "OVER (";
  if (AcceptKeyword("PARTITION")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
    text += "PARTITION BY ";
    do {
      TRIB_ASSIGN_OR_RETURN(ExprPtr p, ParseExpr());
      text += (spec->partition_by.empty() ? "" : ", ") + ExprToString(*p);
      spec->partition_by.push_back(std::move(p));
    } while (AcceptSymbol(","));
  }
  if (AcceptKeyword("ORDER")) {
    TRIB_RETURN_NOT_OK(ExpectKeyword("BY"));
    text += std::string(spec->partition_by.empty() ? "" : " ") + "ORDER BY ";
    do {
      TRIB_ASSIGN_OR_RETURN(OrderItem item, ParseOrderItem());
      text += (spec->order_by.empty() ? "" : ", ") + ExprToString(*item.expr) +
              (item.descending ? " DESC" : "") +
              (item.nulls_first ? (*item.nulls_first ? " NULLS FIRST" : " NULLS LAST") : "");
      spec->order_by.push_back(std::move(item));
    } while (AcceptSymbol(","));
  }
  if (Peek().Is("ROWS") || Peek().Is("RANGE")) {
    spec->has_frame = true;
    spec->rows = Upper(Next().text) == "ROWS";
    auto bound = [&](FrameBound* b) -> Status {
      if (AcceptKeyword("UNBOUNDED")) {
        if (AcceptKeyword("PRECEDING")) {
          b->kind = FrameBound::Kind::kUnboundedPreceding;
        } else {
          TRIB_RETURN_NOT_OK(ExpectKeyword("FOLLOWING"));
          b->kind = FrameBound::Kind::kUnboundedFollowing;
        }
      } else if (AcceptKeyword("CURRENT")) {
        TRIB_RETURN_NOT_OK(ExpectKeyword("ROW"));
        b->kind = FrameBound::Kind::kCurrentRow;
      } else if (Peek().type == TokenType::kInteger || Peek().Is("INTERVAL")) {
        if (Peek().Is("INTERVAL")) {
          // INTERVAL 'n' SECOND | MINUTE | HOUR | DAY (or a day-time range): milliseconds.
          const Pos at = Peek().pos;
          TRIB_ASSIGN_OR_RETURN(ExprPtr iv, ParsePrimary());
          static const std::map<std::string, int64_t> kMillis = {{"MILLISECOND", 1},
                                                                 {"SECOND", 1000},
                                                                 {"MINUTE", 60000},
                                                                 {"HOUR", 3600000},
                                                                 {"DAY", 86400000}};
          auto unit = kMillis.find(iv->type_text);
          if (unit == kMillis.end()) {
            return ErrorAt(at,
                           "a window frame offset takes a day-time INTERVAL (SECOND, MINUTE, "
                           "HOUR or DAY), not " +
                               iv->type_text);
          }
          const std::string& n = iv->text;
          if (n.empty() || n.size() > 12 || !std::all_of(n.begin(), n.end(), ::isdigit)) {
            return ErrorAt(
                at, "a window frame offset is a whole, non-negative INTERVAL; got '" + n + "'");
          }
          if (std::stoll(n) > (int64_t{1} << 52) / unit->second) {
            return ErrorAt(
                at, "window frame offset INTERVAL '" + n + "' " + iv->type_text + " is too large");
          }
          b->offset = std::stoll(n) * unit->second;
          b->interval = true;
          b->interval_text = ExprToString(*iv);
        } else {
          try {
            b->offset = std::stoll(Next().text);
          } catch (...) {
            return ErrorAt(Peek().pos, "window frame offset is too large");
          }
        }
        if (AcceptKeyword("PRECEDING")) {
          b->kind = FrameBound::Kind::kPreceding;
        } else {
          TRIB_RETURN_NOT_OK(ExpectKeyword("FOLLOWING"));
          b->kind = FrameBound::Kind::kFollowing;
        }
      } else {
        return Unexpected("UNBOUNDED, CURRENT ROW, a count or an INTERVAL");
      }
      return Status::OK();
    };
    if (AcceptKeyword("BETWEEN")) {
      TRIB_RETURN_NOT_OK(bound(&spec->start));
      TRIB_RETURN_NOT_OK(ExpectKeyword("AND"));
      TRIB_RETURN_NOT_OK(bound(&spec->end));
    } else {
      TRIB_RETURN_NOT_OK(bound(&spec->start));
      spec->end.kind = FrameBound::Kind::kCurrentRow;
    }
    auto name = [](const FrameBound& b) {
      switch (b.kind) {
        case FrameBound::Kind::kUnboundedPreceding:
          return std::string("UNBOUNDED PRECEDING");
        case FrameBound::Kind::kPreceding:
          return (b.interval ? b.interval_text : std::to_string(b.offset)) + " PRECEDING";
        case FrameBound::Kind::kCurrentRow:
          return std::string("CURRENT ROW");
        case FrameBound::Kind::kFollowing:
          return (b.interval ? b.interval_text : std::to_string(b.offset)) + " FOLLOWING";
        case FrameBound::Kind::kUnboundedFollowing:
          return std::string("UNBOUNDED FOLLOWING");
      }
      return std::string();
    };
    text += std::string(text.size() > 6 ? " " : "") + (spec->rows ? "ROWS" : "RANGE") +
            " BETWEEN " + name(spec->start) + " AND " + name(spec->end);
  }
  TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  spec->text = text + ")";
  call->over = std::move(spec);
  return call;
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

// JSON_VALUE and JSON_QUERY after their "(": their clauses become string arguments.
Result<ExprPtr> Parser::ParseJsonCall(ExprPtr e) {
  // JSON_VALUE(s, path [RETURNING type] [behavior ON EMPTY] [behavior ON ERROR]) and
  // JSON_QUERY(s, path [RETURNING type] [wrapper] [behavior ON EMPTY] [behavior ON ERROR])
  // become calls with their clauses as string arguments (functions.cc says which):
  // JSON_VALUE(s, path, type, on_empty, empty_default, on_error, error_default),
  // JSON_QUERY(s, path, wrapper, on_empty, on_error, type). Without clauses, Flink's defaults.
  auto text = [&](std::string v, const Pos& at) {
    auto lit = std::make_unique<Expr>();
    lit->kind = ExprKind::kLiteral;
    lit->literal_kind = LiteralKind::kString;
    lit->text = std::move(v);
    lit->pos = at;
    return lit;
  };
  auto null_literal = [&](const Pos& at) {
    auto lit = std::make_unique<Expr>();
    lit->kind = ExprKind::kLiteral;
    lit->literal_kind = LiteralKind::kNull;
    lit->pos = at;
    return lit;
  };
  TRIB_ASSIGN_OR_RETURN(ExprPtr doc, ParseExpr());
  TRIB_RETURN_NOT_OK(ExpectSymbol(","));
  TRIB_ASSIGN_OR_RETURN(ExprPtr path, ParseConcat());
  e->args.push_back(std::move(doc));
  e->args.push_back(std::move(path));
  const bool value = e->op == "JSON_VALUE";
  std::string type = "STRING", wrapper = "WITHOUT";
  if (AcceptKeyword("RETURNING")) {
    Pos type_pos;
    TRIB_ASSIGN_OR_RETURN(type, ParseTypeText(&type_pos));
  }
  if (!value && (Peek().Is("WITH") || Peek().Is("WITHOUT"))) {
    const bool with = Upper(Next().text) == "WITH";
    std::string kind = "UNCONDITIONAL";
    if (with && AcceptKeyword("CONDITIONAL")) kind = "CONDITIONAL";
    if (with) AcceptKeyword("UNCONDITIONAL");
    AcceptKeyword("ARRAY");
    TRIB_RETURN_NOT_OK(ExpectKeyword("WRAPPER"));
    wrapper = with ? kind : "WITHOUT";
  }
  // Behaviors: JSON_VALUE: NULL | ERROR | DEFAULT expr; JSON_QUERY: NULL | ERROR |
  // EMPTY ARRAY | EMPTY OBJECT.
  std::string on[2] = {"NULL", "NULL"};
  ExprPtr defaults[2];
  bool seen[2] = {false, false};
  while (!Peek().IsSymbol(")")) {
    const Pos at = Peek().pos;
    std::string behavior;
    ExprPtr def;
    if (AcceptKeyword("NULL")) {
      behavior = "NULL";
    } else if (AcceptKeyword("ERROR")) {
      behavior = "ERROR";
    } else if (value && AcceptKeyword("DEFAULT")) {
      behavior = "DEFAULT";
      TRIB_ASSIGN_OR_RETURN(def, ParseConcat());
    } else if (!value && AcceptKeyword("EMPTY")) {
      if (AcceptKeyword("ARRAY")) {
        behavior = "EMPTY ARRAY";
      } else {
        TRIB_RETURN_NOT_OK(ExpectKeyword("OBJECT"));
        behavior = "EMPTY OBJECT";
      }
    } else {
      return Unexpected(value ? "NULL, ERROR or DEFAULT and ON EMPTY / ON ERROR, or ')'"
                              : "NULL, ERROR, EMPTY ARRAY or EMPTY OBJECT and ON EMPTY / "
                                "ON ERROR, or ')'");
    }
    TRIB_RETURN_NOT_OK(ExpectKeyword("ON"));
    int which;
    if (AcceptKeyword("EMPTY")) {
      which = 0;
    } else {
      TRIB_RETURN_NOT_OK(ExpectKeyword("ERROR"));
      which = 1;
    }
    if (seen[which] || (which == 0 && seen[1])) {
      return ErrorAt(at, "ON EMPTY comes before ON ERROR, once each");
    }
    seen[which] = true;
    on[which] = behavior;
    defaults[which] = std::move(def);
  }
  Next();  // )
  const Pos at = e->pos;
  if (value) {
    e->args.push_back(text(type, at));
    for (int w = 0; w < 2; w++) {
      e->args.push_back(text(on[w], at));
      e->args.push_back(defaults[w] ? std::move(defaults[w]) : null_literal(at));
    }
  } else {
    e->args.push_back(text(wrapper, at));
    e->args.push_back(text(on[0], at));
    e->args.push_back(text(on[1], at));
    e->args.push_back(text(type, at));
  }
  return e;
}

// TRIM([BOTH | LEADING | TRAILING] [characters] FROM s) after its "(".
Result<ExprPtr> Parser::ParseTrimCall(ExprPtr e) {
  // TRIM([BOTH | LEADING | TRAILING] [characters] FROM s): TRIM / LTRIM / RTRIM(s, characters).
  if (AcceptKeyword("LEADING")) {
    e->op = "LTRIM";
  } else if (AcceptKeyword("TRAILING")) {
    e->op = "RTRIM";
  } else {
    AcceptKeyword("BOTH");
  }
  ExprPtr chars;
  if (!Peek().Is("FROM")) {
    TRIB_ASSIGN_OR_RETURN(chars, ParseConcat());
  }
  if (AcceptKeyword("FROM")) {
    TRIB_ASSIGN_OR_RETURN(ExprPtr s, ParseExpr());
    e->args.push_back(std::move(s));
    if (chars) e->args.push_back(std::move(chars));
  } else if (chars) {
    e->args.push_back(std::move(chars));  // TRIM(s): the string itself
  } else {
    return ErrorAt(Peek().pos, "TRIM needs FROM and the string to trim");
  }
  TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
  return e;
}

}  // namespace internal

}  // namespace tributary::sql
