// Value: one field value of a row; Row: the values of one row in schema order.
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
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

class Value;

// The payload of a nested value, immutable and shared between copies of the Value.
//   ARRAY: items = the elements; MAP and MULTISET: items = the keys, values = the values (in
//   the order written; keys are distinct); ROW: items = the field values in field order.
struct NestedValue {
  enum class Kind : uint8_t { kArray, kMap, kRow };
  Kind kind = Kind::kArray;
  std::vector<Value> items;
  std::vector<Value> values;
};

// Physical representation per type:
//   BOOLEAN -> bool; TINYINT..BIGINT, DATE (days), TIME (millis of day) -> int64_t;
//   FLOAT, DOUBLE -> double; DECIMAL -> Decimal; CHAR, VARCHAR, BINARY, VARBINARY -> std::string;
//   TIMESTAMP, TIMESTAMP_LTZ -> Timestamp; ARRAY, MAP, MULTISET (element -> count), ROW ->
//   std::shared_ptr<const NestedValue>; NULL -> std::monostate.
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
  static Value Array(std::vector<Value> elements);
  // REQUIRES: keys.size() == values.size(). Also the value of a MULTISET (element -> count).
  static Value Map(std::vector<Value> keys, std::vector<Value> values);
  static Value Struct(std::vector<Value> fields);  // a ROW value

  bool is_null() const { return std::holds_alternative<std::monostate>(rep_); }
  bool is_bool() const { return std::holds_alternative<bool>(rep_); }
  bool is_int() const { return std::holds_alternative<int64_t>(rep_); }
  bool is_double() const { return std::holds_alternative<double>(rep_); }
  bool is_string() const { return std::holds_alternative<std::string>(rep_); }
  bool is_decimal() const { return std::holds_alternative<Decimal>(rep_); }
  bool is_timestamp() const { return std::holds_alternative<Timestamp>(rep_); }
  bool is_nested() const { return std::holds_alternative<NestedPtr>(rep_); }
  bool is_array() const { return is_nested_kind(NestedValue::Kind::kArray); }
  bool is_map() const { return is_nested_kind(NestedValue::Kind::kMap); }
  bool is_struct() const { return is_nested_kind(NestedValue::Kind::kRow); }

  // REQUIRES: the matching is_*().
  bool bool_value() const { return std::get<bool>(rep_); }
  int64_t int_value() const { return std::get<int64_t>(rep_); }
  double double_value() const { return std::get<double>(rep_); }
  const std::string& string_value() const { return std::get<std::string>(rep_); }
  Decimal decimal_value() const { return std::get<Decimal>(rep_); }
  Timestamp timestamp_value() const { return std::get<Timestamp>(rep_); }
  const NestedValue& nested() const { return *std::get<NestedPtr>(rep_); }
  const std::vector<Value>& array_elements() const { return nested().items; }
  const std::vector<Value>& map_keys() const { return nested().items; }
  const std::vector<Value>& map_values() const { return nested().values; }
  const std::vector<Value>& struct_fields() const { return nested().items; }

  // Deep equality for nested values; flat values compare as before (NaN != NaN).
  bool operator==(const Value& o) const {
    if (is_nested() && o.is_nested()) return NestedEquals(o);
    return rep_ == o.rep_;
  }

 private:
  using NestedPtr = std::shared_ptr<const NestedValue>;
  using Rep = std::variant<std::monostate, bool, int64_t, double, std::string, Decimal, Timestamp,
                           NestedPtr>;
  explicit Value(Rep r) : rep_(std::move(r)) {}
  bool is_nested_kind(NestedValue::Kind k) const {
    const NestedPtr* p = std::get_if<NestedPtr>(&rep_);
    return p != nullptr && (*p)->kind == k;
  }
  bool NestedEquals(const Value& o) const;
  Rep rep_;
};

using Row = std::vector<Value>;

// Total order of two non-null values of the same type (strings and binaries bytewise unsigned,
// as Paimon orders them; arrays, maps and rows lexicographically by element). Null sorts lowest.
int CompareValues(const Value& a, const Value& b);

// Text form of a value of type `t`, as printed by queries: DATE "YYYY-MM-DD", TIME
// "HH:MM:SS[.fff]", TIMESTAMP "YYYY-MM-DD HH:MM:SS[.ffffff]" (fraction only when non-zero), DECIMAL
// with its scale, FLOAT with the shortest digits that round-trip a float. NULL prints as "NULL".
// Nested values print as Flink prints them: ARRAY "[1, 2]", MAP and MULTISET "{k1=v1, k2=v2}", ROW
// "(1, abc)"; strings inside them unquoted, NULL inside them as "NULL".
std::string FormatValue(const Value& v, const DataType& t);

// A type-free rendering for logs and test failures: NULL, 42, 1.5, 'text', dec:1234, ts:ms+ns.
std::string DebugString(const Value& v);
std::ostream& operator<<(std::ostream& os, const Value& v);

}  // namespace tributary
