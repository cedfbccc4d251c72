// The recursive-descent parser's class, shared by parser.cc (statements) and
// parser_expression.cc (expressions). Private to src/sql.
#pragma once

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "common/stack_guard.h"
#include "sql/parser/ast.h"
#include "sql/parser/lexer.h"

namespace tributary::sql::internal {

inline std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Words that end an expression or a table reference, so they cannot be an alias without AS.
inline bool IsReserved(const Token& t) {
  static const std::set<std::string> kReserved = {
      "FROM",    "WHERE",     "GROUP", "ORDER", "HAVING",  "LIMIT", "OFFSET",  "UNION", "EXCEPT",
      "MINUS",   "INTERSECT", "JOIN",  "INNER", "LEFT",    "RIGHT", "FULL",    "CROSS", "ON",
      "AS",      "AND",       "OR",    "NOT",   "IS",      "IN",    "BETWEEN", "LIKE",  "SELECT",
      "VALUES",  "WINDOW",    "FOR",   "USING", "WHEN",    "THEN",  "ELSE",    "END",   "PARTITION",
      "NATURAL", "ASC",       "DESC",  "NULLS", "LATERAL", "FETCH", "WITH",    "SET",   "ESCAPE"};
  return t.type == TokenType::kWord && kReserved.count(Upper(t.text)) > 0;
}

// The SQL keyword an unquoted `word` that is not one was probably meant as (a typo: edit
// distance 1 for short words, 2 for longer ones, a swap of neighbours counting 1), or "".
inline std::string MeantKeyword(const std::string& word) {
  static const std::vector<std::string> kKeywords = {
      "SELECT",    "FROM",     "WHERE",     "GROUP",    "ORDER",   "HAVING",      "LIMIT",
      "OFFSET",    "UNION",    "INTERSECT", "EXCEPT",   "JOIN",    "INNER",       "LEFT",
      "RIGHT",     "FULL",     "CROSS",     "OUTER",    "USING",   "INSERT",      "INTO",
      "OVERWRITE", "VALUES",   "UPDATE",    "DELETE",   "CREATE",  "DROP",        "ALTER",
      "TABLE",     "TABLES",   "DATABASE",  "VIEW",     "CATALOG", "PARTITIONED", "PARTITION",
      "PRIMARY",   "WITH",     "SHOW",      "DESCRIBE", "EXPLAIN", "CALL",        "RESET",
      "DISTINCT",  "BETWEEN",  "CASE",      "WHEN",     "THEN",    "ELSE",        "NULL",
      "EXISTS",    "TRUNCATE", "RENAME",    "NATURAL"};
  const std::string w = Upper(word);
  if (w.size() < 4) return "";
  for (const auto& k : kKeywords) {
    if (k == w) return "";
  }
  // Optimal string alignment distance (Levenshtein plus adjacent swaps).
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); i++) d[i][0] = static_cast<int>(i);
    for (size_t j = 0; j <= b.size(); j++) d[0][j] = static_cast<int>(j);
    for (size_t i = 1; i <= a.size(); i++) {
      for (size_t j = 1; j <= b.size(); j++) {
        const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.size()][b.size()];
  };
  const int limit = w.size() <= 4 ? 1 : 2;
  std::string best;
  int best_d = limit + 1;
  for (const auto& k : kKeywords) {
    const int d = distance(w, k);
    if (d < best_d) {
      best_d = d;
      best = k;
    }
  }
  return best;
}

// Parses tokens of one statement. Thread-compatible; one use per token list.
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
    std::string msg = "expected " + expected + " but found " + Peek().Describe();
    const Token& t = Peek();
    const Token* before = pos_ > 0 ? &tokens_[pos_ - 1] : nullptr;
    const std::string meant = t.type == TokenType::kWord ? MeantKeyword(t.text) : "";
    if (!meant.empty()) {
      msg += "; did you mean " + meant + "?";
    } else if (before && before->type == TokenType::kWord) {
      // A misspelt keyword read as an alias ('FROM t GRUOP BY'): the error comes a word later.
      if (std::string kb = MeantKeyword(before->text); !kb.empty()) {
        msg += " ('" + before->text + "' was read as a name; did you mean " + kb + "?)";
      }
    }
    return ErrorAt(t.pos, msg);
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
          if (Upper(hint) == "OPTION")
            msg += "; did you mean 'OPTIONS'?";
          else
            msg += "; the supported hint is OPTIONS('key' = 'value', ...)";
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
    // Nested types (ARRAY<T>, MAP<K, V>, ROW<a T, ...>, ROW(a T, ...)) and parameters keep
    // their tokens; DataType::Parse reads the text. Field names keep their case.
    bool nested = out == "ROW" || out == "ARRAY" || out == "MAP" || out == "MULTISET";
    if (Peek().IsSymbol("(") || (nested && Peek().IsSymbol("<"))) {
      const std::string open = Peek().text;
      const std::string close = open == "(" ? ")" : ">";
      int depth = 0;
      do {
        const Token& t = Next();
        if (t.type == TokenType::kEnd) return Unexpected("'" + close + "'");
        if (t.IsSymbol("(") || t.IsSymbol("<")) ++depth;
        if (t.IsSymbol(")") || t.IsSymbol(">")) --depth;
        if (t.IsSymbol(",")) {
          out += ", ";
          continue;
        }
        bool word = t.type == TokenType::kWord || t.type == TokenType::kInteger ||
                    t.type == TokenType::kQuotedIdentifier || t.type == TokenType::kString;
        if (word && !out.empty() && out.back() != '(' && out.back() != '<' && out.back() != ' ') {
          out += " ";
        }
        if (t.type == TokenType::kQuotedIdentifier) {
          std::string q = "`";
          for (char c : t.text) q += c == '`' ? std::string("``") : std::string(1, c);
          out += q + "`";
        } else if (t.type == TokenType::kString) {
          std::string q = "'";
          for (char c : t.text) q += c == '\'' ? std::string("''") : std::string(1, c);
          out += q + "'";
        } else {
          out += t.text;
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
  // One column of ALTER TABLE ADD / MODIFY: name type [NOT NULL] [COMMENT '...'] [FIRST |
  // AFTER x].
  Status ParseAlterColumnDef(AlterColumn* c);
  Result<StatementPtr> ParseShow();
  Result<StatementPtr> ParseInsert();
  Result<StatementPtr> ParseDelete();
  Result<StatementPtr> ParseUpdate();
  Result<StatementPtr> ParseSet();
  Result<StatementPtr> ParseCall();
  // [WITH ...] a query term [UNION | INTERSECT | EXCEPT ...] [ORDER BY ...] [LIMIT ...].
  Result<std::unique_ptr<SelectStmt>> ParseQuery();
  // SELECT ..., VALUES ..., or a query in parentheses.
  Result<std::unique_ptr<SelectStmt>> ParseQueryTerm(bool* parenthesized);
  // `first`, then each set operator and query after it.
  Result<std::unique_ptr<SelectStmt>> ParseSetOperation(std::unique_ptr<SelectStmt> first,
                                                        bool first_parenthesized);
  static bool IsSetOperator(const Token& t);
  // [ORDER BY ...] [LIMIT n] [OFFSET m] [FETCH ...] of `q`.
  Status ParseOrderLimit(SelectStmt* q);
  // expr [ASC | DESC] [NULLS FIRST | LAST].
  Result<OrderItem> ParseOrderItem();
  Result<std::unique_ptr<SelectStmt>> ParseSelect();
  Result<TableRef> ParseTableRef();
  // The joins after the first FROM item (SelectStmt::joins).
  Status ParseJoins(SelectStmt* q);

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
  Result<ExprPtr> ParsePostfix();
  Result<ExprPtr> ParseFunction(const Token& name);
  // Calls with their own syntax inside the parentheses (parser_function.cc).
  Result<ExprPtr> ParseJsonCall(ExprPtr e);
  Result<ExprPtr> ParseIntervalLiteral(ExprPtr e);
  Result<ExprPtr> ParseTrimCall(ExprPtr e);
  // `call` OVER (...) when a window follows, else `call`.
  Result<ExprPtr> ParseOver(ExprPtr call);
  Result<ExprPtr> ParseCase(Pos pos);

  // Deeper expressions are refused: the binder and evaluator recurse over the tree.
  static constexpr int kMaxExprDepth = 1000;
  // Counts recursive descent (parentheses, NOT and sign chains); an error past kMaxExprDepth.
  Status EnterNesting(const Pos& pos) {
    if (Status st = CheckStackDepth("expression"); !st.ok()) return ErrorAt(pos, st.message());
    if (++nesting_ > kMaxExprDepth) {
      return ErrorAt(pos, "expression nested too deeply (more than " +
                              std::to_string(kMaxExprDepth) + " levels)");
    }
    return Status::OK();
  }
  struct NestingExit {
    int* n;
    ~NestingExit() { --*n; }
  };
  // Left-deep chains (a + b + c ...) grow without recursion: their height is checked here.
  static Status CheckDepth(const ExprPtr& e) {
    if (e->depth > kMaxExprDepth) {
      return ErrorAt(e->pos, "expression nested too deeply (more than " +
                                 std::to_string(kMaxExprDepth) + " levels)");
    }
    return Status::OK();
  }
  // Sets the height of a new node from its arguments and checks it: every node that wraps
  // others (x IS NULL, x[i], f(x), NOT x, ...) goes through here, so no chain of them escapes.
  static Status Seal(const ExprPtr& e) {
    int below = 0;
    for (const auto& a : e->args) below = std::max(below, a->depth);
    e->depth = 1 + below;
    return CheckDepth(e);
  }
  // Subqueries and parenthesised queries: each level costs the planner and executor several
  // kilobytes of stack, so fewer are allowed than expression levels.
  static constexpr int kMaxQueryDepth = 100;
  static ExprPtr MakeBinary(std::string op, ExprPtr l, ExprPtr r, Pos pos) {
    auto e = std::make_unique<Expr>();
    e->kind = ExprKind::kBinary;
    e->op = std::move(op);
    e->pos = pos;
    e->depth = 1 + std::max(l->depth, r->depth);
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int nesting_ = 0;
  int query_nesting_ = 0;
};

}  // namespace tributary::sql::internal
