// The registry of SQL functions: every function name SQL knows, declared once with what the
// binder, the constant folder, SHOW FUNCTIONS and docs/sql.md need to know about it (its kind,
// whether it is volatile, may return NULL for arguments that are not, or reads a TIMESTAMP_LTZ
// as the session zone's wall-clock time) and, for a scalar function, its type rules and
// evaluation. The core, aggregate and window functions are listed in function_registry.cc, the
// scalar functions in functions.cc's table (ScalarFunctions), one row each beside their code.
// function_registry_test checks the table and docs/sql.md against each other.
// Internal to sql/. Thread-safety: immutable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {
class Value;
}

namespace tributary::sql {

struct BoundExpr;
struct ScalarBindCall;
// A scalar function's type rules: checks the call's arguments (casting them where it wants
// another type) and sets the result's type.
using ScalarBinder = Status (*)(ScalarBindCall& call);
// A scalar function's evaluation over its arguments' values.
using ScalarEvaluator = Result<Value> (*)(const BoundExpr& call, const std::vector<Value>& args);

enum class FunctionKind : uint8_t {
  kCore,       // bound by the binder itself (COALESCE, SUBSTRING, CAST, the clock, ...)
  kScalar,     // bound and evaluated by functions.cc (ROUND, REGEXP_EXTRACT, YEAR, ...)
  kInternal,   // a scalar form the parser makes ($ADD_INTERVAL for d + INTERVAL ...): not listed
  kAggregate,  // COUNT, SUM, ... (also over a window)
  kWindow,     // ROW_NUMBER, RANK, LAG, ... (OVER only)
};

enum FunctionFlag : uint8_t {
  kNone = 0,
  // Its value changes from call to call (RAND, UUID, the clock): never folded into a constant.
  kVolatile = 1,
  // Volatile when called without arguments only (UNIX_TIMESTAMP()).
  kVolatileWithoutArgs = 2,
  // The result may be NULL although no argument is (REGEXP_EXTRACT without a match, ...).
  kMayReturnNull = 4,
  // Reads a date or time's fields: a TIMESTAMP_LTZ argument (an instant) is read as the session
  // zone's wall-clock time, as Flink does (HOUR(ltz) in Asia/Shanghai is UTC + 8).
  kReadsWallClock = 8,
  // Evaluated with NULL arguments too (IF, CONCAT_WS, RAND(seed), ...); without it a NULL
  // argument gives NULL and the function is not called.
  kSeesNull = 16,
};

struct FunctionInfo {
  const char* name;  // upper case, as SQL text names it (case-insensitively)
  FunctionKind kind;
  uint8_t flags;  // FunctionFlag bits
  // Scalar functions (functions.cc): their type rules (null for an internal form the binder
  // builds itself) and evaluation. Null for the others.
  ScalarBinder bind = nullptr;
  ScalarEvaluator eval = nullptr;
};

// Every function, in declaration order.
const std::vector<FunctionInfo>& AllFunctions();
// The function named `upper_name`, or nullptr.
const FunctionInfo* FindFunction(const std::string& upper_name);

}  // namespace tributary::sql
