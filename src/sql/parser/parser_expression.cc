// Expression parsing, and printing expressions back as SQL.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "sql/parser/parser_internal.h"

namespace tributary::sql {

namespace internal {

// ---- expressions

Result<ExprPtr> Parser::ParseOr() {
  TRIB_RETURN_NOT_OK(EnterNesting(Peek().pos));
  NestingExit exit{&nesting_};
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseAnd());
  while (Peek().Is("OR")) {
    Pos p = Next().pos;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseAnd());
    left = MakeBinary("OR", std::move(left), std::move(right), p);
    TRIB_RETURN_NOT_OK(CheckDepth(left));
  }
  return left;
}

Result<ExprPtr> Parser::ParseAnd() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseNot());
  while (Peek().Is("AND")) {
    Pos p = Next().pos;
    TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseNot());
    left = MakeBinary("AND", std::move(left), std::move(right), p);
    TRIB_RETURN_NOT_OK(CheckDepth(left));
  }
  return left;
}

Result<ExprPtr> Parser::ParseNot() {
  if (Peek().Is("NOT")) {
    Pos p = Next().pos;
    TRIB_RETURN_NOT_OK(EnterNesting(p));
    NestingExit exit{&nesting_};
    TRIB_ASSIGN_OR_RETURN(ExprPtr operand, ParseNot());
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kUnary;
    e->op = "NOT";
    e->pos = p;
    e->args.push_back(std::move(operand));
    TRIB_RETURN_NOT_OK(Seal(e));
    return e;
  }
  return ParseComparison();
}

Result<ExprPtr> Parser::ParseComparison() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr left, ParseConcat());
  while (true) {
    TRIB_RETURN_NOT_OK(Seal(left));  // the node the last round built (x IS NULL, x IN (...))
    const Token& t = Peek();
    if (t.type == TokenType::kSymbol &&
        (t.text == "=" || t.text == "<>" || t.text == "!=" || t.text == "<" || t.text == "<=" ||
         t.text == ">" || t.text == ">=")) {
      Pos p = t.pos;
      std::string op = Next().text;
      if (op == "!=") op = "<>";
      TRIB_ASSIGN_OR_RETURN(ExprPtr right, ParseConcat());
      left = MakeBinary(op, std::move(left), std::move(right), p);
      TRIB_RETURN_NOT_OK(CheckDepth(left));
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
      auto e = std::make_unique<Expr>();
      e->kind = ExprKind::kIn;
      e->negated = negated;
      e->pos = p;
      e->args.push_back(std::move(left));
      if (Peek().Is("SELECT") || Peek().Is("WITH") || Peek().Is("VALUES")) {
        TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
        e->subquery = std::move(q);
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
        left = std::move(e);
        continue;
      }
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
    TRIB_RETURN_NOT_OK(CheckDepth(left));
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
    TRIB_RETURN_NOT_OK(CheckDepth(left));
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
    TRIB_RETURN_NOT_OK(CheckDepth(left));
  }
  return left;
}

Result<ExprPtr> Parser::ParseUnary() {
  if (Peek().IsSymbol("-") || Peek().IsSymbol("+")) {
    Pos p = Peek().pos;
    std::string op = Next().text;
    TRIB_RETURN_NOT_OK(EnterNesting(p));
    NestingExit exit{&nesting_};
    TRIB_ASSIGN_OR_RETURN(ExprPtr operand, ParseUnary());
    if (operand->kind == ExprKind::kLiteral && (operand->literal_kind == LiteralKind::kInteger ||
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
    TRIB_RETURN_NOT_OK(Seal(e));
    return e;
  }
  return ParsePostfix();
}

// x[i] (array element, 1-based; map value by key) and x.field after a subscript or call
// (plain a.b.c names are resolved by the binder).
Result<ExprPtr> Parser::ParsePostfix() {
  TRIB_ASSIGN_OR_RETURN(ExprPtr e, ParsePrimary());
  while (true) {
    TRIB_RETURN_NOT_OK(Seal(e));  // a primary (f(x), CAST, CASE, ...) or the last x[i] / x.f
    if (Peek().IsSymbol("[")) {
      Pos p = Next().pos;
      TRIB_ASSIGN_OR_RETURN(ExprPtr index, ParseExpr());
      TRIB_RETURN_NOT_OK(ExpectSymbol("]"));
      auto item = std::make_unique<Expr>();
      item->kind = ExprKind::kFunction;
      item->op = "ITEM";
      item->pos = p;
      item->args.push_back(std::move(e));
      item->args.push_back(std::move(index));
      e = std::move(item);
      continue;
    }
    if (Peek().IsSymbol(".") && e->kind != ExprKind::kColumn && e->kind != ExprKind::kStar) {
      Pos p = Next().pos;
      auto field = std::make_unique<Expr>();
      field->kind = ExprKind::kFunction;
      field->op = "FIELD";
      field->pos = p;
      TRIB_ASSIGN_OR_RETURN(field->text, ParseIdentifier("a field name"));
      field->args.push_back(std::move(e));
      e = std::move(field);
      continue;
    }
    return e;
  }
}

// INTERVAL 'n' UNIT (the INTERVAL keyword next): a $INTERVAL call of `e`, its value and unit.
Result<ExprPtr> Parser::ParseIntervalLiteral(ExprPtr e) {
  // INTERVAL 'n' UNIT (SECOND, MINUTE, HOUR, DAY, MONTH, YEAR; n may be negative).
  e->pos = Next().pos;
  if (Peek().type != TokenType::kString) return Unexpected("the interval's value as a string");
  e->text = Next().text;
  static const std::set<std::string> kUnits = {"SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR"};
  std::string unit = Peek().type == TokenType::kWord ? Upper(Peek().text) : "";
  if (!unit.empty() && unit.back() == 'S' && kUnits.count(unit.substr(0, unit.size() - 1))) {
    unit.pop_back();
  }
  if (!kUnits.count(unit)) {
    return ErrorAt(Peek().pos, "INTERVAL takes SECOND, MINUTE, HOUR, DAY, MONTH or YEAR");
  }
  Next();
  if (AcceptKeyword("TO")) {
    // INTERVAL 'y-m' YEAR TO MONTH, 'd h[:m[:s[.fff]]]' DAY TO HOUR|MINUTE|SECOND,
    // 'h:m[:s[.fff]]' HOUR TO MINUTE|SECOND, 'm:s[.fff]' MINUTE TO SECOND: one count of
    // months or milliseconds (a leading '-' negates the whole).
    const Pos to_pos = Peek().pos;
    std::string end = Peek().type == TokenType::kWord ? Upper(Peek().text) : "";
    static const std::vector<std::string> kOrder = {"YEAR", "MONTH",  "DAY",
                                                    "HOUR", "MINUTE", "SECOND"};
    auto rank = [&](const std::string& u) {
      return std::find(kOrder.begin(), kOrder.end(), u) - kOrder.begin();
    };
    const bool year_month = unit == "YEAR" && end == "MONTH";
    const bool day_time = rank(unit) >= 2 && rank(end) < 6 && rank(end) > rank(unit);
    if (!year_month && !day_time) {
      return ErrorAt(to_pos, "INTERVAL " + unit + " TO takes " +
                                 (unit == "YEAR"    ? std::string("MONTH")
                                  : unit == "MONTH" ? std::string("nothing (MONTH is last)")
                                                    : "a smaller unit up to SECOND"));
    }
    Next();
    std::string v = e->text;
    bool negative = !v.empty() && v[0] == '-';
    if (negative) v.erase(0, 1);
    // The fields the form has, with their separators.
    std::vector<std::string> fields;
    std::string cur;
    for (char c : v) {
      if (c == '-' || c == ' ' || c == ':') {
        fields.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    fields.push_back(cur);
    const size_t want = year_month ? 2 : static_cast<size_t>(rank(end) - rank(unit) + 1);
    const std::string form =
        year_month
            ? "'years-months'"
            : std::string("'") + (unit == "DAY" ? "days " : "") +
                  (rank(unit) <= 3 && rank(end) >= 3 ? "hh" : "") +
                  (rank(unit) <= 4 && rank(end) >= 4 ? (rank(unit) < 4 ? ":mm" : "mm") : "") +
                  (end == "SECOND" ? ":ss[.fff]" : "") + "'";
    if (fields.size() != want) {
      return ErrorAt(
          e->pos, "INTERVAL '" + e->text + "' " + unit + " TO " + end + " needs the form " + form);
    }
    int64_t total = 0;
    const int64_t kMillis[] = {0, 0, 86400000, 3600000, 60000, 1000};
    for (size_t i = 0; i < fields.size(); i++) {
      const std::string& f = fields[i];
      const size_t r = year_month ? i : static_cast<size_t>(rank(unit)) + i;
      const bool last_second = !year_month && r == 5;
      const size_t dot = last_second ? f.find('.') : std::string::npos;
      const std::string whole = f.substr(0, dot);
      if (whole.empty() || whole.size() > 9 ||
          !std::all_of(whole.begin(), whole.end(), ::isdigit)) {
        return ErrorAt(e->pos, "INTERVAL '" + e->text + "' " + unit + " TO " + end +
                                   " needs the form " + form);
      }
      const int64_t n = std::stoll(whole);
      if (year_month) {
        total += i == 0 ? n * 12 : n;
      } else {
        total += n * kMillis[r];
      }
      if (dot != std::string::npos) {
        std::string frac = f.substr(dot + 1);
        if (frac.empty() || frac.size() > 9 || !std::all_of(frac.begin(), frac.end(), ::isdigit)) {
          return ErrorAt(e->pos, "INTERVAL '" + e->text + "' has a bad fraction of a second");
        }
        frac.resize(3, '0');
        total += std::stoll(frac);
      }
    }
    e->text = std::to_string(negative ? -total : total);
    unit = year_month ? "MONTH" : "MILLISECOND";
  }
  e->kind = ExprKind::kFunction;
  e->op = "$INTERVAL";
  e->type_text = unit;
  return e;
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
        if (Peek().Is("SELECT") || Peek().Is("WITH")) {
          e->kind = ExprKind::kSubquery;
          e->pos = t.pos;
          TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
          e->subquery = std::move(q);
          TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
          return e;
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
        return NotSupportedAt(t.pos,
                              "parameters (?) are not supported in tributary sql (programs "
                              "embedding the engine take them: sql::Prepare)");
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
      if (t.Is("X") && Peek(1).type == TokenType::kString) {
        // X'0A0B': a binary string, two hex digits a byte.
        e->kind = ExprKind::kLiteral;
        e->literal_kind = LiteralKind::kBinary;
        Next();
        const Token& hex = Next();
        e->text = hex.text;
        const bool digits = std::all_of(e->text.begin(), e->text.end(), [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) != 0;
        });
        if (!digits || e->text.size() % 2 != 0) {
          return ErrorAt(hex.pos, "X'" + e->text +
                                      "' is not a binary literal (an even number "
                                      "of hex digits)");
        }
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
      if (t.Is("INTERVAL")) return ParseIntervalLiteral(std::move(e));
      if ((t.Is("ARRAY") || t.Is("MAP")) && Peek(1).IsSymbol("[")) {
        // ARRAY[a, b, ...] and MAP[k1, v1, k2, v2, ...] value constructors.
        e->kind = ExprKind::kFunction;
        e->op = Upper(Next().text);
        Next();
        if (!Peek().IsSymbol("]")) {
          do {
            TRIB_ASSIGN_OR_RETURN(ExprPtr item, ParseExpr());
            e->args.push_back(std::move(item));
          } while (AcceptSymbol(","));
        }
        TRIB_RETURN_NOT_OK(ExpectSymbol("]"));
        return e;
      }
      if (t.Is("CASE")) {
        Next();
        return ParseCase(t.pos);
      }
      if (t.Is("EXISTS") && Peek(1).IsSymbol("(")) {
        e->kind = ExprKind::kExists;
        e->pos = Next().pos;
        Next();  // (
        TRIB_ASSIGN_OR_RETURN(std::unique_ptr<SelectStmt> q, ParseQuery());
        e->subquery = std::move(q);
        TRIB_RETURN_NOT_OK(ExpectSymbol(")"));
        return e;
      }
      if ((t.Is("CAST") || t.Is("TRY_CAST")) && Peek(1).IsSymbol("(")) {
        e->op = Upper(Next().text);  // TRY_CAST: NULL where the value does not convert
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

}  // namespace internal

ExprPtr Expr::Clone() const {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->pos = pos;
  e->literal_kind = literal_kind;
  e->text = text;
  e->names = names;
  e->op = op;
  e->depth = depth;
  for (const auto& a : args) e->args.push_back(a->Clone());
  e->distinct = distinct;
  e->negated = negated;
  e->star_arg = star_arg;
  e->has_case_operand = has_case_operand;
  e->has_else = has_else;
  e->type_text = type_text;
  e->type_pos = type_pos;
  e->over = over;
  e->subquery = subquery;
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

namespace {
std::string Print(const Expr& e, bool quote);
}  // namespace

std::string ExprToString(const Expr& e) { return Print(e, false); }
std::string ExprToSql(const Expr& e) { return Print(e, true); }

namespace {

std::string Print(const Expr& e, bool quote) {
  auto ExprToString = [quote](const Expr& x) { return Print(x, quote); };
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
        case LiteralKind::kNull:
          return "NULL";
        case LiteralKind::kString: {
          std::string out = "'";
          for (char c : e.text) {
            if (c == '\'') out += "'";
            out += c;
          }
          return out + "'";
        }
        case LiteralKind::kDate:
          return "DATE '" + e.text + "'";
        case LiteralKind::kTime:
          return "TIME '" + e.text + "'";
        case LiteralKind::kTimestamp:
          return "TIMESTAMP '" + e.text + "'";
        case LiteralKind::kBinary:
          return "X'" + e.text + "'";
        default:
          return e.text;
      }
    case ExprKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < e.names.size(); ++i) {
        std::string name = e.names[i];
        if (quote) {
          std::string q = "`";
          for (char c : name) q += c == '`' ? std::string("``") : std::string(1, c);
          name = q + "`";
        }
        out += (i ? "." : "") + name;
      }
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
      if (e.star_arg) return e.op + "(*)" + (e.over ? " " + e.over->text : "");
      if (e.op == "$INTERVAL") return "INTERVAL '" + e.text + "' " + e.type_text;
      if ((e.op == "$FLOOR_TO" || e.op == "$CEIL_TO") && e.args.size() == 2) {
        return std::string(e.op == "$FLOOR_TO" ? "FLOOR(" : "CEIL(") + ExprToString(*e.args[0]) +
               " TO " + e.args[1]->text + ")";
      }
      if (e.op == "ITEM" && e.args.size() == 2) {
        return ExprToString(*e.args[0]) + "[" + ExprToString(*e.args[1]) + "]";
      }
      if (e.op == "FIELD" && e.args.size() == 1) return ExprToString(*e.args[0]) + "." + e.text;
      if ((e.op == "ARRAY" || e.op == "MAP") && !e.distinct) return e.op + "[" + args(0) + "]";
      return e.op + "(" + (e.distinct ? "DISTINCT " : "") + args(0) + ")" +
             (e.over ? " " + e.over->text : "");
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
      return (e.op == "TRY_CAST" ? "TRY_CAST(" : "CAST(") + ExprToString(*e.args[0]) + " AS " +
             e.type_text + ")";
    case ExprKind::kIn:
      if (e.subquery) {
        return ExprToString(*e.args[0]) + (e.negated ? " NOT IN (" : " IN (") + "subquery at " +
               std::to_string(e.pos.line) + ":" + std::to_string(e.pos.column) + ")";
      }
      return ExprToString(*e.args[0]) + (e.negated ? " NOT IN (" : " IN (") + args(1) + ")";
    case ExprKind::kExists:
      return std::string(e.negated ? "NOT " : "") + "EXISTS (subquery at " +
             std::to_string(e.pos.line) + ":" + std::to_string(e.pos.column) + ")";
    case ExprKind::kSubquery:
      return "(subquery at " + std::to_string(e.pos.line) + ":" + std::to_string(e.pos.column) +
             ")";
    case ExprKind::kBetween:
      return ExprToString(*e.args[0]) + (e.negated ? " NOT BETWEEN " : " BETWEEN ") +
             ExprToString(*e.args[1]) + " AND " + ExprToString(*e.args[2]);
    case ExprKind::kLike:
      return ExprToString(*e.args[0]) + (e.negated ? " NOT LIKE " : " LIKE ") +
             ExprToString(*e.args[1]) +
             (e.args.size() > 2 ? " ESCAPE " + ExprToString(*e.args[2]) : "");
    case ExprKind::kIsNull:
      return ExprToString(*e.args[0]) + (e.negated ? " IS NOT NULL" : " IS NULL");
  }
  return "?";
}

}  // namespace

}  // namespace tributary::sql
