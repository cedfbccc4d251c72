#include "sql/binder/cast.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/datetime.h"
#include "common/timezone.h"

namespace tributary::sql {

namespace {

constexpr int64_t kMillisPerDay = 86400000LL;

void IntegerRange(TypeId id, int64_t* lo, int64_t* hi) {
  switch (id) {
    case TypeId::kTinyInt:
      *lo = -128;
      *hi = 127;
      break;
    case TypeId::kSmallInt:
      *lo = -32768;
      *hi = 32767;
      break;
    case TypeId::kInt:
      *lo = std::numeric_limits<int32_t>::min();
      *hi = std::numeric_limits<int32_t>::max();
      break;
    default:
      *lo = std::numeric_limits<int64_t>::min();
      *hi = std::numeric_limits<int64_t>::max();
  }
}

// Number of UTF-8 code points.
int64_t CharLength(const std::string& s) {
  int64_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// The first `n` code points of s.
std::string TruncateChars(const std::string& s, int64_t n) {
  int64_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == n) return s.substr(0, i);
      ++seen;
    }
  }
  return s;
}

bool FitsPrecision(__int128 unscaled, int32_t precision) {
  __int128 limit = Pow10(precision);
  return unscaled < limit && unscaled > -limit;
}

// Rescales an unscaled decimal from scale `from` to `to`, rounding half away from zero.
bool Rescale(__int128 v, int32_t from, int32_t to, __int128* out) {
  if (to >= from) {
    __int128 f = Pow10(to - from);
    __int128 limit = std::numeric_limits<__int128>::max() / f;
    if (v > limit || v < -limit) return false;
    *out = v * f;
    return true;
  }
  __int128 f = Pow10(from - to);
  __int128 q = v / f;
  __int128 r = v % f;
  if (r < 0) r = -r;
  if (r * 2 >= f) q += v < 0 ? -1 : 1;
  *out = q;
  return true;
}

double DecimalToDouble(__int128 v, int32_t scale) {
  return static_cast<double>(v) / std::pow(10.0, scale);
}

Status OutOfRange(const std::string& text, const DataType& to) {
  return Status::Invalid("value " + text + " is out of range for " + TypeName(to));
}

Result<Value> IntegerFrom(__int128 v, const DataType& to, const std::string& text) {
  int64_t lo, hi;
  IntegerRange(to.id, &lo, &hi);
  if (v < lo || v > hi) return OutOfRange(text, to);
  return Value::Int(static_cast<int64_t>(v));
}

Result<Value> DecimalFromUnscaled(__int128 v, int32_t scale, const DataType& to,
                                  const std::string& text) {
  __int128 out;
  if (!Rescale(v, scale, to.scale, &out) || !FitsPrecision(out, to.precision)) {
    return OutOfRange(text, to);
  }
  return Value::Dec(Decimal{out});
}

Result<Value> DoubleTo(double d, const DataType& to, const std::string& text) {
  if (to.id == TypeId::kDouble) return Value::Double(d);
  if (to.id == TypeId::kFloat) {
    if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
      return OutOfRange(text, to);
    }
    return Value::Double(static_cast<double>(static_cast<float>(d)));
  }
  if (!std::isfinite(d)) return OutOfRange(text, to);
  if (to.IsInteger()) {
    double t = std::trunc(d);
    if (t < -9.3e18 || t > 9.3e18) return OutOfRange(text, to);
    return IntegerFrom(static_cast<__int128>(t), to, text);
  }
  if (to.id == TypeId::kDecimal) {
    double scaled = std::round(d * std::pow(10.0, to.scale));
    if (std::fabs(scaled) >= 1e38) return OutOfRange(text, to);
    __int128 v = static_cast<__int128>(scaled);
    if (!FitsPrecision(v, to.precision)) return OutOfRange(text, to);
    return Value::Dec(Decimal{v});
  }
  return Status::Internal("bad numeric cast");
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

Result<Value> StringTo(const std::string& s, const DataType& to, CastMode mode) {
  auto bad = [&]() { return Status::Invalid("cannot cast '" + s + "' to " + TypeName(to)); };
  // A well-formed date or timestamp outside years 0000-9999 (Flink's cast fails too).
  auto out_of_range = [&](const char* range) {
    return Status::Invalid("cannot cast '" + s + "' to " + TypeName(to) + ": out of range (" +
                           range + ")");
  };
  switch (to.id) {
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary: {
      bool binary = to.IsBinary();
      int64_t len = binary ? static_cast<int64_t>(s.size()) : CharLength(s);
      if (len > to.length) {
        if (mode == CastMode::kAssignment) {
          return Status::Invalid("value '" + s + "' is too long for " + TypeName(to) + " (" +
                                 std::to_string(len) + (binary ? " bytes)" : " characters)"));
        }
        return Value::String(binary ? s.substr(0, to.length) : TruncateChars(s, to.length));
      }
      return Value::String(s);
    }
    case TypeId::kBoolean: {
      std::string t = Trim(s);
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (t == "true" || t == "1" || t == "t" || t == "yes") return Value::Bool(true);
      if (t == "false" || t == "0" || t == "f" || t == "no") return Value::Bool(false);
      return bad();
    }
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt: {
      std::string t = Trim(s);
      if (t.empty()) return bad();
      size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
      if (i == t.size()) return bad();
      __int128 v = 0;
      for (; i < t.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(t[i]))) return bad();
        v = v * 10 + (t[i] - '0');
        if (v > (static_cast<__int128>(1) << 70)) return OutOfRange(t, to);
      }
      if (t[0] == '-') v = -v;
      return IntegerFrom(v, to, t);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      std::string t = Trim(s);
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size()) return bad();
      return DoubleTo(d, to, t);
    }
    case TypeId::kDecimal: {
      auto r = ParseDecimal(s, to.precision, to.scale);
      if (!r.ok()) return r.status();
      return Value::Dec(Decimal{*r});
    }
    case TypeId::kDate: {
      auto r = ParseDate(Trim(s));
      if (!r.ok()) return IsOutOfRange(r.status()) ? out_of_range(kDateRange) : bad();
      return Value::Int(*r);
    }
    case TypeId::kTime: {
      auto r = ParseTime(Trim(s));
      if (!r.ok()) return bad();
      return Value::Int(*r);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      auto r = ParseTimestamp(Trim(s), to.precision);
      if (!r.ok()) return IsOutOfRange(r.status()) ? out_of_range(kTimestampRange) : bad();
      return Value::Ts(*r);
    }
    case TypeId::kArray:
    case TypeId::kMultiset:
    case TypeId::kMap:
    case TypeId::kRow:
      return bad();
  }
  return bad();
}

// Nested types of the same kind whose children pair up (ROW fields by position).
bool SameShape(const DataType& a, const DataType& b) {
  if (a.id != b.id || !a.IsNested()) return false;
  return a.id != TypeId::kRow || a.fields().size() == b.fields().size();
}

// Applies `fn` to paired children of two nested types of the same shape and rebuilds the type
// (with `to`'s field names for ROW); nullopt when `fn` fails for a child.
template <typename Fn>
std::optional<DataType> MapChildren(const DataType& from, const DataType& to, Fn fn) {
  switch (to.id) {
    case TypeId::kArray:
    case TypeId::kMultiset: {
      auto e = fn(from.element(), to.element());
      if (!e) return std::nullopt;
      return to.id == TypeId::kArray ? DataType::Array(*e) : DataType::Multiset(*e);
    }
    case TypeId::kMap: {
      auto k = fn(from.key(), to.key());
      auto v = fn(from.value(), to.value());
      if (!k || !v) return std::nullopt;
      return DataType::Map(*k, *v);
    }
    case TypeId::kRow: {
      std::vector<Field> fields;
      for (size_t i = 0; i < to.fields().size(); ++i) {
        auto t = fn(from.fields()[i].type, to.fields()[i].type);
        if (!t) return std::nullopt;
        Field f = to.fields()[i];
        f.type = *t;
        fields.push_back(std::move(f));
      }
      return DataType::Row(std::move(fields));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string TypeName(const DataType& t) { return t.WithNullable(true).ToString(); }

DataType DecimalFor(const DataType& t) {
  switch (t.id) {
    case TypeId::kTinyInt:
      return DataType::Decimal(3, 0);
    case TypeId::kSmallInt:
      return DataType::Decimal(5, 0);
    case TypeId::kInt:
      return DataType::Decimal(10, 0);
    case TypeId::kBigInt:
      return DataType::Decimal(19, 0);
    default:
      return t;
  }
}

bool CanCast(const DataType& from, const DataType& to, CastMode mode) {
  if (from.SameKind(to)) return true;
  bool explicit_cast = mode == CastMode::kExplicit;
  if (from.IsNested() || to.IsNested()) {
    if (SameShape(from, to)) {
      return MapChildren(from, to,
                         [&](const DataType& a, const DataType& b) {
                           return CanCast(a, b, mode) ? std::optional<DataType>(b) : std::nullopt;
                         })
          .has_value();
    }
    return from.IsNested() && to.IsString() && explicit_cast;
  }
  if (from.IsNumeric() && to.IsNumeric()) {
    // Assignment never drops a fraction silently: no FLOAT/DOUBLE/DECIMAL into an integer.
    if (!explicit_cast && to.IsInteger() && !from.IsInteger()) return false;
    return true;
  }
  if (from.IsString()) {
    if (to.IsString()) return true;
    if (to.id == TypeId::kDate || to.id == TypeId::kTime || to.IsTimestamp()) return true;
    return explicit_cast;  // numbers, booleans, binaries
  }
  if (to.IsString()) return explicit_cast;
  if (from.IsBinary() && to.IsBinary()) return true;
  if (from.id == TypeId::kDate && to.IsTimestamp()) return true;
  if (from.IsTimestamp() && to.IsTimestamp()) return true;
  if (from.IsTimestamp() && (to.id == TypeId::kDate || to.id == TypeId::kTime)) {
    return explicit_cast;
  }
  if (from.id == TypeId::kBoolean && to.IsNumeric()) return explicit_cast;
  if (from.IsNumeric() && to.id == TypeId::kBoolean) return explicit_cast;
  return false;
}

namespace {
thread_local const TimeZone* t_session_zone = nullptr;

int64_t FloorDivMillis(int64_t millis) {
  return millis >= 0 ? millis / 1000 : -((-millis + 999) / 1000);
}
}  // namespace

SessionZoneScope::SessionZoneScope(const TimeZone* zone) : previous_(t_session_zone) {
  t_session_zone = zone;
}
SessionZoneScope::~SessionZoneScope() { t_session_zone = previous_; }
const TimeZone* SessionZone() { return t_session_zone; }

Timestamp InstantToLocal(const Timestamp& instant) {
  if (!t_session_zone) return instant;
  Timestamp t = instant;
  t.millis += t_session_zone->OffsetAtUtc(FloorDivMillis(instant.millis)) * 1000;
  return t;
}

Timestamp LocalToInstant(const Timestamp& local) {
  if (!t_session_zone) return local;
  const int64_t secs = FloorDivMillis(local.millis);
  Timestamp t = local;
  t.millis = t_session_zone->LocalToUtc(secs) * 1000 + (local.millis - secs * 1000);
  return t;
}

// Whether `t` is TIMESTAMP_LTZ or holds one.
bool HasLtz(const DataType& t) {
  if (t.id == TypeId::kTimestampLtz) return true;
  if (!t.IsNested()) return false;
  if (t.id == TypeId::kRow) {
    for (const Field& f : t.fields()) {
      if (HasLtz(f.type)) return true;
    }
    return false;
  }
  if (t.id == TypeId::kMap) return HasLtz(t.key()) || HasLtz(t.value());
  return HasLtz(t.element());
}

// `v` of type `t` with its TIMESTAMP_LTZ values (instants), at any depth, as the session zone's
// wall-clock time.
Value ToSessionZone(const Value& v, const DataType& t) {
  if (v.is_null()) return v;
  if (t.id == TypeId::kTimestampLtz) return Value::Ts(InstantToLocal(v.timestamp_value()));
  if (!t.IsNested() || !HasLtz(t)) return v;
  std::vector<Value> items;
  if (t.id == TypeId::kRow) {
    for (size_t i = 0; i < v.struct_fields().size() && i < t.fields().size(); i++) {
      items.push_back(ToSessionZone(v.struct_fields()[i], t.fields()[i].type));
    }
    return Value::Struct(std::move(items));
  }
  if (t.id == TypeId::kMap || t.id == TypeId::kMultiset) {
    const DataType& kt = t.id == TypeId::kMap ? t.key() : t.element();
    std::vector<Value> values;
    for (const Value& k : v.map_keys()) items.push_back(ToSessionZone(k, kt));
    for (const Value& x : v.map_values()) {
      values.push_back(t.id == TypeId::kMap ? ToSessionZone(x, t.value()) : x);
    }
    return Value::Map(std::move(items), std::move(values));
  }
  for (const Value& e : v.array_elements()) items.push_back(ToSessionZone(e, t.element()));
  return Value::Array(std::move(items));
}

namespace {

// `v` written as CAST(v AS STRING) writes it: nested values element by element with the
// elements' own casts (TRUE / FALSE, TIMESTAMP(p) with p fraction digits), as Flink's
// ArrayToStringCastRule and its siblings do.
std::string CastText(const Value& v, const DataType& t) {
  if (v.is_null()) return "NULL";
  if (v.is_bool()) return v.bool_value() ? "TRUE" : "FALSE";
  if (t.IsTimestamp() && v.is_timestamp()) {
    return PadTimestampFraction(FormatValue(v, t), t.precision);
  }
  if (!t.IsNested() || !v.is_nested()) return FormatValue(v, t);
  const NestedValue& n = v.nested();
  std::string out;
  if (t.id == TypeId::kArray) {
    out = "[";
    for (size_t i = 0; i < n.items.size(); i++) {
      if (i) out += ", ";
      out += CastText(n.items[i], t.element());
    }
    return out + "]";
  }
  if (t.id == TypeId::kMap || t.id == TypeId::kMultiset) {
    out = "{";
    for (size_t i = 0; i < n.items.size(); i++) {
      if (i) out += ", ";
      out += CastText(n.items[i], t.id == TypeId::kMap ? t.key() : t.element()) + "=";
      out += i < n.values.size()
                 ? CastText(n.values[i], t.id == TypeId::kMap ? t.value() : DataType::Int())
                 : "NULL";
    }
    return out + "}";
  }
  out = "(";
  for (size_t i = 0; i < n.items.size(); i++) {
    if (i) out += ", ";
    out += i < t.fields().size() ? CastText(n.items[i], t.fields()[i].type)
                                 : FormatValue(n.items[i], t);
  }
  return out + ")";
}

}  // namespace

Result<Value> CastValue(const Value& v, const DataType& from, const DataType& to, CastMode mode) {
  if (v.is_null()) return v;
  if (!CanCast(from, to, mode)) {
    return Status::Invalid("cannot cast " + TypeName(from) + " to " + TypeName(to));
  }
  auto wall_clock = [](const DataType& t) {
    return t.id == TypeId::kTimestamp || t.id == TypeId::kDate || t.id == TypeId::kTime ||
           t.IsString();
  };
  if (t_session_zone && ((from.id == TypeId::kTimestampLtz && wall_clock(to)) ||
                         (to.id == TypeId::kTimestampLtz && wall_clock(from)))) {
    // One side is an instant, the other a wall-clock value: through the session zone.
    // The zone's offset can move a value next to the range's ends out of it (9999-12-31
    // 23:00:00 UTC is in year 10000 at UTC+8): an error, as any other DATE or TIMESTAMP outside.
    auto outside = [&](const Timestamp& ts, const char* where) {
      const std::string value = from.IsString() ? "'" + v.string_value() + "'"
                                : from.id == TypeId::kTimestampLtz
                                    ? FormatTimestamp(v.timestamp_value()) + " UTC"
                                    : FormatValue(v, from);
      return Status::Invalid("cannot cast " + value + " to " + TypeName(to) + ": " +
                             FormatTimestamp(ts) + where + " is out of range (" + kTimestampRange +
                             ")");
    };
    if (from.id == TypeId::kTimestampLtz) {
      const DataType wall = DataType::Timestamp(from.precision);
      const Timestamp local = InstantToLocal(v.timestamp_value());
      const bool dated = to.id == TypeId::kTimestamp || to.id == TypeId::kDate;
      if (dated && !TimestampInRange(local)) return outside(local, " (session zone)");
      return CastValue(Value::Ts(local), wall, to, mode);
    }
    const DataType wall = DataType::Timestamp(to.precision);
    TRIB_ASSIGN_OR_RETURN(Value local, CastValue(v, from, wall, mode));
    if (local.is_null()) return local;
    const Timestamp instant = LocalToInstant(local.timestamp_value());
    if (!TimestampInRange(instant)) return outside(instant, " UTC");
    return Value::Ts(instant);
  }
  // Same representation and no range to check.
  if (from.SameKind(to) && !to.IsString() && !to.IsBinary()) return v;
  if (from.IsNested() && to.IsString()) {
    // TIMESTAMP_LTZ values inside are written as the session zone's wall-clock time, as the
    // session shows them.
    const Value shown = t_session_zone ? ToSessionZone(v, from) : v;
    return StringTo(CastText(shown, from), to, mode);
  }
  if (from.IsNested()) {
    // Element-wise (ROW fields by position); NULL children where the target is NOT NULL fail.
    auto child = [&](const Value& x, const DataType& a, const DataType& b) -> Result<Value> {
      if (x.is_null() && !b.nullable) {
        return Status::Invalid("NULL is not allowed in " + TypeName(to) + " (a NOT NULL element)");
      }
      return CastValue(x, a, b, mode);
    };
    const NestedValue& n = v.nested();
    std::vector<Value> items, values;
    for (size_t i = 0; i < n.items.size(); ++i) {
      const DataType& a = from.id == TypeId::kRow     ? from.fields()[i].type
                          : from.id == TypeId::kArray ? from.element()
                                                      : from.key();
      const DataType& b = to.id == TypeId::kRow     ? to.fields()[i].type
                          : to.id == TypeId::kArray ? to.element()
                                                    : to.key();
      TRIB_ASSIGN_OR_RETURN(Value x, child(n.items[i], a, to.id == TypeId::kMap ? b.NotNull() : b));
      items.push_back(std::move(x));
    }
    for (size_t i = 0; i < n.values.size(); ++i) {
      TRIB_ASSIGN_OR_RETURN(Value x, child(n.values[i], from.value(), to.value()));
      values.push_back(std::move(x));
    }
    if (to.id == TypeId::kArray) return Value::Array(std::move(items));
    if (to.id == TypeId::kRow) return Value::Struct(std::move(items));
    return Value::Map(std::move(items), std::move(values));
  }
  if (to.IsString() && !from.IsString() && !from.IsBinary()) {
    std::string text = v.is_bool() ? (v.bool_value() ? "TRUE" : "FALSE") : FormatValue(v, from);
    // A TIMESTAMP(p) is written with exactly p fraction digits, as Flink's cast does.
    if (from.IsTimestamp()) text = PadTimestampFraction(std::move(text), from.precision);
    return StringTo(text, to, CastMode::kExplicit);
  }
  if (from.IsString() || from.IsBinary()) return StringTo(v.string_value(), to, mode);

  if (from.IsInteger()) {
    int64_t i = v.int_value();
    std::string text = std::to_string(i);
    if (to.IsInteger()) return IntegerFrom(i, to, text);
    if (to.IsFloating()) return DoubleTo(static_cast<double>(i), to, text);
    if (to.id == TypeId::kDecimal) return DecimalFromUnscaled(i, 0, to, text);
    if (to.id == TypeId::kBoolean) return Value::Bool(i != 0);
  }
  if (from.IsFloating()) {
    double d = v.double_value();
    if (to.IsNumeric()) return DoubleTo(d, to, FormatValue(v, from));
    if (to.id == TypeId::kBoolean) return Value::Bool(d != 0);
  }
  if (from.id == TypeId::kDecimal) {
    __int128 u = v.decimal_value().unscaled;
    std::string text = FormatDecimal(u, from.scale);
    if (to.id == TypeId::kDecimal) return DecimalFromUnscaled(u, from.scale, to, text);
    if (to.IsFloating()) return DoubleTo(DecimalToDouble(u, from.scale), to, text);
    if (to.IsInteger()) return IntegerFrom(u / Pow10(from.scale), to, text);
    if (to.id == TypeId::kBoolean) return Value::Bool(u != 0);
  }
  if (from.id == TypeId::kBoolean && to.IsNumeric()) {
    return CastValue(Value::Int(v.bool_value() ? 1 : 0), DataType::Int(), to, mode);
  }
  if (from.id == TypeId::kDate && to.IsTimestamp()) {
    return Value::Ts(Timestamp{v.int_value() * kMillisPerDay, 0});
  }
  if (from.IsTimestamp()) {
    Timestamp ts = v.timestamp_value();
    if (to.IsTimestamp()) return Value::Ts(TruncateTimestamp(ts, to.precision));
    int64_t days = ts.millis >= 0 ? ts.millis / kMillisPerDay
                                  : -((-ts.millis + kMillisPerDay - 1) / kMillisPerDay);
    if (to.id == TypeId::kDate) return Value::Int(days);
    if (to.id == TypeId::kTime) return Value::Int(ts.millis - days * kMillisPerDay);
  }
  return Status::Invalid("cannot cast " + TypeName(from) + " to " + TypeName(to));
}

std::optional<DataType> ComparisonType(const DataType& a, const DataType& b) {
  if (a.SameKind(b)) return a.WithNullable(true);
  if (a.IsNested() || b.IsNested()) {
    if (!SameShape(a, b)) return std::nullopt;
    auto t = MapChildren(a, b, [](const DataType& x, const DataType& y) {
      auto c = ComparisonType(x, y);
      if (c) c->nullable = x.nullable || y.nullable;
      return c;
    });
    if (t) t->nullable = true;
    return t;
  }
  if (a.IsNumeric() && b.IsNumeric()) {
    if (a.IsFloating() || b.IsFloating()) return DataType::Double();
    if (a.id == TypeId::kDecimal || b.id == TypeId::kDecimal) {
      DataType da = DecimalFor(a), db = DecimalFor(b);
      int32_t scale = std::max(da.scale, db.scale);
      int32_t digits = std::max(da.precision - da.scale, db.precision - db.scale);
      return DataType::Decimal(std::min(38, digits + scale), scale);
    }
    return DataType::BigInt();
  }
  if (a.IsString() && b.IsString()) return DataType::String();
  if (a.IsBinary() && b.IsBinary()) return DataType::Bytes();
  if ((a.IsTimestamp() || a.id == TypeId::kDate) && (b.IsTimestamp() || b.id == TypeId::kDate)) {
    int32_t p = std::max(a.IsTimestamp() ? a.precision : 0, b.IsTimestamp() ? b.precision : 0);
    return a.id == TypeId::kTimestampLtz && b.id == TypeId::kTimestampLtz
               ? DataType::TimestampLtz(p)
               : DataType::Timestamp(p);
  }
  if (a.id == TypeId::kTime && b.id == TypeId::kTime) {
    return DataType::Time(std::max(a.precision, b.precision));
  }
  return std::nullopt;
}

std::optional<DataType> CommonType(const std::vector<DataType>& types) {
  if (types.empty()) return std::nullopt;
  DataType acc = types[0];
  bool nullable = false;
  for (const auto& t : types) nullable = nullable || t.nullable;
  for (size_t i = 1; i < types.size(); ++i) {
    const DataType& t = types[i];
    if (acc.SameKind(t)) continue;
    if (acc.IsInteger() && t.IsInteger()) {
      if (IntegerRank(t.id) > IntegerRank(acc.id)) acc = t;
      continue;
    }
    if (acc.IsString() && t.IsString()) {
      acc = (acc.id == TypeId::kVarChar || t.id == TypeId::kVarChar)
                ? DataType{TypeId::kVarChar, true, std::max(acc.length, t.length)}
                : DataType{TypeId::kChar, true, std::max(acc.length, t.length)};
      continue;
    }
    auto c = ComparisonType(acc, t);
    if (!c) return std::nullopt;
    acc = *c;
  }
  return acc.WithNullable(nullable);
}

int CompareSame(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  if (a.is_nested() && b.is_nested()) return CompareValues(a, b);
  if (a.is_int() && b.is_int()) {
    return a.int_value() < b.int_value() ? -1 : a.int_value() > b.int_value() ? 1 : 0;
  }
  if (a.is_double() && b.is_double()) {
    double x = a.double_value(), y = b.double_value();
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) - std::isnan(y);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) {
    const std::string& x = a.string_value();
    const std::string& y = b.string_value();
    size_t n = std::min(x.size(), y.size());
    int c = n ? std::memcmp(x.data(), y.data(), n) : 0;
    if (c != 0) return c < 0 ? -1 : 1;
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  if (a.is_bool() && b.is_bool()) return static_cast<int>(a.bool_value()) - b.bool_value();
  if (a.is_decimal() && b.is_decimal()) {
    auto x = a.decimal_value().unscaled, y = b.decimal_value().unscaled;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_timestamp() && b.is_timestamp()) {
    auto x = a.timestamp_value(), y = b.timestamp_value();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return 0;
}

void AppendKey(const Value& v, std::string* out) {
  auto raw = [&](const void* p, size_t n) { out->append(static_cast<const char*>(p), n); };
  if (v.is_null()) {
    out->push_back('N');
  } else if (v.is_bool()) {
    out->push_back(v.bool_value() ? 'T' : 'F');
  } else if (v.is_int()) {
    out->push_back('I');
    int64_t i = v.int_value();
    raw(&i, sizeof(i));
  } else if (v.is_double()) {
    out->push_back('D');
    double d = v.double_value();
    if (d == 0) d = 0;  // -0.0 groups with 0.0
    if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
    raw(&d, sizeof(d));
  } else if (v.is_string()) {
    out->push_back('S');
    uint64_t n = v.string_value().size();
    raw(&n, sizeof(n));
    out->append(v.string_value());
  } else if (v.is_decimal()) {
    out->push_back('M');
    __int128 u = v.decimal_value().unscaled;
    raw(&u, sizeof(u));
  } else if (v.is_timestamp()) {
    out->push_back('P');
    Timestamp t = v.timestamp_value();
    raw(&t.millis, sizeof(t.millis));
    raw(&t.nanos_of_milli, sizeof(t.nanos_of_milli));
  } else if (v.is_nested()) {
    const NestedValue& n = v.nested();
    out->push_back('[');
    out->push_back(static_cast<char>(n.kind));
    uint64_t count = n.items.size();
    raw(&count, sizeof(count));
    for (const Value& x : n.items) AppendKey(x, out);
    for (const Value& x : n.values) AppendKey(x, out);
    out->push_back(']');
  }
}

int IntegerRank(TypeId id) {
  switch (id) {
    case TypeId::kTinyInt:
      return 1;
    case TypeId::kSmallInt:
      return 2;
    case TypeId::kInt:
      return 3;
    case TypeId::kBigInt:
      return 4;
    default:
      return 0;
  }
}

}  // namespace tributary::sql
