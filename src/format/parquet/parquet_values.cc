#include "format/parquet/parquet_values.h"

#include <cstring>

#include "format/binary_row.h"

namespace tributary::format::parquet {

namespace {

constexpr int64_t kJulianEpochDay = 2440588;  // 1970-01-01
constexpr __int128 kNanosPerDay = static_cast<__int128>(86400) * 1000000000;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Timestamp FromUnits(int64_t v, int64_t units_per_milli, int64_t nanos_per_unit) {
  int64_t millis = FloorDiv(v, units_per_milli);
  int64_t rest = v - millis * units_per_milli;
  return Timestamp{millis, static_cast<int32_t>(rest * nanos_per_unit)};
}

// Big-endian two's complement of `unscaled` in exactly `length` bytes.
std::string DecimalFixedBytes(__int128 unscaled, int32_t length) {
  std::string out(static_cast<size_t>(length), '\0');
  for (int32_t i = length - 1; i >= 0; --i) {
    out[i] = static_cast<char>(static_cast<uint8_t>(unscaled & 0xff));
    unscaled >>= 8;  // arithmetic shift keeps the sign
  }
  return out;
}

__int128 Pow10(int n) {
  __int128 v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

}  // namespace

Timestamp DecodeInt96(std::string_view b) {
  int64_t nanos_of_day;
  int32_t julian_day;
  std::memcpy(&nanos_of_day, b.data(), 8);
  std::memcpy(&julian_day, b.data() + 8, 4);
  __int128 total =
      static_cast<__int128>(julian_day - kJulianEpochDay) * kNanosPerDay + nanos_of_day;
  __int128 millis = total / 1000000;
  __int128 rest = total % 1000000;
  if (rest < 0) {
    rest += 1000000;
    millis -= 1;
  }
  return Timestamp{static_cast<int64_t>(millis), static_cast<int32_t>(rest)};
}

std::string EncodeInt96(const Timestamp& ts) {
  __int128 total = static_cast<__int128>(ts.millis) * 1000000 + ts.nanos_of_milli;
  __int128 day = total / kNanosPerDay;
  __int128 nod = total % kNanosPerDay;
  if (nod < 0) {
    nod += kNanosPerDay;
    day -= 1;
  }
  int64_t nanos_of_day = static_cast<int64_t>(nod);
  int32_t julian_day = static_cast<int32_t>(day + kJulianEpochDay);
  std::string out(12, '\0');
  std::memcpy(out.data(), &nanos_of_day, 8);
  std::memcpy(out.data() + 8, &julian_day, 4);
  return out;
}

Result<ValueConverter> ValueConverter::Make(const LeafColumn& leaf) {
  ValueConverter c;
  TRIB_ASSIGN_OR_RETURN(c.type_, LeafDataType(leaf));
  c.physical_ = leaf.physical_type;
  c.type_length_ = leaf.type_length;
  const DataType& t = c.type_;
  const LogicalType* lt = leaf.logical_type ? &*leaf.logical_type : nullptr;
  auto unit = [&]() { return lt != nullptr ? lt->unit : TimeUnit::kMillis; };
  switch (t.id) {
    case TypeId::kBoolean:
      c.kind_ = Kind::kBool;
      break;
    case TypeId::kFloat:
    case TypeId::kDouble:
      c.kind_ = Kind::kDouble;
      break;
    case TypeId::kDecimal:
      if (leaf.physical_type == PhysicalType::kInt32 ||
          leaf.physical_type == PhysicalType::kInt64) {
        c.kind_ = t.precision == 20 && t.scale == 0 && leaf.physical_type == PhysicalType::kInt64 &&
                          !(lt && lt->kind == LogicalType::kDecimal) &&
                          leaf.converted_type != ConvertedType::kDecimal
                      ? Kind::kUint64
                      : Kind::kDecimalInt;
      } else {
        c.kind_ = Kind::kDecimalBytes;
      }
      break;
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      c.kind_ = Kind::kBytes;
      break;
    case TypeId::kTime:
      c.kind_ = leaf.physical_type == PhysicalType::kInt32 ? Kind::kTimeMillis
                : (unit() == TimeUnit::kNanos)             ? Kind::kTimeNanos
                                                           : Kind::kTimeMicros;
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz:
      if (leaf.physical_type == PhysicalType::kInt96) {
        c.kind_ = Kind::kInt96;
      } else if (t.precision == 3) {
        c.kind_ = Kind::kTimestampMillis;
      } else if (t.precision == 6) {
        c.kind_ = Kind::kTimestampMicros;
      } else {
        c.kind_ = Kind::kTimestampNanos;
      }
      break;
    case TypeId::kBigInt:
      c.kind_ = leaf.physical_type == PhysicalType::kInt32 ? Kind::kUint32 : Kind::kInt;
      break;
    default:  // TINYINT, SMALLINT, INT (unsigned 8/16 bits widened; their values are positive),
              // DATE
      c.kind_ = Kind::kInt;
      break;
  }
  return c;
}

Value ValueConverter::Convert(const PhysicalValues& v, size_t i) const {
  switch (kind_) {
    case Kind::kBool:
      return Value::Bool(v.ints[i] != 0);
    case Kind::kInt:
      return Value::Int(v.ints[i]);
    case Kind::kUint32:
      return Value::Int(static_cast<int64_t>(static_cast<uint32_t>(v.ints[i])));
    case Kind::kUint64:
      return Value::Dec(Decimal{static_cast<__int128>(static_cast<uint64_t>(v.ints[i]))});
    case Kind::kDouble:
      return Value::Double(v.doubles[i]);
    case Kind::kDecimalInt:
      return Value::Dec(Decimal{v.ints[i]});
    case Kind::kDecimalBytes:
      return Value::Dec(Decimal{DecimalFromBytes(v.bytes[i])});
    case Kind::kBytes:
      return Value::String(std::string(v.bytes[i]));
    case Kind::kTimestampMillis:
      return Value::Ts(Timestamp{v.ints[i], 0});
    case Kind::kTimestampMicros:
      return Value::Ts(FromUnits(v.ints[i], 1000, 1000));
    case Kind::kTimestampNanos:
      return Value::Ts(FromUnits(v.ints[i], 1000000, 1));
    case Kind::kInt96:
      return Value::Ts(DecodeInt96(v.bytes[i]));
    case Kind::kTimeMillis:
      return Value::Int(v.ints[i]);
    case Kind::kTimeMicros:
      return Value::Int(FloorDiv(v.ints[i], 1000));
    case Kind::kTimeNanos:
      return Value::Int(FloorDiv(v.ints[i], 1000000));
  }
  return Value::Null();
}

std::optional<Value> ValueConverter::ConvertStat(std::string_view bytes) const {
  PhysicalValues v;
  if (physical_ == PhysicalType::kByteArray) {
    v.bytes.emplace_back(bytes);
  } else {
    size_t consumed = 0;
    if (!DecodePlain(bytes, physical_, type_length_, 1, &v, &consumed).ok() ||
        consumed != bytes.size()) {
      return std::nullopt;
    }
  }
  if (kind_ == Kind::kDecimalBytes && (v.bytes[0].empty() || v.bytes[0].size() > 16)) {
    return std::nullopt;
  }
  return Convert(v, 0);
}

Status AppendPhysical(const DataType& type, PhysicalType physical, int32_t type_length,
                      const Value& v, PhysicalValues* out) {
  auto mismatch = [&]() {
    return Status::Invalid("value does not match column type " + type.ToString());
  };
  switch (type.id) {
    case TypeId::kBoolean:
      if (!v.is_bool()) return mismatch();
      if (out) out->ints.push_back(v.bool_value() ? 1 : 0);
      return Status::OK();
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kDate:
    case TypeId::kTime:
      if (!v.is_int()) return mismatch();
      if (out) out->ints.push_back(static_cast<int32_t>(v.int_value()));
      return Status::OK();
    case TypeId::kBigInt:
      if (!v.is_int()) return mismatch();
      if (out) out->ints.push_back(v.int_value());
      return Status::OK();
    case TypeId::kFloat:
      if (!v.is_double()) return mismatch();
      if (out) out->doubles.push_back(static_cast<float>(v.double_value()));
      return Status::OK();
    case TypeId::kDouble:
      if (!v.is_double()) return mismatch();
      if (out) out->doubles.push_back(v.double_value());
      return Status::OK();
    case TypeId::kDecimal: {
      if (!v.is_decimal()) return mismatch();
      __int128 u = v.decimal_value().unscaled;
      __int128 limit = Pow10(type.precision);
      if (u >= limit || u <= -limit) {
        return Status::Invalid("decimal value does not fit " + type.ToString());
      }
      if (!out) return Status::OK();
      if (physical == PhysicalType::kFixedLenByteArray) {
        out->bytes.push_back(DecimalFixedBytes(u, type_length));
      } else {
        out->ints.push_back(static_cast<int64_t>(u));
      }
      return Status::OK();
    }
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      if (!v.is_string()) return mismatch();
      if (out) out->bytes.push_back(v.string_value());
      return Status::OK();
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      if (!v.is_timestamp()) return mismatch();
      Timestamp ts = v.timestamp_value();
      if (!out) return Status::OK();
      if (physical == PhysicalType::kInt96) {
        out->bytes.push_back(EncodeInt96(ts));
      } else if (type.precision <= 3) {
        out->ints.push_back(ts.millis);
      } else {
        out->ints.push_back(ts.millis * 1000 + FloorDiv(ts.nanos_of_milli, 1000));
      }
      return Status::OK();
    }
    case TypeId::kArray:
    case TypeId::kMultiset:
    case TypeId::kMap:
    case TypeId::kRow:
      return Status::Invalid("a nested value is not a Parquet leaf value");
  }
  return mismatch();
}

}  // namespace tributary::format::parquet
