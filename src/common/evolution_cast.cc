#include "common/evolution_cast.h"

#include <cctype>
#include <cmath>

#include "common/datetime.h"
#include "common/timezone.h"

namespace tributary {
namespace {

Status Unsupported(const DataType& from, const DataType& to) {
  return Status::NotSupported("cannot read a column stored as " + from.ToString() + " as " +
                              to.ToString());
}

int64_t Wrap(int64_t v, TypeId to) {
  switch (to) {
    case TypeId::kTinyInt:
      return static_cast<int8_t>(v);
    case TypeId::kSmallInt:
      return static_cast<int16_t>(v);
    case TypeId::kInt:
      return static_cast<int32_t>(v);
    default:
      return v;
  }
}

Result<Value> FromString(const std::string& s, const DataType& to, const DataType& from) {
  if (to.IsBinary()) return Value::String(s);
  if (to.IsInteger()) {
    try {
      size_t used = 0;
      long long v = std::stoll(s, &used);
      return Value::Int(Wrap(v, to.id));
    } catch (...) {
      return Status::Invalid("cannot cast '" + s + "' to " + to.ToString());
    }
  }
  if (to.IsFloating()) {
    try {
      return Value::Double(std::stod(s));
    } catch (...) {
      return Status::Invalid("cannot cast '" + s + "' to " + to.ToString());
    }
  }
  if (to.id == TypeId::kBoolean) {
    // Flink's STRING -> BOOLEAN: true/t/yes/y/1 and false/f/no/n/0, case-insensitive.
    std::string l;
    for (char c : s) {
      if (c != ' ') l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (l == "true" || l == "t" || l == "yes" || l == "y" || l == "1") return Value::Bool(true);
    if (l == "false" || l == "f" || l == "no" || l == "n" || l == "0") return Value::Bool(false);
    return Status::Invalid("cannot cast '" + s + "' to BOOLEAN");
  }
  if (to.id == TypeId::kDecimal) {
    TRIB_ASSIGN_OR_RETURN(__int128 d, ParseDecimal(s, to.precision, to.scale));
    return Value::Dec({d});
  }
  if (to.id == TypeId::kDate) {
    TRIB_ASSIGN_OR_RETURN(int64_t d, ParseDate(s));
    return Value::Int(d);
  }
  if (to.IsTimestamp()) {
    TRIB_ASSIGN_OR_RETURN(Timestamp t, ParseTimestamp(s, to.precision));
    return Value::Ts(t);
  }
  return Unsupported(from, to);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// A wall-clock TIMESTAMP as the instant it names in `tz` (UTC when null), and back.
Timestamp WallToInstant(Timestamp t, const TimeZone* tz) {
  if (!tz) return t;
  int64_t secs = FloorDiv(t.millis, 1000);
  return {t.millis + (tz->LocalToUtc(secs) - secs) * 1000, t.nanos_of_milli};
}
Timestamp InstantToWall(Timestamp t, const TimeZone* tz) {
  if (!tz) return t;
  return {t.millis + tz->OffsetAtUtc(FloorDiv(t.millis, 1000)) * 1000, t.nanos_of_milli};
}

}  // namespace

Result<Value> CastEvolvedValue(const Value& v, const DataType& from, const DataType& to,
                               const TimeZone* tz) {
  if (v.is_null() || from.SameKind(to)) return v;
  // TIMESTAMP_LTZ holds an instant, TIMESTAMP a wall-clock time: casts between them and to or
  // from dates, times and strings go through the session time zone, as Flink's do. Integers
  // are epoch seconds of the instant.
  if (from.IsTimestamp() && to.id == from.id) {  // precision only: no zone involved
    return Value::Ts(TruncateTimestamp(v.timestamp_value(), to.precision));
  }
  if (from.id == TypeId::kTimestampLtz) {
    if (to.IsInteger()) return Value::Int(Wrap(FloorDiv(v.timestamp_value().millis, 1000), to.id));
    DataType wall = DataType::Timestamp(from.precision);
    return CastEvolvedValue(Value::Ts(InstantToWall(v.timestamp_value(), tz)), wall, to, tz);
  }
  if (to.id == TypeId::kTimestampLtz) {
    if (from.IsInteger()) return Value::Ts({v.int_value() * 1000, 0});
    DataType wall = DataType::Timestamp(to.precision);
    TRIB_ASSIGN_OR_RETURN(Value w, CastEvolvedValue(v, from, wall, tz));
    if (w.is_null()) return w;
    return Value::Ts(WallToInstant(w.timestamp_value(), tz));
  }
  if (from.id == TypeId::kTimestamp && to.IsInteger()) {
    return Value::Int(Wrap(FloorDiv(WallToInstant(v.timestamp_value(), tz).millis, 1000), to.id));
  }
  if (to.id == TypeId::kTimestamp && from.IsInteger()) {
    return Value::Ts(TruncateTimestamp(InstantToWall({v.int_value() * 1000, 0}, tz), to.precision));
  }
  if (to.IsString()) {
    if (from.IsString() || from.IsBinary()) return v;
    return Value::String(FormatValue(v, from));
  }
  if (from.IsString() || from.IsBinary()) return FromString(v.string_value(), to, from);
  if (to.IsInteger()) {
    if (from.IsInteger()) return Value::Int(Wrap(v.int_value(), to.id));
    if (from.IsFloating())
      return Value::Int(Wrap(static_cast<int64_t>(std::trunc(v.double_value())), to.id));
    if (from.id == TypeId::kDecimal) {
      return Value::Int(
          Wrap(static_cast<int64_t>(v.decimal_value().unscaled / Pow10(from.scale)), to.id));
    }
    if (from.id == TypeId::kBoolean) return Value::Int(v.bool_value() ? 1 : 0);
  }
  if (to.IsFloating()) {
    // A FLOAT holds what a float32 holds (as a FLOAT column written and read back does).
    auto real = [&to](double d) {
      return Value::Double(to.id == TypeId::kFloat ? static_cast<float>(d) : d);
    };
    if (from.IsInteger()) return real(static_cast<double>(v.int_value()));
    if (from.IsFloating()) return real(v.double_value());
    if (from.id == TypeId::kDecimal) {
      return real(static_cast<double>(v.decimal_value().unscaled) /
                  static_cast<double>(Pow10(from.scale)));
    }
  }
  if (to.id == TypeId::kDecimal) {
    if (from.IsInteger())
      return Value::Dec({static_cast<__int128>(v.int_value()) * Pow10(to.scale)});
    if (from.id == TypeId::kDecimal) {
      __int128 u = v.decimal_value().unscaled;
      if (to.scale >= from.scale) return Value::Dec({u * Pow10(to.scale - from.scale)});
      return Value::Dec({u / Pow10(from.scale - to.scale)});
    }
    if (from.IsFloating()) {
      return Value::Dec({static_cast<__int128>(
          std::llround(v.double_value() * static_cast<double>(Pow10(to.scale))))});
    }
  }
  if (to.id == TypeId::kBoolean && from.IsInteger()) return Value::Bool(v.int_value() != 0);
  if (to.IsTimestamp()) {
    if (from.IsTimestamp()) return Value::Ts(TruncateTimestamp(v.timestamp_value(), to.precision));
    if (from.id == TypeId::kDate) return Value::Ts({v.int_value() * 86400000LL, 0});
  }
  if (to.id == TypeId::kDate && from.IsTimestamp()) {
    int64_t ms = v.timestamp_value().millis;
    return Value::Int(ms >= 0 ? ms / 86400000LL : -((-ms + 86399999LL) / 86400000LL));
  }
  if (to.id == TypeId::kTime && from.IsTimestamp()) {
    int64_t ms = v.timestamp_value().millis % 86400000LL;
    return Value::Int(ms < 0 ? ms + 86400000LL : ms);
  }
  return Unsupported(from, to);
}

namespace {
// Bits of an integer type; 0 for others.
int IntegerWidth(TypeId id) {
  switch (id) {
    case TypeId::kTinyInt:
      return 8;
    case TypeId::kSmallInt:
      return 16;
    case TypeId::kInt:
      return 32;
    case TypeId::kBigInt:
      return 64;
    default:
      return 0;
  }
}
bool IsText(TypeId id) {
  return id == TypeId::kChar || id == TypeId::kVarChar || id == TypeId::kBinary ||
         id == TypeId::kVarBinary;
}
bool IsTimestamp(TypeId id) { return id == TypeId::kTimestamp || id == TypeId::kTimestampLtz; }
}  // namespace

bool StoredTypeFits(const DataType& stored, const DataType& declared) {
  const TypeId s = stored.id, d = declared.id;
  if (int dw = IntegerWidth(d)) {
    int sw = IntegerWidth(s);
    return sw != 0 && sw <= dw;
  }
  if (IsText(d)) return IsText(s);  // one representation: bytes (strings are checked UTF-8)
  if (IsTimestamp(d)) return IsTimestamp(s);
  switch (d) {
    case TypeId::kDouble:
      return s == TypeId::kDouble || s == TypeId::kFloat;
    case TypeId::kDecimal:
      return s == TypeId::kDecimal && stored.scale == declared.scale &&
             stored.precision <= declared.precision;
    case TypeId::kArray:
      return s == TypeId::kArray && StoredTypeFits(stored.element(), declared.element());
    case TypeId::kMultiset:  // stored as MAP<element, INT>
      if (s == TypeId::kMultiset) return StoredTypeFits(stored.element(), declared.element());
      return s == TypeId::kMap && StoredTypeFits(stored.key(), declared.element()) &&
             IntegerWidth(stored.value().id) != 0;
    case TypeId::kMap:
      return s == TypeId::kMap && StoredTypeFits(stored.key(), declared.key()) &&
             StoredTypeFits(stored.value(), declared.value());
    case TypeId::kRow: {
      if (s != TypeId::kRow || stored.fields().size() != declared.fields().size()) return false;
      for (size_t i = 0; i < stored.fields().size(); i++) {
        if (!StoredTypeFits(stored.fields()[i].type, declared.fields()[i].type)) return false;
      }
      return true;
    }
    default:  // BOOLEAN, FLOAT, DATE, TIME
      return s == d;
  }
}

bool EvolutionCastSupported(const DataType& from, const DataType& to) {
  if (from.SameKind(to)) return true;
  if (from.IsNested() || to.IsNested()) return false;
  // A value of `from`'s kind, converted: only an unsupported pair is NotSupported (a value
  // that does not convert is Invalid).
  Value sample;
  if (from.IsString() || from.IsBinary()) {
    sample = Value::String("1");
  } else if (from.IsInteger() || from.id == TypeId::kDate || from.id == TypeId::kTime) {
    sample = Value::Int(1);
  } else if (from.IsFloating()) {
    sample = Value::Double(1);
  } else if (from.id == TypeId::kDecimal) {
    sample = Value::Dec({1});
  } else if (from.id == TypeId::kBoolean) {
    sample = Value::Bool(true);
  } else if (from.IsTimestamp()) {
    sample = Value::Ts({1000, 0});
  } else {
    return false;
  }
  auto r = CastEvolvedValue(sample, from, to);
  return r.ok() || r.status().code() != StatusCode::kNotSupported;
}

}  // namespace tributary
