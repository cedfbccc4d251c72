// What the Arrow IPC writer and reader share (format/arrow/ipc.h): metadata keys and the Arrow
// type each flat Tributary type is written as. Includes the generated flatbuffers code, so only
// the two .cc files include it.
#pragma once

#include <cstdint>
#include <string>

#include "format/arrow/arrow_generated.h"
#include "tributary/types.h"

namespace tributary::format::arrow {

inline constexpr const char* kFieldIdKey = "tributary.field-id";
inline constexpr const char* kTypeKey = "tributary.type";
// A Map field holding a MULTISET (its values are the counts) says so in its kTypeKey.
inline constexpr const char* kMultisetMark = "MULTISET";
// A map's key field is NOT NULL in Arrow; one whose Tributary type is nullable says so here.
inline constexpr const char* kNullableKey = "tributary.nullable";
// A field's comment (a ROW's fields are part of its type).
inline constexpr const char* kDescriptionKey = "tributary.description";
// A TIMESTAMP(7..9) column holding a value outside the nanosecond range (years 1677 to 2262) is
// written as a struct of its milliseconds (Int64) and nanoseconds of the millisecond (Int32),
// saying so here with this value.
inline constexpr const char* kEncodingKey = "tributary.encoding";
inline constexpr const char* kMillisNanos = "millis-nanos";

// A flat Arrow type, as much of it as tells two apart.
struct FlatType {
  fb::Type type = fb::Type::NONE;
  int32_t width = 0;  // Int and Time bit width, FixedSizeBinary byte width, Decimal precision
  int32_t scale = 0;  // Decimal scale; 1 for a signed Int
  int16_t unit = 0;   // FloatingPoint precision, Date, Time and Timestamp unit
  std::string tz;     // Timestamp time zone
  bool operator==(const FlatType&) const = default;
};

// How a flat Tributary type is written. REQUIRES: !t.IsNested().
FlatType FlatTypeOf(const DataType& t);

// The Timestamp unit of TIMESTAMP(p) and TIMESTAMP_LTZ(p).
inline fb::TimeUnit TimestampUnit(int32_t precision) {
  return precision <= 3   ? fb::TimeUnit::MILLISECOND
         : precision <= 6 ? fb::TimeUnit::MICROSECOND
                          : fb::TimeUnit::NANOSECOND;
}

}  // namespace tributary::format::arrow
