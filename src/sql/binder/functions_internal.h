// What the scalar function files (functions_numeric.cc, functions_string.cc,
// functions_datetime.cc) share: the binding of one call, and each file's table of functions.
// Internal to sql/.
#pragma once

#include <string>
#include <vector>

#include "sql/binder/cast.h"
#include "sql/binder/function_registry.h"
#include "sql/binder/functions.h"
#include "sql/parser/lexer.h"

namespace tributary::sql {

// One binding of a scalar function's call: the arguments (replaced by casts where the function
// wants another type) and the result, with the checks the functions share.
struct ScalarBindCall {
  const std::string& f;
  const Pos& pos;
  std::vector<BoundExprPtr>& args;
  ScalarBinding b;

  Status Arity(size_t lo, size_t hi) const {
    if (args.size() < lo || args.size() > hi) {
      return ErrorAt(pos, "function " + f + " takes " +
                              (lo == hi ? std::to_string(lo)
                                        : std::to_string(lo) + " to " + std::to_string(hi)) +
                              " argument(s), got " + std::to_string(args.size()));
    }
    return Status::OK();
  }
  Status As(size_t i, const DataType& t) {
    TRIB_ASSIGN_OR_RETURN(args[i],
                          CastTo(std::move(args[i]), t, static_cast<int>(CastMode::kExplicit)));
    return Status::OK();
  }
  Status Need(size_t i, bool ok, const char* what) const {
    if (args[i]->null_literal) return Status::OK();
    if (!ok) {
      return ErrorAt(args[i]->pos,
                     "function " + f + " needs " + what + ", not " + TypeName(args[i]->type));
    }
    return Status::OK();
  }
  Status StringArg(size_t i) {
    TRIB_RETURN_NOT_OK(Need(i, args[i]->type.IsString(), "a string"));
    return As(i, DataType::String());
  }
  Status IntArg(size_t i) {
    TRIB_RETURN_NOT_OK(Need(i, args[i]->type.IsInteger(), "an integer"));
    return As(i, DataType::BigInt());
  }
  Status NumericArg(size_t i) {
    if (args[i]->null_literal) return As(i, DataType::Int());
    return Need(i, args[i]->type.IsNumeric(), "a number");
  }
  Status TemporalArg(size_t i, bool time_ok) {
    if (args[i]->null_literal) return As(i, DataType::Timestamp(3));
    const DataType& t = args[i]->type;
    const bool ok = t.id == TypeId::kDate || t.IsTimestamp() || (time_ok && t.id == TypeId::kTime);
    return Need(i, ok, time_ok ? "a DATE, TIME or TIMESTAMP" : "a DATE or TIMESTAMP");
  }
};

// Each file's functions, one row each (function_registry.h); ScalarFunctions() is all three.
const std::vector<FunctionInfo>& NumericFunctions();
const std::vector<FunctionInfo>& StringFunctions();
const std::vector<FunctionInfo>& DateTimeFunctions();

}  // namespace tributary::sql
