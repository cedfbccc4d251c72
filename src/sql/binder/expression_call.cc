// The binder's function calls (scalar functions through the registry, the core ones, nested
// constructors: ARRAY, MAP, ROW) and CASE.
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
#include "sql/binder/expression.h"
#include "sql/binder/expression_internal.h"
#include "sql/binder/functions.h"

namespace tributary::sql {

Result<BoundExprPtr> Binder::BindFunction(const Expr& e) {
  const std::string& f = e.op;
  auto arity = [&](size_t lo, size_t hi) -> Status {
    if (e.args.size() < lo || e.args.size() > hi) {
      std::string want =
          lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      return ErrorAt(e.pos, "function " + f + " takes " + want + " argument(s), got " +
                                std::to_string(e.args.size()));
    }
    return Status::OK();
  };
  if (e.star_arg) return ErrorAt(e.pos, "only COUNT accepts '*'");
  if (e.distinct) return ErrorAt(e.pos, "DISTINCT is only allowed in aggregate functions");
  std::vector<BoundExprPtr> args;
  for (const auto& a : e.args) {
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr b, Bind(*a));
    args.push_back(std::move(b));
  }
  if (f == "ARRAY" || f == "MAP" || f == "ROW" || f == "ITEM" || f == "FIELD" ||
      f == "CARDINALITY") {
    return BindNested(e, std::move(args));
  }
  DataType type;
  int mode = static_cast<int>(CastMode::kExplicit);
  auto need_string = [&](size_t i) -> Status {
    if (args[i]->null_literal || !args[i]->type.IsString()) {
      if (!args[i]->null_literal) {
        return ErrorAt(args[i]->pos, "function " + f + " needs a string argument, not " +
                                         TypeName(args[i]->type));
      }
      TRIB_ASSIGN_OR_RETURN(args[i], CastTo(std::move(args[i]), DataType::String(), mode));
    }
    return Status::OK();
  };
  auto need_integer = [&](size_t i) -> Status {
    if (args[i]->null_literal) {
      TRIB_ASSIGN_OR_RETURN(args[i], CastTo(std::move(args[i]), DataType::BigInt(), mode));
    }
    if (!args[i]->type.IsInteger()) {
      return ErrorAt(args[i]->pos, "function " + f + " needs an integer argument, not " +
                                       TypeName(args[i]->type));
    }
    TRIB_ASSIGN_OR_RETURN(args[i], CastTo(std::move(args[i]), DataType::BigInt(), mode));
    return Status::OK();
  };
  if (f == "UPPER" || f == "LOWER") {
    TRIB_RETURN_NOT_OK(arity(1, 1));
    TRIB_RETURN_NOT_OK(need_string(0));
    type = DataType::String();
  } else if (f == "TRIM" || f == "LTRIM" || f == "RTRIM") {
    // TRIM(s[, characters]): the characters (a space by default) removed from the ends.
    TRIB_RETURN_NOT_OK(arity(1, 2));
    for (size_t i = 0; i < args.size(); ++i) TRIB_RETURN_NOT_OK(need_string(i));
    type = DataType::String();
  } else if (f == "LENGTH" || f == "CHAR_LENGTH" || f == "CHARACTER_LENGTH") {
    TRIB_RETURN_NOT_OK(arity(1, 1));
    TRIB_RETURN_NOT_OK(need_string(0));
    type = DataType::Int();
  } else if (f == "SUBSTRING" || f == "SUBSTR") {
    TRIB_RETURN_NOT_OK(arity(2, 3));
    TRIB_RETURN_NOT_OK(need_string(0));
    for (size_t i = 1; i < args.size(); ++i) TRIB_RETURN_NOT_OK(need_integer(i));
    type = DataType::String();
  } else if (f == "CONCAT") {
    if (args.empty()) TRIB_RETURN_NOT_OK(arity(1, 1000));
    for (auto& a : args) {
      TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), DataType::String(), mode));
    }
    type = DataType::String();
  } else if (f == "COALESCE" || f == "IFNULL" || f == "NULLIF") {
    if (f == "COALESCE") {
      TRIB_RETURN_NOT_OK(arity(1, 1000));
    } else {
      TRIB_RETURN_NOT_OK(arity(2, 2));
    }
    std::vector<DataType> types;
    for (const auto& a : args) {
      if (!a->null_literal) types.push_back(a->type);
    }
    auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
    if (!common) return ErrorAt(e.pos, "arguments of " + f + " have incompatible types");
    bool nullable = true;
    if (f != "NULLIF") {
      nullable = std::all_of(args.begin(), args.end(),
                             [](const BoundExprPtr& a) { return a->type.nullable; });
    }
    for (auto& a : args) {
      TRIB_ASSIGN_OR_RETURN(a, CastTo(std::move(a), *common, mode));
    }
    type = common->WithNullable(nullable);
  } else if (f == "ABS") {
    TRIB_RETURN_NOT_OK(arity(1, 1));
    if (args[0]->null_literal) {
      TRIB_ASSIGN_OR_RETURN(args[0], CastTo(std::move(args[0]), DataType::Int(), mode));
    }
    if (!args[0]->type.IsNumeric()) {
      return ErrorAt(args[0]->pos, "ABS needs a number, not " + TypeName(args[0]->type));
    }
    type = args[0]->type;
  } else if (f == "MOD") {
    TRIB_RETURN_NOT_OK(arity(2, 2));
    Expr rewritten;
    rewritten.kind = ExprKind::kBinary;
    rewritten.op = "%";
    rewritten.pos = e.pos;
    rewritten.args.push_back(e.args[0]->Clone());
    rewritten.args.push_back(e.args[1]->Clone());
    return BindBinary(rewritten);
  } else if (f == "IS_TRUE" || f == "IS_FALSE") {
    if (args[0]->null_literal) {
      TRIB_ASSIGN_OR_RETURN(args[0], CastTo(std::move(args[0]), DataType::Boolean(), mode));
    }
    if (args[0]->type.id != TypeId::kBoolean) {
      return ErrorAt(e.pos, "IS TRUE/FALSE needs a BOOLEAN, not " + TypeName(args[0]->type));
    }
    type = DataType::Boolean().NotNull();
  } else if (f == "CURRENT_TIMESTAMP" || f == "NOW") {
    TRIB_RETURN_NOT_OK(arity(0, 0));
    type = DataType::TimestampLtz(3).NotNull();
  } else if (f == "LOCALTIMESTAMP") {
    TRIB_RETURN_NOT_OK(arity(0, 0));
    type = DataType::Timestamp(3).NotNull();
  } else if (f == "CURRENT_DATE") {
    TRIB_RETURN_NOT_OK(arity(0, 0));
    type = DataType::Date().NotNull();
  } else if (f == "CURRENT_TIME") {
    TRIB_RETURN_NOT_OK(arity(0, 0));
    type = DataType::Time(0).NotNull();
  } else if (f == "PROCTIME") {
    // Processing time: the time the row is read (a lookup join reads the dimension table as of
    // it: its latest snapshot).
    TRIB_RETURN_NOT_OK(arity(0, 0));
    type = DataType::TimestampLtz(3).NotNull();
  } else if (f == "$INTERVAL") {
    // Flink's INTERVAL types have no Paimon column type to store or return them as: a literal
    // shifts a date or time (d + INTERVAL '1' DAY) or bounds a RANGE frame.
    return NotSupportedAt(e.pos,
                          "an INTERVAL value on its own is not supported (no table stores "
                          "one): add it to or subtract it from a DATE or TIMESTAMP, or "
                          "use TIMESTAMPADD(unit, n, t) for a computed count");
  } else if (IsScalarFunction(f)) {
    TRIB_ASSIGN_OR_RETURN(ScalarBinding b, BindScalarFunction(f, e.pos, &args));
    type = b.type;
    if (!b.may_return_null && type.nullable) {
      type = type.WithNullable(std::any_of(args.begin(), args.end(),
                                           [](const BoundExprPtr& a) { return a->type.nullable; }));
    }
    auto n = NewExpr(BoundKind::kFunction, type, e.pos);
    n->op = f;
    n->args = std::move(args);
    return Fold(std::move(n));
  } else {
    return ErrorAt(e.pos, "unknown function '" + f + "'");
  }
  if (f != "COALESCE" && f != "IFNULL" && f != "NULLIF" && f != "IS_TRUE" && f != "IS_FALSE" &&
      type.nullable) {
    bool any_nullable = std::any_of(args.begin(), args.end(),
                                    [](const BoundExprPtr& a) { return a->type.nullable; });
    type = type.WithNullable(any_nullable);
  }
  auto n = NewExpr(BoundKind::kFunction, type, e.pos);
  n->op = f;
  n->args = std::move(args);
  return Fold(std::move(n));
}

Result<BoundExprPtr> Binder::BindFieldAccess(BoundExprPtr base, const std::string& name,
                                             const Pos& pos) {
  if (base->type.id != TypeId::kRow) {
    return ErrorAt(
        pos, "cannot access field '" + name + "' of " + TypeName(base->type) + " (not a ROW)");
  }
  const std::vector<Field>& fields = base->type.fields();
  int found = -1;
  for (int pass = 0; pass < 2 && found < 0; ++pass) {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (pass == 0 ? fields[i].name == name : EqualsIgnoreCase(fields[i].name, name)) {
        found = static_cast<int>(i);
        break;
      }
    }
  }
  if (found < 0) {
    std::string names;
    for (size_t i = 0; i < fields.size(); ++i) names += (i ? ", " : "") + fields[i].name;
    return ErrorAt(pos, "ROW has no field '" + name + "' (fields: " + names + ")");
  }
  DataType t = fields[found].type;
  t.nullable = t.nullable || base->type.nullable;
  auto n = NewExpr(BoundKind::kFunction, t, pos);
  n->op = "FIELD";
  n->column = found;
  n->args.push_back(std::move(base));
  return Fold(std::move(n));
}

// Value constructors ARRAY[...], MAP[...], ROW(...) and accessors x[i], x.f, CARDINALITY(x).
Result<BoundExprPtr> Binder::BindNested(const Expr& e, std::vector<BoundExprPtr> args) {
  const std::string& f = e.op;
  int mode = static_cast<int>(CastMode::kExplicit);
  // The common type of some arguments (NULL literals adapt); all are cast to it.
  auto unify = [&](std::vector<BoundExprPtr*> items, const char* what) -> Result<DataType> {
    std::vector<DataType> types;
    bool any_null = false;
    for (BoundExprPtr* a : items) {
      if ((*a)->null_literal) {
        any_null = true;
      } else {
        types.push_back((*a)->type);
      }
    }
    auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
    if (!common) return ErrorAt(e.pos, std::string(what) + " of " + f + " have incompatible types");
    DataType t = common->WithNullable(common->nullable || any_null);
    for (BoundExprPtr* a : items) {
      TRIB_ASSIGN_OR_RETURN(*a, CastTo(std::move(*a), t, mode));
    }
    return t;
  };
  DataType type;
  if (f == "ARRAY") {
    if (args.empty()) return ErrorAt(e.pos, "ARRAY[] needs at least one element");
    std::vector<BoundExprPtr*> items;
    for (auto& a : args) items.push_back(&a);
    TRIB_ASSIGN_OR_RETURN(DataType element, unify(items, "elements"));
    type = DataType::Array(element).NotNull();
  } else if (f == "MAP") {
    if (args.empty() || args.size() % 2 != 0) {
      return ErrorAt(e.pos, "MAP[...] needs key, value pairs");
    }
    std::vector<BoundExprPtr*> keys, values;
    for (size_t i = 0; i < args.size(); ++i) (i % 2 == 0 ? keys : values).push_back(&args[i]);
    TRIB_ASSIGN_OR_RETURN(DataType k, unify(keys, "keys"));
    TRIB_ASSIGN_OR_RETURN(DataType v, unify(values, "values"));
    type = DataType::Map(k, v).NotNull();
  } else if (f == "ROW") {
    if (args.empty()) return ErrorAt(e.pos, "ROW() needs at least one field");
    std::vector<Field> fields;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i]->null_literal) {
        TRIB_ASSIGN_OR_RETURN(args[i], CastTo(std::move(args[i]), DataType::String(), mode));
      }
      fields.push_back(Field{0, "EXPR$" + std::to_string(i), args[i]->type, ""});
    }
    type = DataType::Row(std::move(fields)).NotNull();
  } else if (f == "CARDINALITY") {
    if (args.size() != 1) return ErrorAt(e.pos, "function CARDINALITY takes 1 argument");
    const DataType& t = args[0]->type;
    if (t.id != TypeId::kArray && t.id != TypeId::kMap && t.id != TypeId::kMultiset) {
      return ErrorAt(e.pos, "CARDINALITY needs an ARRAY or MAP, not " + TypeName(t));
    }
    type = DataType::Int().WithNullable(t.nullable);
  } else if (f == "FIELD") {
    return BindFieldAccess(std::move(args[0]), e.text, e.pos);
  } else {  // ITEM
    const DataType base = args[0]->type;
    if (base.id == TypeId::kArray) {
      if (args[1]->null_literal) {
        TRIB_ASSIGN_OR_RETURN(args[1], CastTo(std::move(args[1]), DataType::BigInt(), mode));
      }
      if (!args[1]->type.IsInteger()) {
        return ErrorAt(args[1]->pos,
                       "an array index must be an integer, not " + TypeName(args[1]->type));
      }
      TRIB_ASSIGN_OR_RETURN(args[1], CastTo(std::move(args[1]), DataType::BigInt(), mode));
      type = base.element().WithNullable(true);
    } else if (base.id == TypeId::kMap || base.id == TypeId::kMultiset) {
      if (!args[1]->null_literal && !CanCast(args[1]->type, base.key(), CastMode::kExplicit)) {
        return ErrorAt(args[1]->pos,
                       "a key of " + TypeName(base) + " cannot be " + TypeName(args[1]->type));
      }
      TRIB_ASSIGN_OR_RETURN(args[1], CastTo(std::move(args[1]), base.key(), mode));
      type = base.value().WithNullable(true);
    } else {
      return ErrorAt(e.pos, "cannot subscript " + TypeName(base) + " (not an ARRAY or MAP)");
    }
  }
  auto n = NewExpr(BoundKind::kFunction, type, e.pos);
  n->op = f;
  n->args = std::move(args);
  return Fold(std::move(n));
}

Result<BoundExprPtr> Binder::BindCase(const Expr& e) {
  size_t i = 0;
  BoundExprPtr operand;
  if (e.has_case_operand) {
    TRIB_ASSIGN_OR_RETURN(operand, Bind(*e.args[0]));
    i = 1;
  }
  size_t end = e.args.size() - (e.has_else ? 1 : 0);
  std::vector<BoundExprPtr> conditions, results;
  for (; i < end; i += 2) {
    BoundExprPtr cond;
    if (operand) {
      // CASE x WHEN v: x = v, re-binding x for each branch.
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr x, Bind(*e.args[0]));
      TRIB_ASSIGN_OR_RETURN(BoundExprPtr v, Bind(*e.args[i]));
      TRIB_ASSIGN_OR_RETURN(cond, MakeComparison("=", std::move(x), std::move(v), e.args[i]->pos));
    } else {
      TRIB_ASSIGN_OR_RETURN(cond, BindPredicate(*e.args[i], "WHEN"));
    }
    conditions.push_back(std::move(cond));
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr r, Bind(*e.args[i + 1]));
    results.push_back(std::move(r));
  }
  if (e.has_else) {
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr r, Bind(*e.args.back()));
    results.push_back(std::move(r));
  }
  std::vector<DataType> types;
  for (const auto& r : results) {
    if (!r->null_literal) types.push_back(r->type);
  }
  auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
  if (!common) return ErrorAt(e.pos, "CASE branches have incompatible types");
  bool nullable =
      !e.has_else || std::any_of(results.begin(), results.end(),
                                 [](const BoundExprPtr& r) { return r->type.nullable; });
  auto n = NewExpr(BoundKind::kCase, common->WithNullable(nullable), e.pos);
  n->has_else = e.has_else;
  int mode = static_cast<int>(CastMode::kExplicit);
  for (size_t k = 0; k < conditions.size(); ++k) {
    n->args.push_back(std::move(conditions[k]));
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr r, CastTo(std::move(results[k]), *common, mode));
    n->args.push_back(std::move(r));
  }
  if (e.has_else) {
    TRIB_ASSIGN_OR_RETURN(BoundExprPtr r, CastTo(std::move(results.back()), *common, mode));
    n->args.push_back(std::move(r));
  }
  return Fold(std::move(n));
}

}  // namespace tributary::sql
