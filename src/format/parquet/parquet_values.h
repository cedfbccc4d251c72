// Conversions between Parquet physical values and Tributary Values (value.h) for flat columns:
// logical-type interpretation on read (DECIMAL, DATE, TIME, TIMESTAMP units, INT96, unsigned
// integers) and the physical form Paimon writes for each DataType.
// Thread-safety: ValueConverter is immutable after Make(); the functions are stateless.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "format/parquet/encodings.h"
#include "format/parquet/parquet_schema.h"
#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary::format::parquet {

// Turns the physical values of one flat leaf into Values of its DataType.
class ValueConverter {
 public:
  static Result<ValueConverter> Make(const LeafColumn& leaf);

  const DataType& type() const { return type_; }
  // REQUIRES: `i` < values.size() and `values` hold the leaf's physical type.
  Value Convert(const PhysicalValues& values, size_t i) const;
  // Whether Convert is the physical value itself (ints as Value::Int or Value::Bool, doubles,
  // bytes as strings), so a ColumnVector can take the physical vector as it is.
  bool IsDirect() const {
    return kind_ == Kind::kBool || kind_ == Kind::kInt || kind_ == Kind::kDouble ||
           kind_ == Kind::kBytes;
  }
  // A statistics value (PLAIN bytes without a length prefix); nullopt if malformed.
  std::optional<Value> ConvertStat(std::string_view bytes) const;

 private:
  enum class Kind {
    kBool,
    kInt,
    kUint32,
    kUint64,
    kDouble,
    kDecimalInt,
    kDecimalBytes,
    kBytes,
    kTimestampMillis,
    kTimestampMicros,
    kTimestampNanos,
    kInt96,
    kTimeMillis,
    kTimeMicros,
    kTimeNanos,
  };
  Kind kind_ = Kind::kInt;
  DataType type_;
  PhysicalType physical_ = PhysicalType::kInt32;
  int32_t type_length_ = 0;
};

// INT96 timestamps: 8 bytes little-endian nanoseconds of the day (read as signed, see
// golden/README.md section 2), then 4 bytes little-endian Julian day.
Timestamp DecodeInt96(std::string_view twelve_bytes);
std::string EncodeInt96(const Timestamp& ts);

// Appends the physical form of `v` (non-null, of `type`) to `out` (null: only checks `v`). A
// Value whose representation does not match the type is Invalid.
Status AppendPhysical(const DataType& type, PhysicalType physical, int32_t type_length,
                      const Value& v, PhysicalValues* out);

}  // namespace tributary::format::parquet
