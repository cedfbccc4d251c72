#include "sql/function_registry.h"

#include <unordered_map>

namespace tributary::sql {

namespace {
using K = FunctionKind;
constexpr uint8_t V = kVolatile, N = kMayReturnNull, W = kReadsWallClock;

const std::vector<FunctionInfo>& Table() {
  static const std::vector<FunctionInfo> kTable = {
      // Core: the binder's own.
      {"COALESCE", K::kCore, kNone}, {"IFNULL", K::kCore, kNone}, {"NULLIF", K::kCore, kNone},
      {"UPPER", K::kCore, kNone}, {"LOWER", K::kCore, kNone}, {"LENGTH", K::kCore, kNone},
      {"CHAR_LENGTH", K::kCore, kNone}, {"SUBSTRING", K::kCore, kNone},
      {"SUBSTR", K::kCore, kNone}, {"TRIM", K::kCore, kNone}, {"LTRIM", K::kCore, kNone},
      {"RTRIM", K::kCore, kNone}, {"CONCAT", K::kCore, kNone}, {"ABS", K::kCore, kNone},
      {"MOD", K::kCore, kNone}, {"POSITION", K::kCore, kNone},
      {"CARDINALITY", K::kCore, kNone}, {"CAST", K::kCore, kNone},
      {"TRY_CAST", K::kCore, kNone}, {"EXTRACT", K::kCore, kNone}, {"ARRAY", K::kCore, kNone},
      {"MAP", K::kCore, kNone}, {"ROW", K::kCore, kNone},
      {"CURRENT_DATE", K::kCore, V}, {"CURRENT_TIME", K::kCore, V},
      {"CURRENT_TIMESTAMP", K::kCore, V}, {"LOCALTIMESTAMP", K::kCore, V},
      {"NOW", K::kCore, V}, {"PROCTIME", K::kCore, V},
      // Numeric.
      {"ROUND", K::kScalar, kNone}, {"TRUNCATE", K::kScalar, kNone},
      {"FLOOR", K::kScalar, kNone}, {"CEIL", K::kScalar, kNone}, {"CEILING", K::kScalar, kNone},
      {"POWER", K::kScalar, kNone}, {"POW", K::kScalar, kNone}, {"SQRT", K::kScalar, kNone},
      {"LN", K::kScalar, kNone}, {"LOG10", K::kScalar, kNone}, {"LOG2", K::kScalar, kNone},
      {"LOG", K::kScalar, N}, {"EXP", K::kScalar, kNone}, {"SIGN", K::kScalar, kNone},
      {"PI", K::kScalar, kNone}, {"SIN", K::kScalar, kNone}, {"COS", K::kScalar, kNone},
      {"TAN", K::kScalar, kNone}, {"COT", K::kScalar, kNone}, {"ASIN", K::kScalar, kNone},
      {"ACOS", K::kScalar, kNone}, {"ATAN", K::kScalar, kNone}, {"ATAN2", K::kScalar, kNone},
      {"SINH", K::kScalar, kNone}, {"COSH", K::kScalar, kNone}, {"TANH", K::kScalar, kNone},
      {"DEGREES", K::kScalar, kNone}, {"RADIANS", K::kScalar, kNone},
      {"HEX", K::kScalar, kNone}, {"BIN", K::kScalar, kNone},
      // String.
      {"REPLACE", K::kScalar, kNone}, {"REPEAT", K::kScalar, kNone},
      {"REVERSE", K::kScalar, kNone}, {"INITCAP", K::kScalar, kNone},
      {"LPAD", K::kScalar, N}, {"RPAD", K::kScalar, N}, {"LOCATE", K::kScalar, kNone},
      {"CONCAT_WS", K::kScalar, N}, {"SPLIT_INDEX", K::kScalar, N},
      {"REGEXP", K::kScalar, kNone}, {"REGEXP_REPLACE", K::kScalar, kNone},
      {"REGEXP_EXTRACT", K::kScalar, N}, {"TO_BASE64", K::kScalar, kNone},
      {"FROM_BASE64", K::kScalar, N}, {"ASCII", K::kScalar, kNone}, {"CHR", K::kScalar, kNone},
      {"OVERLAY", K::kScalar, kNone},
      // Conditional.
      {"IF", K::kScalar, N}, {"GREATEST", K::kScalar, kNone}, {"LEAST", K::kScalar, kNone},
      // Hashing and random.
      {"MD5", K::kScalar, kNone}, {"SHA1", K::kScalar, kNone}, {"SHA224", K::kScalar, kNone},
      {"SHA256", K::kScalar, kNone}, {"SHA384", K::kScalar, kNone},
      {"SHA512", K::kScalar, kNone}, {"SHA2", K::kScalar, N}, {"RAND", K::kScalar, V},
      {"RAND_INTEGER", K::kScalar, V}, {"UUID", K::kScalar, V},
      // JSON.
      {"JSON_VALUE", K::kScalar, N}, {"JSON_EXISTS", K::kScalar, N},
      {"JSON_QUERY", K::kScalar, N},
      // Date and time.
      {"YEAR", K::kScalar, W}, {"QUARTER", K::kScalar, W}, {"MONTH", K::kScalar, W},
      {"DAYOFMONTH", K::kScalar, W}, {"DAYOFYEAR", K::kScalar, W}, {"DAYOFWEEK", K::kScalar, W},
      {"WEEK", K::kScalar, W}, {"HOUR", K::kScalar, W}, {"MINUTE", K::kScalar, W},
      {"SECOND", K::kScalar, W}, {"DATE_FORMAT", K::kScalar, W}, {"TO_DATE", K::kScalar, N},
      {"TO_TIMESTAMP", K::kScalar, N}, {"DATEDIFF", K::kScalar, W},
      {"DATE_ADD", K::kScalar, W}, {"DATE_SUB", K::kScalar, W},
      {"UNIX_TIMESTAMP", K::kScalar, kVolatileWithoutArgs | N},
      {"FROM_UNIXTIME", K::kScalar, kNone}, {"TO_TIMESTAMP_LTZ", K::kScalar, N},
      {"TIMESTAMPADD", K::kScalar, kNone}, {"TIMESTAMPDIFF", K::kScalar, kNone},
      // Internal forms the parser makes: d + INTERVAL ..., EXTRACT(MILLISECOND | MICROSECOND |
      // EPOCH | DECADE | CENTURY | MILLENNIUM | ISODOW | ISOYEAR FROM x), FLOOR / CEIL(t TO unit).
      {"$ADD_INTERVAL", K::kInternal, kNone}, {"$MILLISECOND", K::kInternal, W},
      {"$MICROSECOND", K::kInternal, W}, {"$EPOCH", K::kInternal, kNone},
      {"$FLOOR_TO", K::kInternal, W}, {"$CEIL_TO", K::kInternal, W},
      {"$DECADE", K::kInternal, W}, {"$CENTURY", K::kInternal, W},
      {"$MILLENNIUM", K::kInternal, W}, {"$ISODOW", K::kInternal, W},
      {"$ISOYEAR", K::kInternal, W},
      // Aggregates.
      {"COUNT", K::kAggregate, kNone}, {"SUM", K::kAggregate, kNone},
      {"MIN", K::kAggregate, kNone}, {"MAX", K::kAggregate, kNone},
      {"AVG", K::kAggregate, kNone}, {"STDDEV_POP", K::kAggregate, kNone},
      {"STDDEV_SAMP", K::kAggregate, kNone}, {"STDDEV", K::kAggregate, kNone},
      {"VAR_POP", K::kAggregate, kNone}, {"VAR_SAMP", K::kAggregate, kNone},
      {"VARIANCE", K::kAggregate, kNone}, {"LISTAGG", K::kAggregate, kNone},
      {"FIRST_VALUE", K::kAggregate, kNone}, {"LAST_VALUE", K::kAggregate, kNone},
      // Window functions.
      {"ROW_NUMBER", K::kWindow, kNone}, {"RANK", K::kWindow, kNone},
      {"DENSE_RANK", K::kWindow, kNone}, {"LAG", K::kWindow, kNone},
      {"LEAD", K::kWindow, kNone},
  };
  return kTable;
}
}  // namespace

const std::vector<FunctionInfo>& AllFunctions() { return Table(); }

const FunctionInfo* FindFunction(const std::string& upper_name) {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string, const FunctionInfo*>();
    for (const FunctionInfo& f : Table()) (*m)[f.name] = &f;
    return m;
  }();
  auto it = index->find(upper_name);
  return it == index->end() ? nullptr : it->second;
}

}  // namespace tributary::sql
