#include "sql/binder/expression.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <set>

#include "common/datetime.h"
#include "common/stack_guard.h"
#include "common/strings.h"
#include "options/option_values.h"
#include "sql/binder/cast.h"
#include "sql/binder/correlated.h"
#include "sql/binder/expression_internal.h"
#include "sql/binder/functions.h"

namespace tributary::sql {

namespace {

// A floating literal; out of DOUBLE's range is an error at its position, not an exception.
Result<double> ParseDoubleLiteral(const Expr& e) {
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(e.text.c_str(), &end);
  if (errno == ERANGE || end == e.text.c_str()) {
    return ErrorAt(e.pos, "numeric literal " + e.text + " is out of the range of DOUBLE");
  }
  return d;
}

DataType IntegerOfRank(int rank) {
  switch (rank) {
    case 1:
      return DataType::TinyInt();
    case 2:
      return DataType::SmallInt();
    case 3:
      return DataType::Int();
    default:
      return DataType::BigInt();
  }
}

bool AllConstant(const BoundExpr& e) {
  for (const auto& a : e.args) {
    if (!a->IsConstant()) return false;
  }
  return true;
}

}  // namespace

BoundExprPtr NewExpr(BoundKind kind, const DataType& type, const Pos& pos) {
  auto e = std::make_unique<BoundExpr>();
  e->kind = kind;
  e->type = type;
  e->pos = pos;
  return e;
}

// Replaces an expression whose inputs are all constants by its value.
Result<BoundExprPtr> Fold(BoundExprPtr e) {
  if (e->IsConstant() || !AllConstant(*e)) return e;
  if (e->kind == BoundKind::kFunction && IsVolatileFunction(e->op, e->args.size())) return e;
  Row empty;
  auto v = Evaluate(*e, empty);
  if (!v.ok()) return ErrorAt(e->pos, v.status().message());
  auto c = MakeConstant(std::move(*v), e->type, e->pos);
  return c;
}

namespace {
// The enclosing rows of the subquery being planned on this thread, innermost last.
thread_local std::vector<OuterFrame*> t_outer_frames;
}  // namespace

OuterFrameScope::OuterFrameScope(OuterFrame* frame) { t_outer_frames.push_back(frame); }
OuterFrameScope::~OuterFrameScope() { t_outer_frames.pop_back(); }
std::vector<OuterFrame*> CurrentOuterFrames() { return t_outer_frames; }
bool OnlyProbeFrames() {
  for (const OuterFrame* f : t_outer_frames) {
    if (f->row) return false;
  }
  return true;
}

bool ResolvesInOuterFrame(const std::vector<std::string>& names, const Pos& pos) {
  for (const OuterFrame* f : t_outer_frames) {
    if (f->scope->Resolve(names, pos).ok()) return true;
  }
  return false;
}

Result<BoundExprPtr> Binder::BindOuterColumn(const Expr& e) {
  for (auto it = t_outer_frames.rbegin(); it != t_outer_frames.rend(); ++it) {
    OuterFrame& f = **it;
    auto r = f.scope->Resolve(e.names, e.pos);
    if (!r.ok()) {
      if (r.status().message().find("unknown column") != std::string::npos) continue;
      return r.status();  // ambiguous in the enclosing query
    }
    if (!f.row) {
      // A probe: the subquery reads the enclosing row, so it cannot run once, now.
      f.hit = true;
      return ErrorAt(e.pos, "'" + ExprToString(e) + "' is a column of the enclosing query");
    }
    if (f.used) (*f.used)[*r] = true;
    const size_t c = static_cast<size_t>(*r);
    return MakeConstant(c < f.row->size() ? (*f.row)[c] : Value::Null(),
                        f.scope->columns[c].type.WithNullable(true), e.pos);
  }
  return BoundExprPtr();
}

Result<int> Scope::Resolve(const std::vector<std::string>& names, const Pos& pos) const {
  const std::string& col = names.back();
  std::string qualifier = names.size() > 1 ? names[names.size() - 2] : "";
  auto search = [&](bool ignore_case, int* found, int* count) {
    for (size_t i = 0; i < columns.size(); ++i) {
      const ScopeColumn& c = columns[i];
      if (c.hidden && qualifier.empty()) continue;
      bool name_ok = ignore_case ? EqualsIgnoreCase(c.name, col) : c.name == col;
      if (!name_ok) continue;
      if (!qualifier.empty() && !EqualsIgnoreCase(c.qualifier, qualifier)) continue;
      if (*count == 0) *found = static_cast<int>(i);
      ++*count;
    }
  };
  int found = -1, count = 0;
  search(false, &found, &count);
  if (count == 0) search(true, &found, &count);
  if (count > 1) return ErrorAt(pos, "column '" + col + "' is ambiguous");
  if (count == 0) {
    std::string full;
    for (size_t i = 0; i < names.size(); ++i) full += (i ? "." : "") + names[i];
    std::string msg = "unknown column '" + full + "'";
    if (columns.empty()) {
      msg += " (the query has no FROM clause)";
    } else {
      msg += "; available columns: ";
      for (size_t i = 0; i < columns.size() && i < 20; ++i) {
        msg += (i ? ", " : "") + columns[i].name;
      }
    }
    return ErrorAt(pos, msg);
  }
  return found;
}

bool IsAggregateFunction(const std::string& f) {
  return f == "COUNT" || f == "SUM" || f == "MIN" || f == "MAX" || f == "AVG" || f == "LISTAGG" ||
         f == "FIRST_VALUE" || f == "LAST_VALUE" || IsVarianceFunction(f);
}

bool IsVarianceFunction(const std::string& f) {
  return f == "STDDEV_POP" || f == "STDDEV_SAMP" || f == "STDDEV" || f == "VAR_POP" ||
         f == "VAR_SAMP" || f == "VARIANCE";
}

bool ContainsAggregate(const Expr& e) {
  if (e.over) return false;  // a window function: computed per row, not per group
  if (e.kind == ExprKind::kFunction && IsAggregateFunction(e.op)) return true;
  for (const auto& a : e.args) {
    if (ContainsAggregate(*a)) return true;
  }
  return false;
}

BoundExprPtr MakeConstant(Value v, const DataType& type, const Pos& pos) {
  auto e = NewExpr(BoundKind::kConstant, type, pos);
  e->constant = std::move(v);
  return e;
}

namespace {
thread_local ParameterTypeScope* t_parameter_types = nullptr;
}  // namespace

ParameterTypeScope::ParameterTypeScope(std::vector<Pos> positions)
    : positions_(std::move(positions)), types_(positions_.size()), previous_(t_parameter_types) {
  t_parameter_types = this;
}

ParameterTypeScope::~ParameterTypeScope() { t_parameter_types = previous_; }

ParameterTypeScope* ParameterTypeScope::Current() { return t_parameter_types; }

void ParameterTypeScope::Record(const Pos& pos, const DataType& type) {
  for (size_t i = 0; i < positions_.size(); i++) {
    if (positions_[i].line == pos.line && positions_[i].column == pos.column && !types_[i]) {
      types_[i] = type.WithNullable(true);
    }
  }
}

Result<BoundExprPtr> CastTo(BoundExprPtr e, const DataType& to, int cast_mode) {
  if (e->null_literal) {
    if (t_parameter_types != nullptr) t_parameter_types->Record(e->pos, to);
    e->type = to.WithNullable(true);
    e->null_literal = false;
    return e;
  }
  if (e->type.SameKind(to)) return e;
  auto mode = static_cast<CastMode>(cast_mode);
  if (!CanCast(e->type, to, mode)) {
    return ErrorAt(e->pos, "cannot convert " + TypeName(e->type) + " to " + TypeName(to));
  }
  if (e->IsConstant()) {
    auto v = CastValue(e->constant, e->type, to, mode);
    if (!v.ok()) return ErrorAt(e->pos, v.status().message());
    return MakeConstant(std::move(*v), to.WithNullable(e->type.nullable), e->pos);
  }
  auto c = NewExpr(BoundKind::kCast, to.WithNullable(e->type.nullable), e->pos);
  c->cast_mode = cast_mode;
  c->args.push_back(std::move(e));
  return c;
}

Result<BoundExprPtr> MakeComparison(const std::string& op, BoundExprPtr a, BoundExprPtr b,
                                    const Pos& pos) {
  DataType ta = a->type, tb = b->type;
  std::optional<DataType> common;
  if (a->null_literal && b->null_literal) {
    common = DataType::String();
  } else if (a->null_literal) {
    common = tb;
  } else if (b->null_literal) {
    common = ta;
  } else {
    common = ComparisonType(ta, tb);
    // A string constant compared with a typed column takes the column's type:
    // d = '2024-01-01', id = '7'.
    if (!common || (common->IsString() && !(ta.IsString() && tb.IsString()))) {
      if (a->IsConstant() && ta.IsString() && !tb.IsString()) {
        common = tb;
      } else if (b->IsConstant() && tb.IsString() && !ta.IsString()) {
        common = ta;
      }
    }
  }
  if (!common) {
    return ErrorAt(pos, "cannot compare " + TypeName(ta) + " with " + TypeName(tb));
  }
  int mode = static_cast<int>(CastMode::kExplicit);
  TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), *common, mode));
  TRIB_ASSIGN_OR_RETURN(b, CastTo(std::move(b), *common, mode));
  auto e = NewExpr(BoundKind::kCompare, DataType::Boolean(), pos);
  e->op = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return Fold(std::move(e));
}

Result<BoundExprPtr> Binder::BindPredicate(const Expr& e, const char* clause) {
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, Bind(e));
  if (b->null_literal) return CastTo(std::move(b), DataType::Boolean(), 0);
  if (b->type.id != TypeId::kBoolean) {
    return ErrorAt(e.pos,
                   std::string(clause) + " must be a BOOLEAN condition, not " + TypeName(b->type));
  }
  return b;
}

Result<BoundExprPtr> Binder::Bind(const Expr& e) {
  // The parser bounds the tree's height; these bound the binder's stack and its work (some
  // forms bind an argument twice, so nesting them doubles the work at every level).
  if (Status st = CheckStackDepth("expression"); !st.ok()) return ErrorAt(e.pos, st.message());
  if (++binds_ > kMaxBinds) {
    return ErrorAt(
        e.pos, "expression too large (more than " + std::to_string(kMaxBinds) + " nodes to bind)");
  }
  if (e.over) {
    if (!windows_) {
      return ErrorAt(e.pos, "window functions (" + e.op +
                                " OVER ...) are allowed only in the "
                                "select list and ORDER BY");
    }
    return BindWindow(e);
  }
  if (agg_ != nullptr) {
    // Above a GROUP BY: group expressions and aggregates become slots of the grouped row.
    if (e.kind == ExprKind::kFunction && IsAggregateFunction(e.op)) return BindAggregate(e);
    std::string text = ExprToString(e);
    int key_column = -1;
    if (e.kind == ExprKind::kColumn) {
      auto r = agg_->input->Resolve(e.names, e.pos);
      if (r.ok()) key_column = *r;
    }
    for (size_t i = 0; i < agg_->keys.size(); ++i) {
      if (agg_->key_texts[i] == text || (key_column >= 0 && agg_->key_columns[i] == key_column)) {
        auto ref = NewExpr(BoundKind::kColumn, agg_->keys[i]->type, e.pos);
        ref->column = static_cast<int>(i);
        return ref;
      }
    }
    if (e.kind == ExprKind::kColumn) {
      auto r = agg_->input->Resolve(e.names, e.pos);
      if (!r.ok()) {
        // A column of an enclosing query: a constant of the grouped rows.
        TRIB_ASSIGN_OR_RETURN(BoundExprPtr outer, BindOuterColumn(e));
        if (outer) return outer;
        return r.status();
      }
      return ErrorAt(e.pos, "column '" + text +
                                "' must appear in GROUP BY or be used in an aggregate function");
    }
  } else if (e.kind == ExprKind::kFunction && IsAggregateFunction(e.op)) {
    return ErrorAt(e.pos, "aggregate function " + e.op + " is not allowed here");
  }
  return BindInner(e);
}

Result<BoundExprPtr> Binder::BindLiteral(const Expr& e) {
  switch (e.literal_kind) {
    case LiteralKind::kNull: {
      auto n = MakeConstant(Value::Null(), DataType::String(), e.pos);
      n->null_literal = true;
      return n;
    }
    case LiteralKind::kBool:
      return MakeConstant(Value::Bool(e.text == "TRUE"), DataType::Boolean().NotNull(), e.pos);
    case LiteralKind::kInteger: {
      std::string digits = e.text[0] == '-' ? e.text.substr(1) : e.text;
      while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
      if (digits.size() <= 18 ||
          (digits.size() == 19 &&
           digits <= (e.text[0] == '-' ? "9223372036854775808" : "9223372036854775807"))) {
        int64_t v;
        if (digits.size() == 19 && e.text[0] == '-' && digits == "9223372036854775808") {
          v = INT64_MIN;
        } else {
          v = std::stoll(digits);
          if (e.text[0] == '-') v = -v;
        }
        DataType t = (v >= INT32_MIN && v <= INT32_MAX) ? DataType::Int() : DataType::BigInt();
        return MakeConstant(Value::Int(v), t.NotNull(), e.pos);
      }
      if (digits.size() > 38) return ErrorAt(e.pos, "number " + e.text + " is too large");
      auto p = static_cast<int32_t>(digits.size());
      auto r = ParseDecimal(e.text, p, 0);
      if (!r.ok()) return ErrorAt(e.pos, r.status().message());
      return MakeConstant(Value::Dec(Decimal{*r}), DataType::Decimal(p, 0).NotNull(), e.pos);
    }
    case LiteralKind::kDecimal: {
      std::string t = e.text[0] == '-' ? e.text.substr(1) : e.text;
      size_t dot = t.find('.');
      std::string int_part = t.substr(0, dot);
      while (!int_part.empty() && int_part[0] == '0') int_part.erase(0, 1);
      auto scale = static_cast<int32_t>(t.size() - dot - 1);
      auto precision = static_cast<int32_t>(int_part.size()) + scale;
      if (precision == 0) precision = 1;
      if (precision > 38) {
        TRIB_ASSIGN_OR_RETURN(double d, ParseDoubleLiteral(e));
        return MakeConstant(Value::Double(d), DataType::Double().NotNull(), e.pos);
      }
      auto r = ParseDecimal(e.text, precision, scale);
      if (!r.ok()) return ErrorAt(e.pos, r.status().message());
      return MakeConstant(Value::Dec(Decimal{*r}), DataType::Decimal(precision, scale).NotNull(),
                          e.pos);
    }
    case LiteralKind::kFloat: {
      TRIB_ASSIGN_OR_RETURN(double d, ParseDoubleLiteral(e));
      return MakeConstant(Value::Double(d), DataType::Double().NotNull(), e.pos);
    }
    case LiteralKind::kString:
      return MakeConstant(Value::String(e.text), DataType::String().NotNull(), e.pos);
    case LiteralKind::kBinary: {
      std::string bytes;
      for (size_t i = 0; i + 1 < e.text.size(); i += 2) {
        bytes += static_cast<char>(std::stoi(e.text.substr(i, 2), nullptr, 16));
      }
      return MakeConstant(Value::String(std::move(bytes)), DataType::Bytes().NotNull(), e.pos);
    }
    case LiteralKind::kDate: {
      auto r = ParseDate(e.text);
      if (!r.ok() && IsOutOfRange(r.status())) {
        return ErrorAt(e.pos, DateOutOfRange("DATE literal '" + e.text + "'").message());
      }
      if (!r.ok()) return ErrorAt(e.pos, "invalid DATE literal '" + e.text + "'");
      return MakeConstant(Value::Int(*r), DataType::Date().NotNull(), e.pos);
    }
    case LiteralKind::kTime: {
      auto r = ParseTime(e.text);
      if (!r.ok()) return ErrorAt(e.pos, "invalid TIME literal '" + e.text + "'");
      return MakeConstant(Value::Int(*r), DataType::Time(3).NotNull(), e.pos);
    }
    case LiteralKind::kTimestamp: {
      size_t dot = e.text.find('.');
      int32_t precision = 0;
      if (dot != std::string::npos) {
        size_t k = dot + 1;
        while (k < e.text.size() && std::isdigit(static_cast<unsigned char>(e.text[k]))) ++k;
        precision = static_cast<int32_t>(std::min<size_t>(9, k - dot - 1));
      }
      auto r = ParseTimestamp(e.text, 9);
      if (!r.ok() && IsOutOfRange(r.status())) {
        return ErrorAt(e.pos, TimestampOutOfRange("TIMESTAMP literal '" + e.text + "'").message());
      }
      if (!r.ok()) return ErrorAt(e.pos, "invalid TIMESTAMP literal '" + e.text + "'");
      return MakeConstant(Value::Ts(*r), DataType::Timestamp(precision).NotNull(), e.pos);
    }
  }
  return Status::Internal("unknown literal");
}

Result<BoundExprPtr> Binder::BindInner(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      return BindLiteral(e);
    case ExprKind::kColumn: {
      auto resolved = scope_->Resolve(e.names, e.pos);
      if (!resolved.ok() && e.names.size() > 1) {
        // a.b.c: the longest prefix naming a column, then ROW field accesses.
        for (size_t k = e.names.size() - 1; k >= 1; --k) {
          std::vector<std::string> prefix(e.names.begin(), e.names.begin() + k);
          auto idx = scope_->Resolve(prefix, e.pos);
          if (!idx.ok() || !scope_->columns[*idx].type.IsNested()) continue;
          auto c = NewExpr(BoundKind::kColumn, scope_->columns[*idx].type, e.pos);
          c->column = *idx;
          BoundExprPtr cur = std::move(c);
          for (size_t j = k; j < e.names.size(); ++j) {
            TRIB_ASSIGN_OR_RETURN(cur, BindFieldAccess(std::move(cur), e.names[j], e.pos));
          }
          return cur;
        }
      }
      if (!resolved.ok()) {
        TRIB_ASSIGN_OR_RETURN(BoundExprPtr outer, BindOuterColumn(e));
        if (outer) return outer;
      }
      TRIB_ASSIGN_OR_RETURN(int idx, std::move(resolved));
      const ScopeColumn& sc = scope_->columns[idx];
      if (sc.coalesce_with >= 0 && e.names.size() == 1) {
        // The merged column of a FULL JOIN ... USING: whichever side has the row.
        const ScopeColumn& other = scope_->columns[sc.coalesce_with];
        Expr call;
        call.kind = ExprKind::kFunction;
        call.op = "COALESCE";
        call.pos = e.pos;
        for (const ScopeColumn* side : {&sc, &other}) {
          auto ref = std::make_unique<Expr>();
          ref->kind = ExprKind::kColumn;
          ref->pos = e.pos;
          ref->names = {side->qualifier, side->name};
          call.args.push_back(std::move(ref));
        }
        call.depth = 2;
        return BindInner(call);
      }
      auto c = NewExpr(BoundKind::kColumn, sc.type, e.pos);
      c->column = idx;
      return c;
    }
    case ExprKind::kStar:
      return ErrorAt(e.pos, "'*' is only allowed in a select list or COUNT(*)");
    case ExprKind::kUnary: {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr a, Bind(*e.args[0]));
      if (e.op == "NOT") {
        if (a->null_literal) {
          TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), DataType::Boolean(), 0));
        }
        if (a->type.id != TypeId::kBoolean) {
          return ErrorAt(e.pos, "NOT needs a BOOLEAN operand, not " + TypeName(a->type));
        }
        auto n = NewExpr(BoundKind::kNot, a->type, e.pos);
        n->args.push_back(std::move(a));
        return Fold(std::move(n));
      }
      if (!a->type.IsNumeric() && !a->null_literal) {
        return ErrorAt(e.pos, "unary " + e.op + " needs a number, not " + TypeName(a->type));
      }
      if (e.op == "+") return a;
      DataType t = a->type;
      if (t.IsInteger() && IntegerRank(t.id) < 3) t = DataType::Int().WithNullable(t.nullable);
      // -x is 0 - x.
      auto zero = MakeConstant(Value::Int(0), DataType::Int().NotNull(), e.pos);
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr z, CastTo(std::move(zero), t, 0));
      auto n = NewExpr(BoundKind::kArithmetic, t, e.pos);
      n->op = "-";
      n->args.push_back(std::move(z));
      TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), t, 0));
      n->args.push_back(std::move(a));
      return Fold(std::move(n));
    }
    case ExprKind::kBinary:
      return BindBinary(e);
    case ExprKind::kFunction:
      return BindFunction(e);
    case ExprKind::kCase:
      return BindCase(e);
    case ExprKind::kCast: {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr a, Bind(*e.args[0]));
      auto t = DataType::Parse(e.type_text);
      if (!t.ok()) return ErrorAt(e.type_pos, t.status().message());
      DataType to = t->WithNullable(true);
      if (!a->null_literal && !CanCast(a->type, to, CastMode::kExplicit)) {
        return ErrorAt(e.pos, "cannot cast " + TypeName(a->type) + " to " + TypeName(to));
      }
      if (a->type == to) return a;
      const bool try_cast = e.op == "TRY_CAST";
      if (a->IsConstant() && try_cast && !a->null_literal) {
        // A constant that does not convert is NULL.
        auto v = CastValue(a->constant, a->type, to, CastMode::kExplicit);
        return MakeConstant(v.ok() ? std::move(*v) : Value::Null(), to, e.pos);
      }
      if (a->IsConstant() || a->null_literal) {
        return CastTo(std::move(a), to, static_cast<int>(CastMode::kExplicit));
      }
      auto c = NewExpr(BoundKind::kCast, try_cast ? to : to.WithNullable(a->type.nullable), e.pos);
      c->cast_mode = static_cast<int>(CastMode::kExplicit);
      c->negated = try_cast;  // TRY_CAST: a value that does not convert becomes NULL
      c->args.push_back(std::move(a));
      return c;
    }
    case ExprKind::kExists:
    case ExprKind::kSubquery:
      return BindSubquery(e);
    case ExprKind::kIn: {
      if (e.subquery) return BindSubquery(e);
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr left, Bind(*e.args[0]));
      std::vector<BoundExprPtr> items;
      std::vector<DataType> types;
      if (!left->null_literal) types.push_back(left->type);
      for (size_t i = 1; i < e.args.size(); ++i) {
        TRIB_ASSIGN_OR_RETURN(BoundExprPtr item, Bind(*e.args[i]));
        items.push_back(std::move(item));
      }
      // String constants in the list take the left side's type (d IN ('2024-01-01', ...)).
      std::vector<DataType> item_types;
      for (auto& item : items) {
        if (item->null_literal) continue;
        if (item->IsConstant() && item->type.IsString() && !types.empty() && !types[0].IsString()) {
          continue;
        }
        item_types.push_back(item->type);
      }
      for (auto& t : item_types) types.push_back(t);
      std::optional<DataType> common = types.empty() ? DataType::String() : types[0];
      for (size_t i = 1; i < types.size() && common; ++i)
        common = ComparisonType(*common, types[i]);
      if (!common) return ErrorAt(e.pos, "IN list values do not match the type of the left side");
      int mode = static_cast<int>(CastMode::kExplicit);
      auto in = NewExpr(BoundKind::kIn, DataType::Boolean(), e.pos);
      in->negated = e.negated;
      TRIB_ASSIGN_OR_RETURN(left, CastTo(std::move(left), *common, mode));
      in->args.push_back(std::move(left));
      for (auto& item : items) {
        TRIB_ASSIGN_OR_RETURN(item, CastTo(std::move(item), *common, mode));
        in->args.push_back(std::move(item));
      }
      return Fold(std::move(in));
    }
    case ExprKind::kBetween: {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr v1, Bind(*e.args[0]));
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr lo, Bind(*e.args[1]));
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr v2, Bind(*e.args[0]));
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr hi, Bind(*e.args[2]));
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr ge,
                            MakeComparison(">=", std::move(v1), std::move(lo), e.pos));
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr le,
                            MakeComparison("<=", std::move(v2), std::move(hi), e.pos));
      auto both = NewExpr(BoundKind::kAnd, DataType::Boolean(), e.pos);
      both->args.push_back(std::move(ge));
      both->args.push_back(std::move(le));
      if (!e.negated) return Fold(std::move(both));
      auto n = NewExpr(BoundKind::kNot, DataType::Boolean(), e.pos);
      n->args.push_back(std::move(both));
      return Fold(std::move(n));
    }
    case ExprKind::kLike: {
      auto like = NewExpr(BoundKind::kLike, DataType::Boolean(), e.pos);
      like->negated = e.negated;
      for (const auto& a : e.args) {
        TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, Bind(*a));
        if (b->null_literal) {
          TRIB_ASSIGN_OR_RETURN(b, CastTo(std::move(b), DataType::String(), 0));
        }
        if (!b->type.IsString()) {
          return ErrorAt(a->pos, "LIKE needs strings, not " + TypeName(b->type));
        }
        like->args.push_back(std::move(b));
      }
      return Fold(std::move(like));
    }
    case ExprKind::kIsNull: {
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr a, Bind(*e.args[0]));
      auto n = NewExpr(BoundKind::kIsNull, DataType::Boolean().NotNull(), e.pos);
      n->negated = e.negated;
      n->args.push_back(std::move(a));
      return Fold(std::move(n));
    }
  }
  return Status::Internal("unknown expression kind");
}

namespace {

bool IsInterval(const Expr& e) { return e.kind == ExprKind::kFunction && e.op == "$INTERVAL"; }

}  // namespace

Result<BoundExprPtr> Binder::BindIntervalArithmetic(const Expr& e) {
  // x + INTERVAL, INTERVAL + x, x - INTERVAL: x moved by the interval, in x's type.
  const bool interval_first = IsInterval(*e.args[0]);
  const Expr& iv = interval_first ? *e.args[0] : *e.args[1];
  const Expr& x = interval_first ? *e.args[1] : *e.args[0];
  if (IsInterval(x) || (interval_first && e.op == "-")) {
    return ErrorAt(e.pos, "intervals are added to or subtracted from a DATE or TIMESTAMP");
  }
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr value, Bind(x));
  const DataType& t = value->type;
  if (!value->null_literal && t.id != TypeId::kDate && !t.IsTimestamp()) {
    return ErrorAt(e.pos, "an INTERVAL is added to a DATE or TIMESTAMP, not " + TypeName(t));
  }
  std::string unit = iv.type_text;
  std::string number = iv.text;
  if (unit == "SECOND" && number.find('.') != std::string::npos) {
    // INTERVAL '1.5' SECOND: seconds with up to three fraction digits, as milliseconds.
    const size_t dot = number.find('.');
    std::string frac = number.substr(dot + 1);
    if (frac.empty() || frac.size() > 3 ||
        !std::all_of(frac.begin(), frac.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return ErrorAt(iv.pos, "INTERVAL '" + iv.text +
                                 "' SECOND takes at most three fraction "
                                 "digits (milliseconds)");
    }
    frac.resize(3, '0');
    std::string whole = number.substr(0, dot);
    const bool negative = !whole.empty() && whole[0] == '-';
    if (whole.empty() || whole == "-" || whole == "+") whole += "0";
    auto w = options::ParseInt64(whole);
    if (!w.ok() || *w > 9'000'000'000'000 || *w < -9'000'000'000'000) {
      return ErrorAt(iv.pos, "INTERVAL '" + iv.text + "' is not a number of seconds");
    }
    const int64_t ms = *w * 1000 + (negative ? -1 : 1) * std::stoll(frac);
    number = std::to_string(ms);
    unit = "MILLISECOND";
  }
  auto n = options::ParseInt64(number);
  if (!n.ok()) return ErrorAt(iv.pos, "INTERVAL '" + iv.text + "' is not a whole number");
  const int64_t unit_millis = unit == "DAY"           ? 86400000
                              : unit == "HOUR"        ? 3600000
                              : unit == "MINUTE"      ? 60000
                              : unit == "MILLISECOND" ? 1  // INTERVAL ... TO ...
                                                      : 1000;
  const bool in_months = unit == "YEAR" || unit == "MONTH";
  // An interval longer than the DATE / TIMESTAMP range (10000 years) moves every value out of
  // it: refused, which also keeps the products below from overflowing.
  const int64_t most =
      in_months ? (unit == "YEAR" ? 10000 : 120000) : 10000LL * 366 * 86400000 / unit_millis;
  if (*n > most || *n < -most) {
    return ErrorAt(iv.pos, "INTERVAL '" + iv.text + "' " + iv.type_text +
                               " is out of range (longer than the 10000 years of DATE and "
                               "TIMESTAMP)");
  }
  const int64_t count = e.op == "-" ? -*n : *n;
  int64_t millis = 0, months = 0;
  if (in_months)
    months = unit == "YEAR" ? count * 12 : count;
  else
    millis = count * unit_millis;
  if (t.id == TypeId::kDate && millis % 86400000 != 0) {
    return ErrorAt(e.pos, "a DATE moves by whole days; CAST it to TIMESTAMP to add " +
                              (unit == "MILLISECOND" ? std::string("a time of day") : unit + "S"));
  }
  DataType result = value->null_literal ? DataType::Timestamp(3) : t;
  if (result.IsTimestamp() && millis % 1000 != 0 && result.precision < 3) {
    // Milliseconds added: the result holds them (TIMESTAMP(0) + INTERVAL '1.5' SECOND).
    result =
        (result.id == TypeId::kTimestampLtz ? DataType::TimestampLtz(3) : DataType::Timestamp(3))
            .WithNullable(result.nullable);
  }
  auto fn = NewExpr(BoundKind::kFunction, result, e.pos);
  fn->op = "$ADD_INTERVAL";
  if (value->null_literal) {
    TRIB_ASSIGN_OR_RETURN(value, CastTo(std::move(value), DataType::Timestamp(3), 0));
  }
  fn->args.push_back(std::move(value));
  fn->args.push_back(MakeConstant(Value::Int(millis), DataType::BigInt().NotNull(), e.pos));
  fn->args.push_back(MakeConstant(Value::Int(months), DataType::BigInt().NotNull(), e.pos));
  return Fold(std::move(fn));
}

Result<BoundExprPtr> Binder::BindBinary(const Expr& e) {
  if ((e.op == "+" || e.op == "-") && (IsInterval(*e.args[0]) || IsInterval(*e.args[1]))) {
    return BindIntervalArithmetic(e);
  }
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr a, Bind(*e.args[0]));
  TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, Bind(*e.args[1]));
  const std::string& op = e.op;
  if (op == "AND" || op == "OR") {
    for (BoundExprPtr* side : {&a, &b}) {
      if ((*side)->null_literal) {
        TRIB_ASSIGN_OR_RETURN(*side, CastTo(std::move(*side), DataType::Boolean(), 0));
      }
      if ((*side)->type.id != TypeId::kBoolean) {
        return ErrorAt((*side)->pos,
                       op + " needs BOOLEAN operands, not " + TypeName((*side)->type));
      }
    }
    auto n = NewExpr(op == "AND" ? BoundKind::kAnd : BoundKind::kOr, DataType::Boolean(), e.pos);
    n->args.push_back(std::move(a));
    n->args.push_back(std::move(b));
    return Fold(std::move(n));
  }
  if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") {
    return MakeComparison(op, std::move(a), std::move(b), e.pos);
  }
  if (op == "-" && a->type.id == TypeId::kDate && b->type.id == TypeId::kDate) {
    // d1 - d2: the days from d2 to d1 (as DATEDIFF(d1, d2)).
    auto n = NewExpr(BoundKind::kFunction, DataType::Int(), e.pos);
    n->op = "DATEDIFF";
    n->args.push_back(std::move(a));
    n->args.push_back(std::move(b));
    return Fold(std::move(n));
  }
  auto temporal = [](const DataType& t) { return t.IsTimestamp() || t.id == TypeId::kDate; };
  if (op == "-" && temporal(a->type) && temporal(b->type)) {
    return ErrorAt(e.pos, "the difference of two " + TypeName(a->type) + " / " + TypeName(b->type) +
                              " values is TIMESTAMPDIFF(unit, t2, t1)");
  }
  if (op == "||") {
    int mode = static_cast<int>(CastMode::kExplicit);
    for (BoundExprPtr* side : {&a, &b}) {
      if (!(*side)->type.IsString() || (*side)->null_literal) {
        TRIB_ASSIGN_OR_RETURN(*side, CastTo(std::move(*side), DataType::String(), mode));
      }
    }
    auto n = NewExpr(BoundKind::kConcat, DataType::String(), e.pos);
    n->args.push_back(std::move(a));
    n->args.push_back(std::move(b));
    return Fold(std::move(n));
  }
  // Arithmetic.
  if (a->null_literal && b->null_literal) {
    TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), DataType::Int(), 0));
  }
  if (a->null_literal) {
    TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), b->type, 0));
  }
  if (b->null_literal) {
    TRIB_ASSIGN_OR_RETURN(b, CastTo(std::move(b), a->type, 0));
  }
  const DataType ta = a->type, tb = b->type;
  if (!ta.IsNumeric() || !tb.IsNumeric()) {
    return ErrorAt(
        e.pos, "operator " + op + " cannot be applied to " + TypeName(ta) + " and " + TypeName(tb));
  }
  bool nullable = ta.nullable || tb.nullable;
  DataType result;
  int mode = static_cast<int>(CastMode::kExplicit);
  if (ta.IsFloating() || tb.IsFloating()) {
    result = (ta.id == TypeId::kFloat && tb.id == TypeId::kFloat) ? DataType::Float()
                                                                  : DataType::Double();
    TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), result, mode));
    TRIB_ASSIGN_OR_RETURN(b, CastTo(std::move(b), result, mode));
  } else if (ta.id == TypeId::kDecimal || tb.id == TypeId::kDecimal) {
    DataType da = DecimalFor(ta), db = DecimalFor(tb);
    TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), da, mode));
    TRIB_ASSIGN_OR_RETURN(b, CastTo(std::move(b), db, mode));
    int32_t p1 = da.precision, s1 = da.scale, p2 = db.precision, s2 = db.scale;
    int32_t p, s;
    if (op == "+" || op == "-") {
      s = std::max(s1, s2);
      p = std::max(p1 - s1, p2 - s2) + s + 1;
    } else if (op == "*") {
      s = s1 + s2;
      p = p1 + p2;
    } else if (op == "/") {
      s = std::max(6, s1 + p2 + 1);
      p = p1 - s1 + s2 + s;
    } else {  // %
      s = std::max(s1, s2);
      p = std::min(p1 - s1, p2 - s2) + s;
    }
    if (p > 38) {
      // Keep the integer digits, give up fraction digits (at least 6 for division).
      int32_t int_digits = p - s;
      s = std::max(std::min(s, op == "/" ? 6 : s), 38 - int_digits);
      s = std::min(s, 38);
      p = 38;
      if (s > 38) s = 38;
    }
    result = DataType::Decimal(p, std::max(0, std::min(s, p)));
  } else {
    result = IntegerOfRank(std::max({IntegerRank(ta.id), IntegerRank(tb.id), 3}));
    TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), result, mode));
    TRIB_ASSIGN_OR_RETURN(b, CastTo(std::move(b), result, mode));
  }
  auto n = NewExpr(BoundKind::kArithmetic, result.WithNullable(nullable), e.pos);
  n->op = op;
  n->args.push_back(std::move(a));
  n->args.push_back(std::move(b));
  return Fold(std::move(n));
}

}  // namespace tributary::sql
