#include "cli/debezium.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/datetime.h"
#include "common/json.h"
#include "options/option_values.h"

namespace tributary::cli {
namespace {

using Json = nlohmann::json;

constexpr int64_t kMillisPerDay = 86400000;

Status Bad(const std::string& what) { return Status::Invalid(what); }

// At most `max` bytes of `s`, marked where cut: an error quotes an excerpt of the input, never
// a whole (possibly huge) line.
std::string Excerpt(std::string_view s, size_t max = 60) {
  if (s.size() <= max) return std::string(s);
  size_t cut = max - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8
  return std::string(s.substr(0, cut)) + "...";
}

std::string Describe(const Json& j) {
  if (j.is_string()) return "\"" + Excerpt(j.get_ref<const std::string&>()) + "\"";
  if (j.is_object() || j.is_array()) return j.is_object() ? "an object" : "an array";
  return Excerpt(j.dump());
}

// The field whose number the parser could not hold (1e400, a 100,000-digit integer): the JSON is
// parsed again, only on this error path, following the keys to the number ("after.id").
std::string OverflowingField(std::string_view line) {
  std::vector<std::string> path;
  std::string found;
  auto track = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key) {
      path.resize(static_cast<size_t>(std::max(depth, 1)));
      path[static_cast<size_t>(std::max(depth, 1)) - 1] = parsed.get<std::string>();
    }
    return true;
  };
  try {
    Json parsed = Json::parse(line.begin(), line.end(), track);
    (void)parsed;
  } catch (const Json::exception&) {
    for (const std::string& k : path) found += (found.empty() ? "" : ".") + Excerpt(k);
  }
  return found;
}

// Floor division and modulo, so negative epoch values split correctly.
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

Result<std::string> DecodeBase64(std::string_view in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z') {
      v = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      v = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      v = c - '0' + 52;
    } else if (c == '+' || c == '-') {
      v = 62;
    } else if (c == '/' || c == '_') {
      v = 63;
    } else if (c == '=' || c == '\n' || c == '\r') {
      continue;
    } else {
      return Bad("invalid base64 text");
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

// A big-endian two's complement integer (Kafka Connect Decimal bytes).
Result<__int128> BigEndianToInt128(const std::string& bytes) {
  if (bytes.empty() || bytes.size() > 16) return Bad("invalid decimal bytes");
  __int128 v = (static_cast<unsigned char>(bytes[0]) & 0x80) ? -1 : 0;
  for (unsigned char b : bytes) v = v * 256 + b;  // shifting a negative value is UB; multiply
  return v;
}

// Number -> time unit from the encoding, else guessed from the magnitude.
enum class Unit { kMillis, kMicros, kNanos };

Unit TimestampUnit(const ColumnEncoding& enc, int64_t n) {
  const std::string& s = enc.semantic;
  if (s == "io.debezium.time.MicroTimestamp") return Unit::kMicros;
  if (s == "io.debezium.time.NanoTimestamp") return Unit::kNanos;
  if (s == "io.debezium.time.Timestamp" || s == "org.apache.kafka.connect.data.Timestamp") {
    return Unit::kMillis;
  }
  // Milliseconds until the year 5138, then microseconds, then nanoseconds.
  uint64_t mag = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  if (mag >= 100000000000000000ULL) return Unit::kNanos;
  if (mag >= 100000000000000ULL) return Unit::kMicros;
  return Unit::kMillis;
}

Unit TimeUnit(const ColumnEncoding& enc, int64_t n) {
  const std::string& s = enc.semantic;
  if (s == "io.debezium.time.MicroTime") return Unit::kMicros;
  if (s == "io.debezium.time.NanoTime") return Unit::kNanos;
  if (s == "io.debezium.time.Time" || s == "org.apache.kafka.connect.data.Time") {
    return Unit::kMillis;
  }
  if (n < kMillisPerDay) return Unit::kMillis;
  if (n < kMillisPerDay * 1000) return Unit::kMicros;
  return Unit::kNanos;
}

const char* UnitName(Unit unit) {
  return unit == Unit::kMillis   ? "milliseconds"
         : unit == Unit::kMicros ? "microseconds"
                                 : "nanoseconds";
}

Timestamp TimestampFrom(int64_t n, Unit unit) {
  switch (unit) {
    case Unit::kMillis:
      return Timestamp{n, 0};
    case Unit::kMicros:
      return Timestamp{FloorDiv(n, 1000), static_cast<int32_t>(FloorMod(n, 1000) * 1000)};
    case Unit::kNanos:
      return Timestamp{FloorDiv(n, 1000000), static_cast<int32_t>(FloorMod(n, 1000000))};
  }
  return {};
}

// "2024-01-31T10:00:00+08:00", "...Z", "2024-01-31 10:00:00.123": the offset, when present, is
// applied so the result is UTC.
Result<Timestamp> ParseTimestampText(std::string_view s, int32_t precision) {
  int64_t offset_minutes = 0;
  std::string_view body = s;
  if (s.size() > 16) {
    size_t sign = s.find_first_of("+-", 11);  // after the date and the hour
    if (sign != std::string_view::npos) {
      std::string_view off = s.substr(sign + 1);
      int hh = 0, mm = 0;
      bool ok = false;
      if (off.size() == 5 && off[2] == ':') {
        ok = std::sscanf(std::string(off).c_str(), "%2d:%2d", &hh, &mm) == 2;
      } else if (off.size() == 4 || off.size() == 2) {
        ok = std::sscanf(std::string(off).c_str(), off.size() == 4 ? "%2d%2d" : "%2d", &hh, &mm) >=
             1;
      }
      if (!ok) return Bad("invalid timestamp '" + std::string(s) + "'");
      offset_minutes = (hh * 60 + mm) * (s[sign] == '-' ? -1 : 1);
      body = s.substr(0, sign);
    }
  }
  TRIB_ASSIGN_OR_RETURN(Timestamp ts, ParseTimestamp(body, precision));
  ts.millis -= offset_minutes * 60000;
  return ts;
}

// The integer in `j`: a JSON integer, an integral float, or a numeric string.
Result<int64_t> JsonInteger(const Json& j) {
  if (j.is_number_integer() && !j.is_number_unsigned()) return j.get<int64_t>();
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Bad("value " + Describe(j) + " is out of range");
    }
    return static_cast<int64_t>(u);
  }
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (std::trunc(d) != d || std::abs(d) > 9.2e18) {
      return Bad("expected an integer, got " + Describe(j));
    }
    return static_cast<int64_t>(d);
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    size_t pos = 0;
    try {
      long long v = std::stoll(s, &pos);
      if (pos == s.size()) return static_cast<int64_t>(v);
    } catch (const std::exception&) {
    }
  }
  return Bad("expected an integer, got " + Describe(j));
}

Result<Value> IntegerValue(const Json& j, const DataType& t) {
  TRIB_ASSIGN_OR_RETURN(int64_t v, JsonInteger(j));
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  if (t.id == TypeId::kTinyInt) lo = -128, hi = 127;
  if (t.id == TypeId::kSmallInt) lo = -32768, hi = 32767;
  if (t.id == TypeId::kInt) {
    lo = std::numeric_limits<int32_t>::min();
    hi = std::numeric_limits<int32_t>::max();
  }
  if (v < lo || v > hi) return Bad("value " + Describe(j) + " is out of range for " + t.ToString());
  return Value::Int(v);
}

Result<Value> DecimalValue(const Json& j, const DataType& t, const ColumnEncoding& enc) {
  // Kafka Connect Decimal (base64 two's complement) and Debezium VariableScaleDecimal.
  if (j.is_object() && j.contains("value") && j.contains("scale")) {
    ColumnEncoding inner{"org.apache.kafka.connect.data.Decimal", 0};
    TRIB_ASSIGN_OR_RETURN(int64_t scale, JsonInteger(j["scale"]));
    inner.scale = static_cast<int32_t>(scale);
    return DecimalValue(j["value"], t, inner);
  }
  std::string text;
  if (j.is_string() && enc.semantic == "org.apache.kafka.connect.data.Decimal") {
    TRIB_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(j.get_ref<const std::string&>()));
    TRIB_ASSIGN_OR_RETURN(__int128 unscaled, BigEndianToInt128(bytes));
    text = FormatDecimal(unscaled, std::max(enc.scale, 0));
  } else if (j.is_string()) {
    text = j.get<std::string>();
  } else if (j.is_number_integer()) {
    text = j.dump();
  } else if (j.is_number_float()) {
    text = j.dump();
    if (text.find_first_of("eE") != std::string::npos) {
      char buf[128];
      std::snprintf(buf, sizeof(buf), "%.*f", std::max(t.scale, 0) + 1, j.get<double>());
      text = buf;
    }
  } else {
    return Bad("expected a decimal number, got " + Describe(j));
  }
  TRIB_ASSIGN_OR_RETURN(__int128 unscaled, ParseDecimal(text, t.precision, t.scale));
  return Value::Dec(Decimal{unscaled});
}

}  // namespace

Result<Value> JsonToValue(const Json& j, const DataType& t, const ColumnEncoding& enc) {
  if (j.is_null()) return Value::Null();
  switch (t.id) {
    case TypeId::kBoolean:
      if (j.is_boolean()) return Value::Bool(j.get<bool>());
      if (j.is_number_integer() && (j.get<int64_t>() == 0 || j.get<int64_t>() == 1)) {
        return Value::Bool(j.get<int64_t>() == 1);
      }
      if (j.is_string()) {
        std::string s = j.get<std::string>();
        for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (s == "true") return Value::Bool(true);
        if (s == "false") return Value::Bool(false);
      }
      return Bad("expected a boolean, got " + Describe(j));
    case TypeId::kTinyInt:
    case TypeId::kSmallInt:
    case TypeId::kInt:
    case TypeId::kBigInt:
      return IntegerValue(j, t);
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double d = 0;
      if (j.is_number()) {
        d = j.get<double>();
      } else if (j.is_string()) {
        const std::string& s = j.get_ref<const std::string&>();
        char* end = nullptr;
        d = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size()) {
          return Bad("expected a number, got " + Describe(j));
        }
      } else {
        return Bad("expected a number, got " + Describe(j));
      }
      if (t.id == TypeId::kFloat) d = static_cast<double>(static_cast<float>(d));
      return Value::Double(d);
    }
    case TypeId::kDecimal:
      return DecimalValue(j, t, enc);
    case TypeId::kChar:
    case TypeId::kVarChar:
      if (j.is_string()) return Value::String(j.get<std::string>());
      return Value::String(j.dump());  // numbers, booleans, JSON documents as their text
    case TypeId::kBinary:
    case TypeId::kVarBinary: {
      if (!j.is_string()) return Bad("expected base64 bytes, got " + Describe(j));
      TRIB_ASSIGN_OR_RETURN(std::string bytes, DecodeBase64(j.get_ref<const std::string&>()));
      return Value::String(std::move(bytes));
    }
    case TypeId::kDate:
      if (j.is_string()) {
        TRIB_ASSIGN_OR_RETURN(int64_t days, ParseDate(j.get_ref<const std::string&>()));
        return Value::Int(days);
      }
      if (j.is_number()) {
        TRIB_ASSIGN_OR_RETURN(int64_t days, JsonInteger(j));
        // A DATE is 32 bits in a data file: 4294967297 days would come back as 1970-01-02.
        if (!DateInRange(days)) {
          return DateOutOfRange("date " + Describe(j) + " (days since 1970-01-01)");
        }
        return Value::Int(days);
      }
      return Bad("expected a date (days or 'YYYY-MM-DD'), got " + Describe(j));
    case TypeId::kTime: {
      if (j.is_string()) {
        TRIB_ASSIGN_OR_RETURN(int64_t ms, ParseTime(j.get_ref<const std::string&>()));
        return Value::Int(ms);
      }
      if (!j.is_number()) return Bad("expected a time, got " + Describe(j));
      TRIB_ASSIGN_OR_RETURN(int64_t n, JsonInteger(j));
      Timestamp ts = TimestampFrom(n, TimeUnit(enc, n));
      if (ts.millis < 0 || ts.millis >= kMillisPerDay) {
        return Bad("time " + Describe(j) + " is outside one day");
      }
      return Value::Int(ts.millis);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampLtz: {
      if (j.is_string()) {
        TRIB_ASSIGN_OR_RETURN(Timestamp ts,
                              ParseTimestampText(j.get_ref<const std::string&>(), t.precision));
        if (!TimestampInRange(ts)) {  // in range as written, out of it at UTC
          return TimestampOutOfRange("timestamp " + Describe(j) + " (" + FormatTimestamp(ts) +
                                     " UTC)");
        }
        return Value::Ts(ts);
      }
      if (!j.is_number()) return Bad("expected a timestamp, got " + Describe(j));
      TRIB_ASSIGN_OR_RETURN(int64_t n, JsonInteger(j));
      const Unit unit = TimestampUnit(enc, n);
      const Timestamp ts = TimestampFrom(n, unit);
      if (!TimestampInRange(ts)) {
        return TimestampOutOfRange("timestamp " + Describe(j) + " (" + UnitName(unit) +
                                   " since 1970-01-01)");
      }
      return Value::Ts(TruncateTimestamp(ts, t.precision));
    }
    case TypeId::kArray: {
      if (!j.is_array()) return Bad("expected an array, got " + Describe(j));
      std::vector<Value> items;
      for (const Json& e : j) {
        TRIB_ASSIGN_OR_RETURN(Value v, JsonToValue(e, t.element(), enc));
        items.push_back(std::move(v));
      }
      return Value::Array(std::move(items));
    }
    case TypeId::kMap: {
      // {"k": v, ...} (keys converted from their text) or [{"key": k, "value": v}, ...].
      std::vector<Value> keys, values;
      if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
          TRIB_ASSIGN_OR_RETURN(Value k, JsonToValue(Json(it.key()), t.key(), enc));
          TRIB_ASSIGN_OR_RETURN(Value v, JsonToValue(it.value(), t.value(), enc));
          keys.push_back(std::move(k));
          values.push_back(std::move(v));
        }
      } else if (j.is_array()) {
        for (const Json& e : j) {
          if (!e.is_object() || !e.contains("key")) return Bad("expected {key, value} entries");
          TRIB_ASSIGN_OR_RETURN(Value k, JsonToValue(e["key"], t.key(), enc));
          TRIB_ASSIGN_OR_RETURN(Value v, JsonToValue(e.value("value", Json()), t.value(), enc));
          keys.push_back(std::move(k));
          values.push_back(std::move(v));
        }
      } else {
        return Bad("expected an object, got " + Describe(j));
      }
      return Value::Map(std::move(keys), std::move(values));
    }
    case TypeId::kRow: {
      std::vector<Value> fields;
      for (size_t i = 0; i < t.fields().size(); i++) {
        const Field& f = t.fields()[i];
        Json e = j.is_object()                  ? j.value(f.name, Json())
                 : j.is_array() && i < j.size() ? j[i]
                                                : Json();
        if (!j.is_object() && !j.is_array()) return Bad("expected an object, got " + Describe(j));
        TRIB_ASSIGN_OR_RETURN(Value v, JsonToValue(e, f.type, enc));
        fields.push_back(std::move(v));
      }
      return Value::Struct(std::move(fields));
    }
    case TypeId::kMultiset:
      break;
  }
  return Bad("unsupported column type " + t.ToString());
}

DebeziumDecoder::DebeziumDecoder(std::vector<Field> fields, bool strict)
    : fields_(std::move(fields)), strict_(strict) {}

int DebeziumDecoder::FindColumn(const std::string& name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  // Databases differ in identifier case (Oracle upper, PostgreSQL lower): a unique
  // case-insensitive match is accepted.
  int found = -1;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const std::string& f = fields_[i].name;
    bool same = f.size() == name.size();
    for (size_t k = 0; same && k < f.size(); ++k) {
      same = std::tolower(static_cast<unsigned char>(f[k])) ==
             std::tolower(static_cast<unsigned char>(name[k]));
    }
    if (same) {
      if (found >= 0) return -1;
      found = static_cast<int>(i);
    }
  }
  return found;
}

Result<Row> DebeziumDecoder::ToRow(const Json& image, std::string_view which,
                                   const std::vector<ColumnEncoding>& encodings) const {
  if (!image.is_object()) {
    return Bad("'" + std::string(which) + "' must be an object, got " + Describe(image));
  }
  Row row(fields_.size());
  for (auto it = image.begin(); it != image.end(); ++it) {
    int idx = FindColumn(it.key());
    if (idx < 0 && !strict_) continue;
    if (idx < 0) {
      std::vector<std::string> names;
      for (const Field& f : fields_) names.push_back(f.name);
      std::string msg = "unknown column '" + it.key() + "' in '" + std::string(which) + "'";
      std::string guess = options::DidYouMean(it.key(), names);
      if (!guess.empty()) return Bad(msg + "; did you mean '" + guess + "'?");
      return Bad(msg + " (the table has no such column)");
    }
    const Field& f = fields_[idx];
    auto v = JsonToValue(it.value(), f.type, encodings[idx]);
    if (!v.ok()) {
      return Bad("column '" + f.name + "' (" + f.type.ToString() + "): " + v.status().message());
    }
    row[idx] = std::move(v).value();
  }
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (row[i].is_null() && !fields_[i].type.nullable) {
      return Bad("column '" + fields_[i].name + "' is NOT NULL but '" + std::string(which) +
                 "' has no value for it");
    }
  }
  return row;
}

Status DebeziumDecoder::Decode(std::string_view line, std::vector<RowChange>* out) const {
  size_t first = line.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return Status::OK();
  Json doc;
  try {
    doc = Json::parse(line.begin(), line.end());
  } catch (const Json::parse_error& e) {
    // Where and why, as the parser says it ("syntax error while parsing object key - ..."),
    // with at most an excerpt of what it last read.
    const std::string what = e.what();
    const size_t column = what.find("column ");
    const size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
    return Bad("not valid JSON at column " + std::to_string(e.byte) + ": " +
               Excerpt(colon == std::string::npos ? what : what.substr(colon + 2), 200));
  } catch (const Json::exception& e) {
    // A number no double holds (1e400, 1e999, a 100,000-digit integer): nlohmann's out_of_range.
    const std::string field = OverflowingField(line);
    return Bad("a number " + (field.empty() ? std::string() : "in field '" + field + "' ") +
               "is out of range: " + Excerpt(e.what(), 120));
  }
  TRIB_RETURN_NOT_OK(CheckJsonDepth(doc, kMaxJsonDepth));  // values are walked recursively
  if (doc.is_null()) return Status::OK();                  // a Kafka tombstone after a delete
  if (!doc.is_object()) return Bad("expected a JSON object, got " + Describe(doc));
  try {
    const Json* envelope = &doc;
    std::vector<ColumnEncoding> encodings(fields_.size());
    if (doc.contains("payload")) {
      envelope = &doc["payload"];
      if (envelope->is_null()) return Status::OK();  // tombstone with a schema
      if (!envelope->is_object()) return Bad("'payload' must be an object");
      // Kafka Connect schema: the struct fields of "after" (or "before") name the encodings.
      static const Json kNoSchema;
      const Json& schema = doc.contains("schema") ? doc["schema"] : kNoSchema;
      if (schema.is_object() && schema.contains("fields") && schema["fields"].is_array()) {
        for (const Json& part : schema["fields"]) {
          if (!part.is_object() || !part.contains("fields") || !part["fields"].is_array()) {
            continue;
          }
          std::string which = part.value("field", "");
          if (which != "after" && which != "before") continue;
          for (const Json& col : part["fields"]) {
            if (!col.is_object() || !col.contains("field") || !col["field"].is_string()) continue;
            int idx = FindColumn(col["field"].get<std::string>());
            if (idx < 0) continue;  // reported when the value is read
            if (col.contains("name") && col["name"].is_string()) {
              encodings[idx].semantic = col["name"].get<std::string>();
            }
            if (col.contains("parameters") && col["parameters"].is_object() &&
                col["parameters"].contains("scale")) {
              const Json& s = col["parameters"]["scale"];
              auto scale = s.is_string() ? std::stoi(s.get<std::string>()) : s.get<int>();
              encodings[idx].scale = static_cast<int32_t>(scale);
            }
          }
        }
      }
    }
    const Json& env = *envelope;
    if (!env.contains("op") || !env["op"].is_string()) {
      return Bad("missing 'op' (expected a Debezium change event with op c, r, u or d)");
    }
    const std::string op = env["op"].get<std::string>();
    const Json null_json;
    const Json& before = env.contains("before") ? env["before"] : null_json;
    const Json& after = env.contains("after") ? env["after"] : null_json;
    if (op == "c" || op == "r") {
      if (after.is_null()) return Bad("op '" + op + "' without 'after'");
      TRIB_ASSIGN_OR_RETURN(Row row, ToRow(after, "after", encodings));
      out->push_back({RowKind::kInsert, std::move(row)});
    } else if (op == "u") {
      if (after.is_null()) return Bad("op 'u' without 'after'");
      if (!before.is_null()) {
        TRIB_ASSIGN_OR_RETURN(Row old_row, ToRow(before, "before", encodings));
        TRIB_ASSIGN_OR_RETURN(Row new_row, ToRow(after, "after", encodings));
        out->push_back({RowKind::kUpdateBefore, std::move(old_row)});
        out->push_back({RowKind::kUpdateAfter, std::move(new_row)});
      } else {
        TRIB_ASSIGN_OR_RETURN(Row new_row, ToRow(after, "after", encodings));
        out->push_back({RowKind::kUpdateAfter, std::move(new_row)});
      }
    } else if (op == "d") {
      if (before.is_null()) return Bad("op 'd' without 'before'");
      TRIB_ASSIGN_OR_RETURN(Row row, ToRow(before, "before", encodings));
      out->push_back({RowKind::kDelete, std::move(row)});
    } else if (op == "t") {
      return Bad("op 't' (truncate) is not supported");
    } else {
      return Bad("unknown op '" + op + "' (expected c, r, u or d)");
    }
  } catch (const std::exception& e) {  // nlohmann type errors, stoi: never cross the boundary
    return Bad("malformed change event: " + Excerpt(e.what(), 200));
  }
  return Status::OK();
}

}  // namespace tributary::cli
