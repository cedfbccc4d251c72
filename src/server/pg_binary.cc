#include "server/pg_binary.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/datetime.h"
#include "server/pg_wire.h"

namespace tributary::server::pg {

namespace {

constexpr int64_t kDaysFrom1970To2000 = 10957;
constexpr int64_t kMicrosFrom1970To2000 = kDaysFrom1970To2000 * 86400 * 1000000;

void PutBigEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; i--) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetBigEndian(std::string_view in) {
  uint64_t v = 0;
  for (char c : in) v = (v << 8) | static_cast<uint8_t>(c);
  return v;
}

std::string Pad4(int d) {
  std::string s = std::to_string(d);
  return std::string(4 - s.size(), '0') + s;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> ByteaFromText(std::string_view text) {
  std::string out;
  if (text.substr(0, 2) == "\\x") {
    text.remove_prefix(2);
    if (text.size() % 2 != 0) return std::nullopt;
    for (size_t i = 0; i < text.size(); i += 2) {
      const int hi = HexValue(text[i]), lo = HexValue(text[i + 1]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return out;
  }
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      i++;
    } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' &&
               text[i + 2] >= '0' && text[i + 2] <= '7' && text[i + 3] >= '0' &&
               text[i + 3] <= '7') {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::string NumericBinary(__int128 unscaled, int32_t scale) {
  const bool negative = unscaled < 0;
  unsigned __int128 mag =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(unscaled)
               : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  std::reverse(digits.begin(), digits.end());
  if (static_cast<int32_t>(digits.size()) <= scale) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  std::string whole = digits.substr(0, digits.size() - static_cast<size_t>(scale));
  std::string fraction = digits.substr(digits.size() - static_cast<size_t>(scale));
  whole.insert(0, (4 - whole.size() % 4) % 4, '0');
  fraction.append((4 - fraction.size() % 4) % 4, '0');
  std::vector<int> groups;
  for (size_t i = 0; i < whole.size(); i += 4) groups.push_back(std::stoi(whole.substr(i, 4)));
  for (size_t i = 0; i < fraction.size(); i += 4) {
    groups.push_back(std::stoi(fraction.substr(i, 4)));
  }
  int weight = static_cast<int>(whole.size() / 4) - 1;
  size_t first = 0;
  while (first < groups.size() && groups[first] == 0) {
    first++;
    weight--;
  }
  size_t last = groups.size();
  while (last > first && groups[last - 1] == 0) last--;
  if (first == last) weight = 0;
  std::string out;
  PutBigEndian(last - first, 2, &out);
  PutBigEndian(static_cast<uint16_t>(static_cast<int16_t>(weight)), 2, &out);
  PutBigEndian(negative && first != last ? 0x4000 : 0, 2, &out);
  PutBigEndian(static_cast<uint16_t>(scale), 2, &out);
  for (size_t i = first; i < last; i++) PutBigEndian(static_cast<uint16_t>(groups[i]), 2, &out);
  return out;
}

Result<std::string> NumericText(std::string_view in) {
  if (in.size() < 8)
    return Status::Invalid("a binary numeric of " + std::to_string(in.size()) + " bytes");
  const auto ndigits = static_cast<int16_t>(GetBigEndian(in.substr(0, 2)));
  const auto weight = static_cast<int16_t>(GetBigEndian(in.substr(2, 2)));
  const auto sign = static_cast<uint16_t>(GetBigEndian(in.substr(4, 2)));
  const auto dscale = static_cast<int16_t>(GetBigEndian(in.substr(6, 2)));
  if (ndigits < 0 || in.size() != 8 + 2 * static_cast<size_t>(ndigits) || dscale < 0 ||
      dscale > 1000 || weight > 1000 || weight < -1000) {
    return Status::Invalid("a malformed binary numeric");
  }
  if (sign != 0 && sign != 0x4000) {
    return Status::Invalid("a binary numeric that is NaN or infinite");
  }
  std::vector<int> digits;
  for (int i = 0; i < ndigits; i++) {
    const int d = static_cast<int>(GetBigEndian(in.substr(8 + 2 * static_cast<size_t>(i), 2)));
    if (d > 9999)
      return Status::Invalid("a malformed binary numeric (digit " + std::to_string(d) + ")");
    digits.push_back(d);
  }
  auto digit = [&](int i) { return i >= 0 && i < ndigits ? digits[static_cast<size_t>(i)] : 0; };
  std::string out = sign == 0x4000 ? "-" : "";
  if (weight < 0) {
    out += "0";
  } else {
    for (int i = 0; i <= weight; i++) out += i == 0 ? std::to_string(digit(i)) : Pad4(digit(i));
  }
  if (dscale > 0) {
    std::string fraction;
    for (int i = weight + 1; fraction.size() < static_cast<size_t>(dscale); i++) {
      fraction += Pad4(digit(i));
    }
    out += "." + fraction.substr(0, static_cast<size_t>(dscale));
  }
  return out;
}

std::optional<std::string> BinaryOf(const Value& v, const DataType& type) {
  if (v.is_null()) return std::nullopt;
  std::string out;
  switch (type.id) {
    case TypeId::kBoolean:
      out.push_back(v.bool_value() ? 1 : 0);
      return out;
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
      PutBigEndian(static_cast<uint64_t>(v.int_value()), 2, &out);
      return out;
    case TypeId::kInt:
      PutBigEndian(static_cast<uint64_t>(v.int_value()), 4, &out);
      return out;
    case TypeId::kBigInt:
      PutBigEndian(static_cast<uint64_t>(v.int_value()), 8, &out);
      return out;
    case TypeId::kFloat: {
      const auto f = static_cast<float>(v.double_value());
      uint32_t bits = 0;
      std::memcpy(&bits, &f, sizeof(bits));
      PutBigEndian(bits, 4, &out);
      return out;
    }
    case TypeId::kDouble: {
      const double d = v.double_value();
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof(bits));
      PutBigEndian(bits, 8, &out);
      return out;
    }
    case TypeId::kDecimal:
      return NumericBinary(v.decimal_value().unscaled, type.scale);
    case TypeId::kChar:
    case TypeId::kVarChar:
    case TypeId::kBinary:
    case TypeId::kVarBinary:
      return v.string_value();
    case TypeId::kDate:
      PutBigEndian(static_cast<uint64_t>(v.int_value() - kDaysFrom1970To2000), 4, &out);
      return out;
    case TypeId::kTime:
      PutBigEndian(static_cast<uint64_t>(v.int_value() * 1000), 8, &out);
      return out;
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      const Timestamp ts = v.timestamp_value();
      const int64_t micros = ts.millis * 1000 + ts.nanos_of_milli / 1000 - kMicrosFrom1970To2000;
      PutBigEndian(static_cast<uint64_t>(micros), 8, &out);
      return out;
    }
    default:
      return TextOf(v, type);  // described as text
  }
}

DataType BinaryValueType(int32_t oid) {
  switch (oid) {
    case 16:
      return DataType::Boolean();
    case 21:
    case 23:
    case 20:
      return DataType::BigInt();
    case 700:
    case 701:
      return DataType::Double();
    case 17:
      return DataType::Bytes();
    case 1114:
      return DataType::Timestamp(6);
    default:
      return DataType::String();
  }
}

namespace {
// Seconds east of UTC of a zone suffix: Z, or +HH, +HH:MM, +HHMM, +HH:MM:SS (or -); nullopt
// otherwise.
std::optional<int64_t> ZoneOffsetSeconds(std::string_view z) {
  if (z == "Z" || z == "z") return 0;
  if (z.size() < 2 || (z[0] != '+' && z[0] != '-') || z[1] == ':') return std::nullopt;
  std::string digits;
  for (size_t i = 1; i < z.size(); i++) {
    if (std::isdigit(static_cast<unsigned char>(z[i]))) {
      digits += z[i];
    } else if (z[i] != ':') {
      return std::nullopt;
    }
  }
  if (digits.size() == 1 || digits.size() == 3 || digits.size() == 5) digits.insert(0, "0");
  if (digits.size() != 2 && digits.size() != 4 && digits.size() != 6) return std::nullopt;
  const int hours = std::stoi(digits.substr(0, 2));
  const int minutes = digits.size() >= 4 ? std::stoi(digits.substr(2, 2)) : 0;
  const int secs = digits.size() == 6 ? std::stoi(digits.substr(4, 2)) : 0;
  if (hours > 15 || minutes > 59 || secs > 59) return std::nullopt;
  const int64_t seconds = hours * 3600 + minutes * 60 + secs;
  return z[0] == '-' ? -seconds : seconds;
}
// `text` (a date or timestamp in PostgreSQL's text format) without its era: 'AD' dropped, 'BC'
// (pgjdbc writes '0044-03-15 BC') made the year ISO 8601 counts (1 BC is year 0), which DATE and
// TIMESTAMP hold from year 0 alone: an earlier one is out of range, never read as AD.
Result<std::string> WithoutEra(const std::string& text, const std::string& where) {
  std::string out;
  bool bc = false, era = false;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find(' ', at), text.size());
    std::string word = text.substr(at, end - at);
    for (char& c : word) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (word == "BC" || word == "AD") {
      era = true;
      bc = bc || word == "BC";
    } else if (!word.empty()) {
      out += (out.empty() ? "" : " ") + text.substr(at, end - at);
    }
    at = end + 1;
  }
  if (!bc) return era ? out : text;
  const size_t digits = out.find_first_not_of("0123456789");
  if (digits == 0 || digits == std::string::npos || out[digits] != '-') return text;
  const std::string year = out.substr(0, digits);
  if (year.find_first_not_of('0') == digits - 1 && year.back() == '1') {  // 1 BC
    return "0000" + out.substr(digits);
  }
  return Status::Invalid("date/time value out of range: \"" + text + "\"" + where +
                         ": DATE and TIMESTAMP hold the years 0000 (1 BC) to 9999");
}
}  // namespace

bool IsDateWithSuffix(const std::optional<std::string>& text) {
  if (!text || text->size() < 12) return false;
  const std::string& t = *text;
  const size_t dash = t.find('-');
  if (dash < 4 || dash == std::string::npos || t.size() < dash + 7 || t[dash + 3] != '-') {
    return false;
  }
  for (size_t i = 0; i < dash + 6; i++) {
    if (i != dash && i != dash + 3 && !std::isdigit(static_cast<unsigned char>(t[i]))) return false;
  }
  // After the date (and a time): a zone or an era.
  const size_t rest = t.find_first_of("+-ABab", dash + 6);
  return rest != std::string::npos && t.find_first_of(" T", dash + 6) < rest;
}

Result<Value> ParamValue(const std::optional<std::string>& data, int32_t oid, bool binary,
                         size_t n) {
  if (!data) return Value::Null();
  const std::string& text = *data;
  const std::string where = n > 0 ? " (parameter $" + std::to_string(n) + ")" : "";
  if (binary) {
    auto size_is = [&](size_t want, const char* type) -> Status {
      if (text.size() == want) return Status::OK();
      return Status::Invalid("insufficient data left in message: a binary " + std::string(type) +
                             " of " + std::to_string(text.size()) + " bytes" + where);
    };
    switch (oid) {
      case 16:
        TRIB_RETURN_NOT_OK(size_is(1, "boolean"));
        return Value::Bool(text[0] != 0);
      case 21:
        TRIB_RETURN_NOT_OK(size_is(2, "smallint"));
        return Value::Int(static_cast<int16_t>(GetBigEndian(text)));
      case 23:
        TRIB_RETURN_NOT_OK(size_is(4, "integer"));
        return Value::Int(static_cast<int32_t>(GetBigEndian(text)));
      case 20:
        TRIB_RETURN_NOT_OK(size_is(8, "bigint"));
        return Value::Int(static_cast<int64_t>(GetBigEndian(text)));
      case 700: {
        TRIB_RETURN_NOT_OK(size_is(4, "real"));
        const auto bits = static_cast<uint32_t>(GetBigEndian(text));
        float f = 0;
        std::memcpy(&f, &bits, sizeof(f));
        return Value::Double(f);
      }
      case 701: {
        TRIB_RETURN_NOT_OK(size_is(8, "double precision"));
        const uint64_t bits = GetBigEndian(text);
        double d = 0;
        std::memcpy(&d, &bits, sizeof(d));
        return Value::Double(d);
      }
      case 17:    // bytea: the bytes themselves
      case 19:    // name
      case 25:    // text
      case 1042:  // bpchar
      case 1043:  // varchar
        return Value::String(text);
      case 1082: {
        TRIB_RETURN_NOT_OK(size_is(4, "date"));
        const int64_t days = static_cast<int32_t>(GetBigEndian(text)) + kDaysFrom1970To2000;
        return Value::String(FormatValue(Value::Int(days), DataType::Date()));
      }
      case 1083: {
        TRIB_RETURN_NOT_OK(size_is(8, "time"));
        const auto micros = static_cast<int64_t>(GetBigEndian(text));
        return Value::String(FormatValue(Value::Int(micros / 1000), DataType::Time(3)));
      }
      case 1114:    // a TIMESTAMP value: the statement reads it as a TIMESTAMP literal
      case 1184: {  // timestamptz: the instant (the caller makes it the session's wall time)
        TRIB_RETURN_NOT_OK(size_is(8, oid == 1114 ? "timestamp" : "timestamptz"));
        int64_t micros = 0;
        if (__builtin_add_overflow(static_cast<int64_t>(GetBigEndian(text)), kMicrosFrom1970To2000,
                                   &micros)) {
          return Status::Invalid("timestamp out of range (infinity?)" + where);
        }
        int64_t millis = micros / 1000, rest = micros % 1000;
        if (rest < 0) {
          millis -= 1;
          rest += 1000;
        }
        return Value::Ts(Timestamp{millis, static_cast<int32_t>(rest * 1000)});
      }
      case 1700: {
        auto t = NumericText(text);
        if (!t.ok()) {
          return n > 0 ? t.status().WithContext("parameter $" + std::to_string(n)) : t.status();
        }
        return Value::String(*t);
      }
      case 0:
        return Status::NotSupported("a binary parameter of an unspecified type" + where +
                                    ": declare its type in Parse, or send it as text");
      default:
        return Status::NotSupported("binary parameters of type OID " + std::to_string(oid) +
                                    " are not supported yet" + where + ": send it as text");
    }
  }
  auto invalid = [&](const char* type) {
    return Status::Invalid("invalid input syntax for type " + std::string(type) + ": \"" + text +
                           "\"" + where);
  };
  switch (oid) {
    case 17: {  // bytea: \x and hex digits, or the escape format (\\ and \ooo octal)
      auto bytes = ByteaFromText(text);
      if (!bytes) return invalid("bytea");
      return Value::String(std::move(*bytes));
    }
    case 16: {  // bool
      std::string t;
      for (char c : text)
        t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      if (t == "t" || t == "true" || t == "1" || t == "yes" || t == "on") return Value::Bool(true);
      if (t == "f" || t == "false" || t == "0" || t == "no" || t == "off")
        return Value::Bool(false);
      return invalid("boolean");
    }
    case 20:
    case 21:
    case 23: {  // int8, int2, int4
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno != 0) return invalid("integer");
      return Value::Int(v);
    }
    case 700:
    case 701: {  // float4, float8
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') return invalid("double precision");
      return Value::Double(v);
    }
    case 1082:    // date: '2024-01-01 +00' (pgjdbc's setDate) is the date
    case 1114:    // timestamp: a zone after the time is ignored, as PostgreSQL does
    case 1184: {  // timestamptz: with a zone the instant, without the session's wall time
      TRIB_ASSIGN_OR_RETURN(const std::string plain, WithoutEra(text, where));
      const size_t time = plain.find_first_of(" T", 8);
      const size_t zone =
          time == std::string::npos ? std::string::npos : plain.find_first_of("+-Zz", time + 1);
      if (zone == std::string::npos) return Value::String(plain);
      std::string value = plain.substr(0, oid == 1082 ? time : zone);
      while (!value.empty() && value.back() == ' ') value.pop_back();
      if (oid != 1184) return Value::String(std::move(value));
      std::replace(value.begin(), value.end(), 'T', ' ');
      auto wall = ParseTimestamp(value);
      auto offset = ZoneOffsetSeconds(std::string_view(plain).substr(zone));
      if (!wall.ok() || !offset) return invalid("timestamp with time zone");
      Timestamp instant = *wall;
      instant.millis -= *offset * 1000;
      return Value::Ts(instant);
    }
    default:
      return Value::String(text);
  }
}

}  // namespace tributary::server::pg
