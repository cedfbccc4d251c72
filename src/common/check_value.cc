#include "common/check_value.h"

#include <string>

#include "common/datetime.h"

namespace tributary {

Status CheckValue(const Value& v, const Field& f) {
  const DataType& t = f.type;
  auto bad = [&](const std::string& why) {
    return Status::Invalid("column '" + f.name + "' (" + t.ToString() + "): " + why);
  };
  if (v.is_null()) {
    if (!t.nullable) return bad("NULL is not allowed");
    return Status::OK();
  }
  switch (t.id) {
    case TypeId::kBoolean:
      if (!v.is_bool()) return bad("expected a BOOLEAN value");
      break;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt: {
      if (!v.is_int()) return bad("expected an integer value");
      int64_t x = v.int_value();
      int64_t lo = t.id == TypeId::kTinyInt    ? -128
                   : t.id == TypeId::kSmallInt ? -32768
                   : t.id == TypeId::kInt      ? -2147483648LL
                                               : INT64_MIN;
      int64_t hi = t.id == TypeId::kTinyInt    ? 127
                   : t.id == TypeId::kSmallInt ? 32767
                   : t.id == TypeId::kInt      ? 2147483647LL
                                               : INT64_MAX;
      if (x < lo || x > hi) return bad("value " + std::to_string(x) + " is out of range");
      break;
    }
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (!v.is_double()) return bad("expected a floating-point value");
      break;
    case TypeId::kDecimal:
      if (!v.is_decimal()) return bad("expected a DECIMAL value");
      break;
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      if (!v.is_string()) return bad("expected a string value");
      if (t.length != kMaxVarLength && static_cast<int64_t>(v.string_value().size()) > t.length) {
        if (!t.IsString()) {
          return bad("value is longer than " + std::to_string(t.length) + " bytes");
        }
        // CHAR/VARCHAR lengths count characters: UTF-8 bytes that do not continue a character.
        int64_t chars = 0;
        for (unsigned char c : v.string_value()) chars += (c & 0xC0) != 0x80;
        if (chars > t.length) {
          return bad("value is longer than " + std::to_string(t.length) + " characters");
        }
      }
      break;
    // Every producer checks its range (datetime.h); this is the last line before a file, where
    // a DATE is 32 bits and a value outside 0000-9999 would come back as another day.
    case TypeId::kDate:
      if (!v.is_int()) return bad("expected a date/time value");
      if (!DateInRange(v.int_value())) {
        return bad(
            DateOutOfRange("DATE " + std::to_string(v.int_value()) + " (days since 1970-01-01)")
                .message());
      }
      break;
    case TypeId::kTime:
      if (!v.is_int()) return bad("expected a date/time value");
      if (v.int_value() < 0 || v.int_value() >= 86400000) {
        return bad("TIME " + std::to_string(v.int_value()) +
                   " (milliseconds of the day) is outside 00:00:00 to 23:59:59.999");
      }
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      if (!v.is_timestamp()) return bad("expected a TIMESTAMP value");
      if (!TimestampInRange(v.timestamp_value())) {
        return bad(TimestampOutOfRange("TIMESTAMP " + std::to_string(v.timestamp_value().millis) +
                                       " (milliseconds since 1970-01-01)")
                       .message());
      }
      break;
    case TypeId::kArray:
      if (!v.is_array()) return bad("expected an ARRAY value");
      for (const Value& e : v.array_elements()) {
        TRIB_RETURN_NOT_OK(CheckValue(e, Field{0, f.name + "[]", t.element(), ""}));
      }
      break;
    case TypeId::kMultiset:
    case TypeId::kMap:
      if (!v.is_map()) return bad("expected a MAP value");
      for (size_t i = 0; i < v.map_keys().size(); i++) {
        TRIB_RETURN_NOT_OK(
            CheckValue(v.map_keys()[i], Field{0, f.name + " key", t.key().NotNull(), ""}));
        TRIB_RETURN_NOT_OK(
            CheckValue(v.map_values()[i], Field{0, f.name + " value", t.value(), ""}));
      }
      break;
    case TypeId::kRow:
      if (!v.is_struct() || v.struct_fields().size() != t.fields().size()) {
        return bad("expected a ROW value with " + std::to_string(t.fields().size()) + " fields");
      }
      for (size_t i = 0; i < t.fields().size(); i++) {
        const Field& sub = t.fields()[i];
        TRIB_RETURN_NOT_OK(
            CheckValue(v.struct_fields()[i], Field{0, f.name + "." + sub.name, sub.type, ""}));
      }
      break;
  }
  return Status::OK();
}

}  // namespace tributary
