#include "sql/binder/function_registry.h"

#include <unordered_map>

#include "sql/binder/functions.h"

namespace tributary::sql {

namespace {
using K = FunctionKind;
constexpr uint8_t V = kVolatile;

const std::vector<FunctionInfo>& Table() {
  static const std::vector<FunctionInfo> kTable = {
      // Core: the binder's own (the scalar functions of functions.cc are in its table).
      {"COALESCE", K::kCore, kNone},
      {"IFNULL", K::kCore, kNone},
      {"NULLIF", K::kCore, kNone},
      {"UPPER", K::kCore, kNone},
      {"LOWER", K::kCore, kNone},
      {"LENGTH", K::kCore, kNone},
      {"CHAR_LENGTH", K::kCore, kNone},
      {"SUBSTRING", K::kCore, kNone},
      {"SUBSTR", K::kCore, kNone},
      {"TRIM", K::kCore, kNone},
      {"LTRIM", K::kCore, kNone},
      {"RTRIM", K::kCore, kNone},
      {"CONCAT", K::kCore, kNone},
      {"ABS", K::kCore, kNone},
      {"MOD", K::kCore, kNone},
      {"POSITION", K::kCore, kNone},
      {"CARDINALITY", K::kCore, kNone},
      {"CAST", K::kCore, kNone},
      {"TRY_CAST", K::kCore, kNone},
      {"EXTRACT", K::kCore, kNone},
      {"ARRAY", K::kCore, kNone},
      {"MAP", K::kCore, kNone},
      {"ROW", K::kCore, kNone},
      {"CURRENT_DATE", K::kCore, V},
      {"CURRENT_TIME", K::kCore, V},
      {"CURRENT_TIMESTAMP", K::kCore, V},
      {"LOCALTIMESTAMP", K::kCore, V},
      {"NOW", K::kCore, V},
      {"PROCTIME", K::kCore, V},
      // Aggregates.
      {"COUNT", K::kAggregate, kNone},
      {"SUM", K::kAggregate, kNone},
      {"MIN", K::kAggregate, kNone},
      {"MAX", K::kAggregate, kNone},
      {"AVG", K::kAggregate, kNone},
      {"STDDEV_POP", K::kAggregate, kNone},
      {"STDDEV_SAMP", K::kAggregate, kNone},
      {"STDDEV", K::kAggregate, kNone},
      {"VAR_POP", K::kAggregate, kNone},
      {"VAR_SAMP", K::kAggregate, kNone},
      {"VARIANCE", K::kAggregate, kNone},
      {"LISTAGG", K::kAggregate, kNone},
      {"FIRST_VALUE", K::kAggregate, kNone},
      {"LAST_VALUE", K::kAggregate, kNone},
      // Window functions.
      {"ROW_NUMBER", K::kWindow, kNone},
      {"RANK", K::kWindow, kNone},
      {"DENSE_RANK", K::kWindow, kNone},
      {"LAG", K::kWindow, kNone},
      {"LEAD", K::kWindow, kNone},
  };
  return kTable;
}
}  // namespace

const std::vector<FunctionInfo>& AllFunctions() {
  static const std::vector<FunctionInfo>* all = [] {
    auto* v = new std::vector<FunctionInfo>(Table());
    const auto& scalar = ScalarFunctions();
    v->insert(v->end(), scalar.begin(), scalar.end());
    return v;
  }();
  return *all;
}

const FunctionInfo* FindFunction(const std::string& upper_name) {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string, const FunctionInfo*>();
    for (const FunctionInfo& f : AllFunctions()) (*m)[f.name] = &f;
    return m;
  }();
  auto it = index->find(upper_name);
  return it == index->end() ? nullptr : it->second;
}

}  // namespace tributary::sql
