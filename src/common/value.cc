#include "tributary/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ostream>
#include <string>

#include "common/datetime.h"

namespace tributary {

namespace {
std::shared_ptr<const NestedValue> MakeNested(NestedValue::Kind kind, std::vector<Value> items,
                                              std::vector<Value> values) {
  auto n = std::make_shared<NestedValue>();
  n->kind = kind;
  n->items = std::move(items);
  n->values = std::move(values);
  return n;
}

int CompareLists(const std::vector<Value>& a, const std::vector<Value>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; i++) {
    int c = CompareValues(a[i], b[i]);
    if (c != 0) return c;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}
}  // namespace

Value Value::Array(std::vector<Value> elements) {
  return Value(Rep(MakeNested(NestedValue::Kind::kArray, std::move(elements), {})));
}

Value Value::Map(std::vector<Value> keys, std::vector<Value> values) {
  return Value(Rep(MakeNested(NestedValue::Kind::kMap, std::move(keys), std::move(values))));
}

Value Value::Struct(std::vector<Value> fields) {
  return Value(Rep(MakeNested(NestedValue::Kind::kRow, std::move(fields), {})));
}

bool Value::NestedEquals(const Value& o) const {
  const NestedValue& a = nested();
  const NestedValue& b = o.nested();
  if (&a == &b) return true;
  return a.kind == b.kind && a.items == b.items && a.values == b.values;
}

int CompareValues(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  if (a.is_nested() && b.is_nested()) {
    // Lexicographic: elements (map keys) first, then map values.
    int c = CompareLists(a.nested().items, b.nested().items);
    if (c != 0) return c;
    return CompareLists(a.nested().values, b.nested().values);
  }
  auto cmp = [](const auto& x, const auto& y) { return x < y ? -1 : (y < x ? 1 : 0); };
  if (a.is_int() && b.is_int()) return cmp(a.int_value(), b.int_value());
  if (a.is_string() && b.is_string()) {
    int c = a.string_value().compare(b.string_value());  // char_traits<char> compares unsigned
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  if (a.is_double() && b.is_double()) {
    double x = a.double_value(), y = b.double_value();
    if (std::isnan(x) || std::isnan(y))
      return std::isnan(x) == std::isnan(y) ? 0 : (std::isnan(x) ? 1 : -1);
    return cmp(x, y);
  }
  if (a.is_bool() && b.is_bool()) return cmp(a.bool_value(), b.bool_value());
  if (a.is_decimal() && b.is_decimal()) return cmp(a.decimal_value(), b.decimal_value());
  if (a.is_timestamp() && b.is_timestamp()) return cmp(a.timestamp_value(), b.timestamp_value());
  // Mixed numeric kinds (e.g. a literal against a column) compare as doubles.
  auto as_double = [](const Value& v, double* out) {
    if (v.is_int())
      *out = static_cast<double>(v.int_value());
    else if (v.is_double())
      *out = v.double_value();
    else
      return false;
    return true;
  };
  double x, y;
  if (as_double(a, &x) && as_double(b, &y)) return cmp(x, y);
  auto rank = [](const Value& v) {
    return v.is_bool()     ? 0
           : v.is_int()    ? 1
           : v.is_double() ? 2
           : v.is_string() ? 3
           : v.is_nested() ? 5
                           : 4;
  };
  return cmp(rank(a), rank(b));
}

namespace {
std::string FormatFloating(double d, bool is_float) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  std::to_chars_result r = is_float ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(d))
                                    : std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string HexBytes(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "X'";
  for (unsigned char c : s) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out + "'";
}
}  // namespace

std::string FormatValue(const Value& v, const DataType& t) {
  if (v.is_null()) return "NULL";
  if (t.IsNested() != v.is_nested()) return DebugString(v);  // never crash on a mismatch
  switch (t.id) {
    case TypeId::kBoolean:
      return v.bool_value() ? "true" : "false";
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
      return std::to_string(v.int_value());
    case TypeId::kFloat:
    case TypeId::kDouble:
      return FormatFloating(v.is_double() ? v.double_value() : static_cast<double>(v.int_value()),
                            t.id == TypeId::kFloat);
    case TypeId::kDecimal:
      return FormatDecimal(v.decimal_value().unscaled, t.scale);
    case TypeId::kChar:
    case TypeId::kVarChar:
      return v.string_value();
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return HexBytes(v.string_value());
    case TypeId::kDate:
      return FormatDate(v.int_value());
    case TypeId::kTime:
      return FormatTime(v.int_value());
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      return FormatTimestamp(v.timestamp_value());
    case TypeId::kArray: {
      std::string out = "[";
      const auto& items = v.nested().items;
      for (size_t i = 0; i < items.size(); i++) {
        if (i) out += ", ";
        out += FormatValue(items[i], t.element());
      }
      return out + "]";
    }
    case TypeId::kMultiset:
    case TypeId::kMap: {
      std::string out = "{";
      const NestedValue& n = v.nested();
      for (size_t i = 0; i < n.items.size(); i++) {
        if (i) out += ", ";
        out += FormatValue(n.items[i], t.key()) + "=";
        out += i < n.values.size() ? FormatValue(n.values[i], t.value()) : "NULL";
      }
      return out + "}";
    }
    case TypeId::kRow: {
      std::string out = "(";
      const auto& items = v.nested().items;
      for (size_t i = 0; i < items.size(); i++) {
        if (i) out += ", ";
        out += i < t.fields().size() ? FormatValue(items[i], t.fields()[i].type)
                                     : DebugString(items[i]);
      }
      return out + ")";
    }
  }
  return "?";
}

std::string DebugString(const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.is_bool()) return v.bool_value() ? "true" : "false";
  if (v.is_int()) return std::to_string(v.int_value());
  if (v.is_double()) return FormatFloating(v.double_value(), false);
  if (v.is_string()) return "'" + v.string_value() + "'";
  if (v.is_decimal()) return "dec:" + FormatDecimal(v.decimal_value().unscaled, 0);
  if (v.is_nested()) {
    const NestedValue& n = v.nested();
    std::string out = n.kind == NestedValue::Kind::kArray ? "["
                      : n.kind == NestedValue::Kind::kMap ? "{"
                                                          : "(";
    for (size_t i = 0; i < n.items.size(); i++) {
      if (i) out += ", ";
      out += DebugString(n.items[i]);
      if (n.kind == NestedValue::Kind::kMap && i < n.values.size()) {
        out += "=" + DebugString(n.values[i]);
      }
    }
    return out + (n.kind == NestedValue::Kind::kArray ? "]"
                  : n.kind == NestedValue::Kind::kMap ? "}"
                                                      : ")");
  }
  Timestamp t = v.timestamp_value();
  return "ts:" + std::to_string(t.millis) + "+" + std::to_string(t.nanos_of_milli);
}

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << DebugString(v); }

}  // namespace tributary
