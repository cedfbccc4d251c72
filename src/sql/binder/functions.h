// Built-in scalar functions beyond the core ones of the binder (numeric: ROUND, FLOOR, POWER,
// ...; string: REPLACE, LPAD, REGEXP_EXTRACT, ...; conditional: IF, GREATEST, LEAST; date and
// time: YEAR .. SECOND, DATE_FORMAT, TO_DATE, ...), with Flink's names and semantics. The binder
// calls BindScalarFunction for them, evaluation EvalScalarFunction. docs/sql.md lists them.
// Internal to sql/.
// Thread-safety: stateless functions (compiled patterns are cached under a lock).
#pragma once

#include <string>
#include <vector>

#include "sql/binder/expression.h"

namespace tributary::sql {

struct FunctionInfo;  // function_registry.h

bool IsScalarFunction(const std::string& upper_name);
// Functions whose value changes from call to call (RAND, UUID, the clock): never folded into a
// constant.
bool IsVolatileFunction(const std::string& upper_name, size_t arg_count);
// Every function name SQL knows (scalar, aggregate and window functions), sorted: SHOW FUNCTIONS.
std::vector<std::string> AllFunctionNames();

struct ScalarBinding {
  DataType type;
  // The result may be NULL although no argument is (REGEXP_EXTRACT without a match, ...).
  bool may_return_null = false;
};
// The scalar functions, one row each (function_registry.h): name, kind, flags, type rules,
// evaluation. Adding a function is a row here and its two functions in functions.cc.
const std::vector<FunctionInfo>& ScalarFunctions();
// Checks and converts the bound arguments of `f` (they are replaced by casts where needed) and
// returns the result type.
Result<ScalarBinding> BindScalarFunction(const std::string& f, const Pos& pos,
                                         std::vector<BoundExprPtr>* args);
// `e` (bound by BindScalarFunction) over its argument values.
Result<Value> EvalScalarFunction(const BoundExpr& e, const std::vector<Value>& args);

}  // namespace tributary::sql
