// Value: one field value of a row; Row: the values of one row in schema order.
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tributary/row_kind.h"
#include "tributary/types.h"

namespace tributary {

// DECIMAL(p, s): the unscaled integer; the scale comes from the column type.
struct Decimal {
  __int128 unscaled = 0;
  bool operator==(const Decimal&) const = default;
  auto operator<=>(const Decimal&) const = default;
};

// TIMESTAMP / TIMESTAMP_LTZ: milliseconds since the epoch plus nanoseconds within the millisecond.
struct Timestamp {
  int64_t millis = 0;
  int32_t nanos_of_milli = 0;  // 0..999999
  bool operator==(const Timestamp&) const = default;
  auto operator<=>(const Timestamp&) const = default;
};

// Physical representation per type:
//   BOOLEAN -> bool; TINYINT..BIGINT, DATE (days), TIME (millis of day) -> int64_t;
//   FLOAT, DOUBLE -> double; DECIMAL -> Decimal; CHAR, VARCHAR, BINARY, VARBINARY -> std::string;
//   TIMESTAMP, TIMESTAMP_LTZ -> Timestamp; NULL -> std::monostate.
class Value {
 public:
  Value() = default;
  static Value Null() { return Value(); }
  static Value Bool(bool b) { return Value(Rep(b)); }
  static Value Int(int64_t i) { return Value(Rep(i)); }
  static Value Double(double d) { return Value(Rep(d)); }
  static Value String(std::string s) { return Value(Rep(std::move(s))); }
  static Value Dec(Decimal d) { return Value(Rep(d)); }
  static Value Ts(Timestamp t) { return Value(Rep(t)); }

  bool is_null() const { return std::holds_alternative<std::monostate>(rep_); }
  bool is_bool() const { return std::holds_alternative<bool>(rep_); }
  bool is_int() const { return std::holds_alternative<int64_t>(rep_); }
  bool is_double() const { return std::holds_alternative<double>(rep_); }
  bool is_string() const { return std::holds_alternative<std::string>(rep_); }
  bool is_decimal() const { return std::holds_alternative<Decimal>(rep_); }
  bool is_timestamp() const { return std::holds_alternative<Timestamp>(rep_); }

  // REQUIRES: the matching is_*().
  bool bool_value() const { return std::get<bool>(rep_); }
  int64_t int_value() const { return std::get<int64_t>(rep_); }
  double double_value() const { return std::get<double>(rep_); }
  const std::string& string_value() const { return std::get<std::string>(rep_); }
  Decimal decimal_value() const { return std::get<Decimal>(rep_); }
  Timestamp timestamp_value() const { return std::get<Timestamp>(rep_); }

  bool operator==(const Value& o) const = default;

 private:
  using Rep = std::variant<std::monostate, bool, int64_t, double, std::string, Decimal, Timestamp>;
  explicit Value(Rep r) : rep_(std::move(r)) {}
  Rep rep_;
};

using Row = std::vector<Value>;

// Total order of two non-null values of the same type (strings and binaries bytewise unsigned,
// as Paimon orders them). Null sorts lowest.
int CompareValues(const Value& a, const Value& b);

// Text form of a value of type `t`, as printed by queries: DATE "YYYY-MM-DD", TIME "HH:MM:SS[.fff]",
// TIMESTAMP "YYYY-MM-DD HH:MM:SS[.ffffff]" (fraction only when non-zero), DECIMAL with its scale,
// FLOAT with the shortest digits that round-trip a float. NULL prints as "NULL".
std::string FormatValue(const Value& v, const DataType& t);

// A type-free rendering for logs and test failures: NULL, 42, 1.5, 'text', dec:1234, ts:ms+ns.
std::string DebugString(const Value& v);
std::ostream& operator<<(std::ostream& os, const Value& v);

}  // namespace tributary
