// Conversions between SQL types on tributary::Value (representation documented in value.h),
// type compatibility rules, and a total order of values of one type.
// Thread-safety: free functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary {
class TimeZone;
}  // namespace tributary

namespace tributary::sql {

// The session time zone ('table.local-time-zone') of the statement this thread runs: casts
// between TIMESTAMP_LTZ (an instant) and wall-clock types (TIMESTAMP, DATE, TIME, strings) go
// through it, as in Flink. None installed (the option unset): UTC. The session installs it for
// each statement and while its rows are printed.
class SessionZoneScope {
 public:
  explicit SessionZoneScope(const TimeZone* zone);
  ~SessionZoneScope();
  SessionZoneScope(const SessionZoneScope&) = delete;
  SessionZoneScope& operator=(const SessionZoneScope&) = delete;

 private:
  const TimeZone* previous_;
};
// The installed zone, or null (UTC).
const TimeZone* SessionZone();
// An instant (TIMESTAMP_LTZ's value) as the session zone's wall-clock time, and back.
Timestamp InstantToLocal(const Timestamp& instant);
Timestamp LocalToInstant(const Timestamp& local);
// Whether `t` is TIMESTAMP_LTZ or holds one (at any depth).
bool HasLtz(const DataType& t);
// `v` of type `t` with its TIMESTAMP_LTZ values (instants), at any depth, as the session zone's
// wall-clock time.
Value ToSessionZone(const Value& v, const DataType& t);

enum class CastMode {
  kExplicit,    // CAST(x AS T): every sensible conversion; numbers truncate toward zero
  kAssignment,  // INSERT/UPDATE into a column: widening and range-checked narrowing of numbers,
                // strings into strings (length checked), dates and times from strings
};

// Whether `from` may be converted to `to` in `mode` (values may still fail, e.g. out of range).
bool CanCast(const DataType& from, const DataType& to, CastMode mode);

// Converts a value of type `from` to type `to`. NULL stays NULL. Errors name the value and type
// ("value 300 is out of range for TINYINT").
Result<Value> CastValue(const Value& v, const DataType& from, const DataType& to, CastMode mode);

// The type both sides of a comparison are converted to; nullopt when they cannot be compared.
std::optional<DataType> ComparisonType(const DataType& a, const DataType& b);

// The least type every input fits in (CASE, COALESCE, IN lists, VALUES columns); nullopt when
// there is none.
std::optional<DataType> CommonType(const std::vector<DataType>& types);

// Orders two non-null values of the same type (decimals of the same scale).
int CompareSame(const Value& a, const Value& b);

// Width order of the integer types: TINYINT 1, SMALLINT 2, INT 3, BIGINT 4; 0 for the others.
int IntegerRank(TypeId id);

// The DECIMAL type that holds every value of an integer type (INT -> DECIMAL(10, 0)).
DataType DecimalFor(const DataType& integer_type);

// Type name for messages: "INT", "DECIMAL(10, 2)", "STRING" (without NOT NULL).
std::string TypeName(const DataType& t);

// Appends a byte encoding of `v` to `out`, equal exactly when the values are equal; used as a
// hash key by GROUP BY and DISTINCT.
void AppendKey(const Value& v, std::string* out);

}  // namespace tributary::sql
