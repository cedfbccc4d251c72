// The scalar functions' entry points (functions.h): the binder and the evaluator reach every
// scalar function through the registry (function_registry.h); the functions themselves live in
// functions_numeric.cc, functions_string.cc and functions_datetime.cc, one row each.
#include "sql/binder/functions.h"

#include <algorithm>

#include "common/datetime.h"
#include "sql/binder/function_registry.h"
#include "sql/binder/functions_internal.h"

namespace tributary::sql {

bool IsScalarFunction(const std::string& f) {
  const FunctionInfo* info = FindFunction(f);
  return info != nullptr &&
         (info->kind == FunctionKind::kScalar || info->kind == FunctionKind::kInternal);
}

bool IsVolatileFunction(const std::string& f, size_t arg_count) {
  const FunctionInfo* info = FindFunction(f);
  return info != nullptr && ((info->flags & kVolatile) != 0 ||
                             ((info->flags & kVolatileWithoutArgs) != 0 && arg_count == 0));
}

std::vector<std::string> AllFunctionNames() {
  std::vector<std::string> out;
  for (const FunctionInfo& f : AllFunctions()) {
    if (f.kind != FunctionKind::kInternal) out.push_back(f.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<FunctionInfo>& ScalarFunctions() {
  static const std::vector<FunctionInfo>* all = [] {
    auto* v = new std::vector<FunctionInfo>();
    for (const auto* part : {&NumericFunctions(), &StringFunctions(), &DateTimeFunctions()}) {
      v->insert(v->end(), part->begin(), part->end());
    }
    return v;
  }();
  return *all;
}

Result<ScalarBinding> BindScalarFunction(const std::string& f, const Pos& pos,
                                         std::vector<BoundExprPtr>* args) {
  const FunctionInfo* info = FindFunction(f);
  if (info == nullptr || info->bind == nullptr) {
    return ErrorAt(pos, "unknown function '" + f + "'");
  }
  ScalarBindCall call{f, pos, *args, ScalarBinding{}};
  call.b.may_return_null = (info->flags & kMayReturnNull) != 0;
  TRIB_RETURN_NOT_OK(info->bind(call));
  return call.b;
}

namespace {

// Functions that read a date or time's fields: a TIMESTAMP_LTZ argument (an instant) is read as
// the session zone's wall-clock time, as Flink does (HOUR(ltz) in Asia/Shanghai is UTC + 8).
bool ReadsWallClock(const std::string& f) {
  const FunctionInfo* info = FindFunction(f);
  return info != nullptr && (info->flags & kReadsWallClock) != 0;
}

Result<Value> EvalScalarFunctionWallClock(const BoundExpr& e, const std::vector<Value>& args) {
  const FunctionInfo* info = FindFunction(e.op);
  if (info == nullptr || info->eval == nullptr) {
    return Status::Internal("function " + e.op + " has no implementation");
  }
  if ((info->flags & kSeesNull) == 0) {
    for (const auto& v : args) {
      if (v.is_null()) return Value::Null();
    }
  }
  return info->eval(e, args);
}

}  // namespace

Result<Value> EvalScalarFunction(const BoundExpr& e, const std::vector<Value>& args) {
  if (SessionZone() != nullptr && ReadsWallClock(e.op)) {
    bool ltz = false;
    for (size_t i = 0; i < args.size() && i < e.args.size(); i++) {
      ltz = ltz || (e.args[i]->type.id == TypeId::kTimestampLtz && !args[i].is_null());
    }
    if (ltz) {
      std::vector<Value> local = args;
      for (size_t i = 0; i < local.size() && i < e.args.size(); i++) {
        if (e.args[i]->type.id == TypeId::kTimestampLtz && !local[i].is_null()) {
          local[i] = Value::Ts(InstantToLocal(local[i].timestamp_value()));
        }
      }
      return EvalScalarFunctionWallClock(e, local);
    }
  }
  return EvalScalarFunctionWallClock(e, args);
}

}  // namespace tributary::sql
