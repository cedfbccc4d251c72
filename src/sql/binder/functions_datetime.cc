// Date and time scalar functions (YEAR .. SECOND, EXTRACT's forms, DATE_FORMAT, TO_DATE,
// TIMESTAMPADD, ...): each function's type rules and evaluation, and its row of the function
// registry (function_registry.h), with Flink's names and semantics. Internal to sql/.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <set>

#include "common/datetime.h"
#include "sql/binder/cast.h"
#include "sql/binder/function_registry.h"
#include "sql/binder/functions_internal.h"

namespace tributary::sql {

namespace {

// Milliseconds in one of TIMESTAMPADD / TIMESTAMPDIFF's units, or months (negative: -months).
int64_t UnitSize(const std::string& unit) {
  if (unit == "MILLISECOND") return 1;
  if (unit == "SECOND") return 1000;
  if (unit == "MINUTE") return 60000;
  if (unit == "HOUR") return 3600000;
  if (unit == "DAY") return 86400000;
  if (unit == "WEEK") return 7 * 86400000LL;
  if (unit == "MONTH") return -1;
  if (unit == "QUARTER") return -3;
  if (unit == "YEAR") return -12;
  return 0;
}

// The UTC offset at `utc_millis` of the session zone, else the machine's (the zone UNIX_TIMESTAMP
// and FROM_UNIXTIME read and write wall times in, as LOCALTIMESTAMP).
int64_t LocalOffsetMillis(int64_t utc_millis) {
  if (SessionZone() != nullptr) return InstantToLocal(Timestamp{utc_millis, 0}).millis - utc_millis;
  return MachineUtcOffsetMillis(utc_millis);
}

// Day count and time of day of a DATE (days) or TIMESTAMP value.
void Civil(const Value& v, bool is_date, int64_t* days, int64_t* millis_of_day) {
  if (is_date) {
    *days = v.int_value();
    *millis_of_day = 0;
    return;
  }
  const int64_t ms = v.timestamp_value().millis;
  *days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
  *millis_of_day = ms - *days * 86400000;
}

// Day of the week of a day count, 0 = Monday .. 6 = Sunday (1970-01-01 was a Thursday).
int64_t WeekdayFromMonday(int64_t days) { return ((days % 7) + 7 + 3) % 7; }

// `days` moved by `months` calendar months, the day clamped to the month's last (Jan 31 + 1
// month is Feb 28/29).
int64_t AddMonthsClamped(int64_t days, int64_t months) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  const int64_t total = y * 12 + (m - 1) + months;
  const int64_t ny = total >= 0 ? total / 12 : -((-total + 11) / 12);
  const unsigned nm = static_cast<unsigned>(total - ny * 12) + 1;
  const int64_t next_first = nm == 12 ? DaysFromCivil(ny + 1, 1, 1) : DaysFromCivil(ny, nm + 1, 1);
  const unsigned last = static_cast<unsigned>(next_first - DaysFromCivil(ny, nm, 1));
  return DaysFromCivil(ny, nm, std::min(d, last));
}

// A date-time pattern as Java's DateTimeFormatter reads it (what Flink's DATE_FORMAT and
// FROM_UNIXTIME use): y (yy: two digits), M (MMM: Mar, MMMM: March), d, D (day of the year), E
// (Tue; EEEE: Tuesday), a (AM / PM), H, h (1-12), K (0-11), k (1-24), m, s, S (fraction of the
// second, one digit per letter), 'quoted' text ('' a quote); other characters as they are. A
// letter it does not know is an error, as Java's.
Result<std::string> FormatDateTime(int64_t days, int64_t millis_of_day, const std::string& fmt,
                                   int32_t nanos_of_milli = 0) {
  static const char* kMonths[] = {"January",   "February", "March",    "April",
                                  "May",       "June",     "July",     "August",
                                  "September", "October",  "November", "December"};
  static const char* kDays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                "Friday", "Saturday", "Sunday"};
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  const int64_t h = millis_of_day / 3600000, mi = millis_of_day / 60000 % 60,
                s = millis_of_day / 1000 % 60, ms = millis_of_day % 1000;
  const int64_t weekday = WeekdayFromMonday(days);
  std::string out;
  for (size_t i = 0; i < fmt.size();) {
    const char c = fmt[i];
    if (c == '\'') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '\'') {
        out += '\'';
        i += 2;
        continue;
      }
      size_t j = i + 1;
      while (j < fmt.size()) {
        if (fmt[j] == '\'' && j + 1 < fmt.size() && fmt[j + 1] == '\'') {
          out += '\'';
          j += 2;
          continue;
        }
        if (fmt[j] == '\'') break;
        out += fmt[j++];
      }
      if (j >= fmt.size()) {
        return Status::Invalid("date-time pattern '" + fmt + "': unclosed quote");
      }
      i = j + 1;
      continue;
    }
    if (c == '[' || c == ']') {  // an optional section: a date-time has every field it names
      i++;
      continue;
    }
    size_t n = 1;
    while (i + n < fmt.size() && fmt[i + n] == c) n++;
    // At most as many letters as Java's DateTimeFormatter takes for the field.
    const size_t most = c == 'M' || c == 'E' ? 5
                        : c == 'a'           ? 1
                        : c == 'D'           ? 3
                        : c == 'S'           ? 9
                        : c == 'y'           ? 19
                                             : 2;
    if (std::isalpha(static_cast<unsigned char>(c)) && n > most &&
        std::string("yMdDEaHhKkmsS").find(c) != std::string::npos) {
      return Status::Invalid("date-time pattern '" + fmt + "': too many pattern letters '" +
                             std::string(1, c) + "' (at most " + std::to_string(most) + ")");
    }
    auto num = [&](int64_t v, size_t width) {
      std::string t = std::to_string(v);
      if (t.size() < width) t.insert(0, width - t.size(), '0');
      out += t;
    };
    // Text forms: 3 letters short, 4 full, 5 narrow (the first letter).
    auto text = [&](const char* full) {
      const std::string f = full;
      out += n == 5 ? f.substr(0, 1) : n == 4 ? f : f.substr(0, 3);
    };
    switch (c) {
      case 'y':
        num(n == 2 ? y % 100 : y, n);
        break;
      case 'M':
        if (n >= 3)
          text(kMonths[m - 1]);
        else
          num(m, n);
        break;
      case 'd':
        num(d, n);
        break;
      case 'D':
        num(days - DaysFromCivil(y, 1, 1) + 1, n);
        break;
      case 'E':
        text(kDays[weekday]);
        break;
      case 'a':
        out += h < 12 ? "AM" : "PM";
        break;
      case 'H':
        num(h, n);
        break;
      case 'h':
        num(h % 12 == 0 ? 12 : h % 12, n);
        break;
      case 'K':
        num(h % 12, n);
        break;
      case 'k':
        num(h == 0 ? 24 : h, n);
        break;
      case 'm':
        num(mi, n);
        break;
      case 's':
        num(s, n);
        break;
      case 'S': {
        std::string frac = std::to_string(ms * 1000000 + nanos_of_milli);  // nanoseconds
        frac.insert(0, 9 - frac.size(), '0');
        out += frac.substr(0, n);
        break;
      }
      default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
          return Status::Invalid("date-time pattern '" + fmt + "': letter '" + std::string(1, c) +
                                 "' is not supported (y M d D E a H h K k m s S; quote text "
                                 "as 'text')");
        }
        out.append(n, c);
        break;
    }
    i += n;
  }
  return out;
}

// Parses `text` with a SimpleDateFormat pattern (the letters FormatDateTime writes); nullopt
// when it does not match.
std::optional<std::pair<int64_t, int64_t>> ParseDateTime(const std::string& text,
                                                         const std::string& fmt) {
  int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, s = 0, ms = 0;
  size_t p = 0;
  for (size_t i = 0; i < fmt.size();) {
    const char c = fmt[i];
    size_t n = 1;
    while (i + n < fmt.size() && fmt[i + n] == c) n++;
    if (std::string("yMdHmsS").find(c) == std::string::npos) {
      for (size_t k = 0; k < n; k++) {
        if (p >= text.size() || text[p] != c) return std::nullopt;
        p++;
      }
      i += n;
      continue;
    }
    size_t start = p;
    const size_t max_digits = c == 'y' ? (n == 2 ? 2 : 4) : c == 'S' ? 3 : 2;
    while (p < text.size() && p - start < max_digits &&
           std::isdigit(static_cast<unsigned char>(text[p])))
      p++;
    if (p == start) return std::nullopt;
    const int64_t v = std::stoll(text.substr(start, p - start));
    switch (c) {
      case 'y':
        y = n == 2 ? 2000 + v : v;
        break;
      case 'M':
        mo = v;
        break;
      case 'd':
        d = v;
        break;
      case 'H':
        h = v;
        break;
      case 'm':
        mi = v;
        break;
      case 's':
        s = v;
        break;
      default:
        ms = v;
        break;
    }
    i += n;
  }
  if (p != text.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) {
    return std::nullopt;
  }
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  int64_t cy;
  unsigned cm, cd;
  CivilFromDays(days, &cy, &cm, &cd);
  if (cm != static_cast<unsigned>(mo) || cd != static_cast<unsigned>(d)) return std::nullopt;
  return std::make_pair(days, ((h * 60 + mi) * 60 + s) * 1000 + ms);
}

Status BindYear(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.TemporalArg(0, false));
  b.type = DataType::BigInt();
  return Status::OK();
}

Status BindHour(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.TemporalArg(0, true));
  b.type = DataType::BigInt();
  return Status::OK();
}

Status BindFloorTo(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  TRIB_RETURN_NOT_OK(c.TemporalArg(0, false));
  b.type = args[0]->type;
  return Status::OK();
}

Status BindDateFormat(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  if (args[0]->type.IsString()) TRIB_RETURN_NOT_OK(c.As(0, DataType::Timestamp(3)));
  TRIB_RETURN_NOT_OK(c.TemporalArg(0, false));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  if (args[1]->IsConstant() && args[1]->constant.is_string()) {
    auto checked = FormatDateTime(0, 0, args[1]->constant.string_value());
    if (!checked.ok()) return ErrorAt(args[1]->pos, checked.status().message());
  }
  b.type = DataType::String();
  return Status::OK();
}

Status BindToDate(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 2));
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.StringArg(i));
  b.type = f == "TO_DATE" ? DataType::Date() : DataType::Timestamp(3);
  return Status::OK();
}

Status BindDateAdd(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  // DATE_ADD(d, n): the date n days after d (DATE_SUB: before); d a DATE, TIMESTAMP or
  // 'yyyy-MM-dd' string, as Hive's and Spark's.
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  if (args[0]->type.IsString()) TRIB_RETURN_NOT_OK(c.As(0, DataType::Date()));
  TRIB_RETURN_NOT_OK(c.TemporalArg(0, false));
  TRIB_RETURN_NOT_OK(c.IntArg(1));
  b.type = DataType::Date();
  return Status::OK();
}

Status BindDatediff(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  for (size_t i = 0; i < 2; i++) {
    if (args[i]->type.IsString()) TRIB_RETURN_NOT_OK(c.As(i, DataType::Date()));
    TRIB_RETURN_NOT_OK(c.TemporalArg(i, false));
  }
  b.type = DataType::Int();
  return Status::OK();
}

Status BindUnixTimestamp(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(0, 2));
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.StringArg(i));
  b.type = args.empty() ? DataType::BigInt().NotNull() : DataType::BigInt();
  return Status::OK();
}

Status BindFromUnixtime(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 2));
  TRIB_RETURN_NOT_OK(c.IntArg(0));
  if (args.size() > 1) TRIB_RETURN_NOT_OK(c.StringArg(1));
  b.type = DataType::String();
  return Status::OK();
}

Status BindToTimestampLtz(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  // TO_TIMESTAMP_LTZ(epoch [, precision]): precision 3 (milliseconds) when not given.
  TRIB_RETURN_NOT_OK(c.Arity(1, 2));
  TRIB_RETURN_NOT_OK(c.IntArg(0));
  if (args.size() > 1) TRIB_RETURN_NOT_OK(c.IntArg(1));
  if (args.size() > 1 && args[1]->IsConstant() && !args[1]->constant.is_null()) {
    const int64_t p = args[1]->constant.int_value();
    if (p != 0 && p != 3) {
      return ErrorAt(args[1]->pos,
                     "TO_TIMESTAMP_LTZ takes precision 0 (seconds) or 3 "
                     "(milliseconds), not " +
                         std::to_string(p));
    }
  }
  b.type = DataType::TimestampLtz(3);
  return Status::OK();
}

Status BindTimestampadd(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  // The parser turns the unit into a string literal.
  if (!args[0]->IsConstant() || !args[0]->constant.is_string() ||
      UnitSize(args[0]->constant.string_value()) == 0) {
    return ErrorAt(args[0]->pos, f + " takes a unit first: SECOND, MINUTE, HOUR, DAY, WEEK, "
                                     "MONTH, QUARTER or YEAR");
  }
  if (f == "TIMESTAMPADD") {
    TRIB_RETURN_NOT_OK(c.IntArg(1));
    TRIB_RETURN_NOT_OK(c.TemporalArg(2, false));
    // A unit shorter than a day moves a DATE to a TIMESTAMP (Calcite's rule):
    // TIMESTAMPADD(HOUR, 1, DATE '2024-01-01') is 2024-01-01 01:00:00.
    const int64_t unit = UnitSize(args[0]->constant.string_value());
    if (args[2]->type.id == TypeId::kDate && unit > 0 && unit < 86400000) {
      TRIB_RETURN_NOT_OK(c.As(2, DataType::Timestamp(0)));
    }
    b.type = args[2]->type;
  } else {
    TRIB_RETURN_NOT_OK(c.TemporalArg(1, false));
    TRIB_RETURN_NOT_OK(c.TemporalArg(2, false));
    b.type = DataType::Int();
  }
  return Status::OK();
}

// A DATE (days) or TIMESTAMP `base` plus `millis` and `months`, as `d + INTERVAL ...` and
// TIMESTAMPADD add: months move the calendar date (the day clamped to the month's last: Jan 31
// + 1 month is Feb 28/29). A result outside years 0000-9999 is an error naming `what` (the
// function), the value and what was added (`count` `unit` when a unit is given, else the months
// and milliseconds).
Result<Value> EvalAddInterval(const Value& base, bool is_date, __int128 millis, __int128 months,
                              const char* what, std::string_view unit = {}, int64_t count = 0) {
  int64_t days, tod;
  Civil(base, is_date, &days, &tod);
  const int64_t base_days = days;
  auto outside = [&]() {
    std::string added;
    if (!unit.empty()) {
      added = std::to_string(count) + " " + std::string(unit);
    } else {
      if (months != 0) added = FormatDecimal(months, 0) + " month(s)";
      if (millis != 0 || months == 0) {
        added += (added.empty() ? "" : " and ") +
                 (millis % 86400000 == 0 ? FormatDecimal(millis / 86400000, 0) + " day(s)"
                  : millis % 1000 == 0   ? FormatDecimal(millis / 1000, 0) + " second(s)"
                                         : FormatDecimal(millis, 0) + " millisecond(s)");
      }
    }
    const std::string operands =
        (is_date ? FormatDate(base_days) : FormatTimestamp(base.timestamp_value())) + " plus " +
        added;
    return is_date ? DateOutOfRange(what + (": " + operands))
                   : TimestampOutOfRange(what + (": " + operands));
  };
  // Beyond the range's span (10000 years) nothing lands inside; this also keeps the arithmetic
  // below from overflowing.
  if (months > 12 * 10000 || months < -12 * 10000) return outside();
  if (months != 0) days = AddMonthsClamped(days, static_cast<int64_t>(months));
  if (is_date) {
    const __int128 out = days + millis / 86400000;
    if (out < kMinDate || out > kMaxDate) return outside();
    return Value::Int(static_cast<int64_t>(out));
  }
  const __int128 out = static_cast<__int128>(days) * 86400000 + tod + millis;
  if (out < kMinTimestampMillis || out > kMaxTimestampMillis) return outside();
  Timestamp ts = base.timestamp_value();
  ts.millis = static_cast<int64_t>(out);
  return Value::Ts(ts);
}

// FLOOR(t TO unit) / CEIL(t TO unit) of a DATE (days) or TIMESTAMP value (a TIMESTAMP_LTZ comes
// here as the session zone's wall-clock time and goes back to an instant). A WEEK starts on
// Sunday, as Calcite's.
Result<Value> EvalFloorTo(const BoundExpr& e, const std::vector<Value>& args, bool ceil) {
  const bool is_date = e.args[0]->type.id == TypeId::kDate;
  const std::string& unit = args[1].string_value();
  int64_t days, tod;
  Civil(args[0], is_date, &days, &tod);
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  // The floor as (days, time of day), and the next boundary after it.
  int64_t fd = days, ft = tod, nd = days, nt = tod;
  auto whole_days = [&](int64_t first, int64_t next_first) {
    fd = first;
    ft = 0;
    nd = next_first;
    nt = 0;
  };
  if (unit == "YEAR") {
    whole_days(DaysFromCivil(y, 1, 1), DaysFromCivil(y + 1, 1, 1));
  } else if (unit == "QUARTER" || unit == "MONTH") {
    const unsigned first = unit == "MONTH" ? m : (m - 1) / 3 * 3 + 1;
    const unsigned step = unit == "MONTH" ? 1 : 3;
    const int64_t ny = first + step > 12 ? y + 1 : y;
    const unsigned nm = first + step > 12 ? first + step - 12 : first + step;
    whole_days(DaysFromCivil(y, first, 1), DaysFromCivil(ny, nm, 1));
  } else if (unit == "WEEK") {
    const int64_t sunday = days - (WeekdayFromMonday(days) + 1) % 7;
    whole_days(sunday, sunday + 7);
  } else if (unit == "DAY") {
    whole_days(days, days + 1);
  } else {
    const int64_t size = unit == "HOUR"     ? 3600000
                         : unit == "MINUTE" ? 60000
                         : unit == "SECOND" ? 1000
                                            : 1;
    ft = tod / size * size;
    nt = ft + size;
    if (nt >= 86400000) {
      nd = days + 1;
      nt -= 86400000;
    }
  }
  const Timestamp in = is_date ? Timestamp{days * 86400000, 0} : args[0].timestamp_value();
  const bool exact = fd == days && ft == tod && in.nanos_of_milli == 0;
  const int64_t rd = ceil && !exact ? nd : fd;
  const int64_t rt = ceil && !exact ? nt : ft;
  // The CEIL of a time in 9999 (or the week's FLOOR of one early in 0000) is outside the range.
  auto call = [&]() {
    return std::string(ceil ? "CEIL(" : "FLOOR(") +
           (is_date ? FormatDate(days) : FormatTimestamp(in)) + " TO " + unit + ")";
  };
  if (is_date) {
    // A DATE has no time: a unit below a day leaves it as it is.
    if (rt != 0) return Value::Int(days);
    if (!DateInRange(rd)) return DateOutOfRange(call() + ": " + FormatDate(rd));
    return Value::Int(rd);
  }
  Timestamp out{rd * 86400000 + rt, 0};
  if (e.type.id == TypeId::kTimestampLtz) out = LocalToInstant(out);
  if (!TimestampInRange(out)) return TimestampOutOfRange(call() + ": " + FormatTimestamp(out));
  return Value::Ts(out);
}

Result<Value> EvalUnixTimestamp(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  if (f == "UNIX_TIMESTAMP" && args.empty()) {
    return Value::Int(std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count());
  }
  for (const auto& v : args) {
    if (v.is_null()) return Value::Null();
  }
  if (f == "UNIX_TIMESTAMP") {
    const std::string fmt = args.size() > 1 ? args[1].string_value() : "yyyy-MM-dd HH:mm:ss";
    auto parsed = ParseDateTime(args[0].string_value(), fmt);
    if (!parsed) return Value::Null();
    const int64_t wall = parsed->first * 86400000 + parsed->second;
    // The session zone's exact conversion (the offset of the wall time itself, also next to a
    // clock change); without one, the machine's zone.
    const int64_t utc = SessionZone() != nullptr ? LocalToInstant(Timestamp{wall, 0}).millis
                                                 : wall - LocalOffsetMillis(wall);
    return Value::Int(utc >= 0 ? utc / 1000 : -((-utc + 999) / 1000));
  }
  return Status::Internal("function " + f + " has no implementation");
}

Result<Value> EvalYear(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  int64_t days = 0, tod = 0;
  if (in.id == TypeId::kTime) {
    tod = args[0].int_value();
  } else {
    Civil(args[0], in.id == TypeId::kDate, &days, &tod);
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (f == "YEAR") return Value::Int(y);
  if (f == "QUARTER") return Value::Int((m - 1) / 3 + 1);
  if (f == "MONTH") return Value::Int(m);
  if (f == "DAYOFMONTH") return Value::Int(d);
  if (f == "DAYOFYEAR") return Value::Int(days - DaysFromCivil(y, 1, 1) + 1);
  if (f == "DAYOFWEEK") return Value::Int((WeekdayFromMonday(days) + 1) % 7 + 1);  // 1 = Sunday
  if (f == "$ISODOW") return Value::Int(WeekdayFromMonday(days) + 1);              // 1 = Monday
  // Calcite's: the decade is year / 10; centuries and millennia count from year 1.
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  if (f == "$DECADE") return Value::Int(floor_div(y, 10));
  if (f == "$CENTURY") return Value::Int(y > 0 ? (y + 99) / 100 : -((-y + 99) / 100));
  if (f == "$MILLENNIUM") return Value::Int(y > 0 ? (y + 999) / 1000 : -((-y + 999) / 1000));
  if (f == "$ISOYEAR") {
    // The year of the ISO-8601 week's Thursday.
    int64_t ty;
    unsigned tm, td;
    CivilFromDays(days - WeekdayFromMonday(days) + 3, &ty, &tm, &td);
    return Value::Int(ty);
  }
  if (f == "WEEK") {
    // ISO-8601 week of the year (1-53), as Flink's: the week whose Thursday is in the year,
    // weeks starting on Monday.
    const int64_t monday_based = WeekdayFromMonday(days);
    const int64_t thursday = days - monday_based + 3;
    int64_t ty;
    unsigned tm, td;
    CivilFromDays(thursday, &ty, &tm, &td);
    return Value::Int((thursday - DaysFromCivil(ty, 1, 1)) / 7 + 1);
  }
  if (f == "HOUR") return Value::Int(tod / 3600000);
  if (f == "MINUTE") return Value::Int(tod / 60000 % 60);
  return Value::Int(tod / 1000 % 60);
}

Result<Value> EvalMillisecond(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  // Within the second, as Flink's EXTRACT: 0-999 milliseconds, 0-999999 microseconds.
  int64_t tod = 0, nanos = 0;
  if (in.id == TypeId::kTime) {
    tod = args[0].int_value();
  } else if (in.id != TypeId::kDate) {
    int64_t days;
    Civil(args[0], false, &days, &tod);
    nanos = args[0].timestamp_value().nanos_of_milli;
  }
  const int64_t ms = tod % 1000;
  return Value::Int(f == "$MILLISECOND" ? ms : ms * 1000 + nanos / 1000);
}

Result<Value> EvalEpoch(const BoundExpr& e, const std::vector<Value>& args) {
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  // Seconds since 1970-01-01 00:00:00 (a TIMESTAMP read as UTC; a TIMESTAMP_LTZ's instant).
  if (in.id == TypeId::kDate) return Value::Int(args[0].int_value() * 86400);
  const int64_t ms = args[0].timestamp_value().millis;
  return Value::Int(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
}

Result<Value> EvalFloorToCall(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  return EvalFloorTo(e, args, f == "$CEIL_TO");
}

Result<Value> EvalDateFormat(const BoundExpr& e, const std::vector<Value>& args) {
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  int64_t days, tod;
  Civil(args[0], in.id == TypeId::kDate, &days, &tod);
  const int32_t nanos = in.id == TypeId::kDate ? 0 : args[0].timestamp_value().nanos_of_milli;
  auto text = FormatDateTime(days, tod, args[1].string_value(), nanos);
  if (!text.ok()) return ErrorAt(e.pos, text.status().message());
  return Value::String(std::move(*text));
}

Result<Value> EvalToTimestamp(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  if (f == "TO_TIMESTAMP" && args.size() == 1) {
    // Without a format, Flink's lenient parse: a date alone, a 'T' or ' ' before the time, a
    // fraction of the second; NULL for text that is none of these.
    auto ts = CastValue(args[0], DataType::String(), DataType::Timestamp(3), CastMode::kExplicit);
    if (!ts.ok()) return Value::Null();
    return *ts;
  }
  if (f == "TO_DATE" || f == "TO_TIMESTAMP") {
    const std::string fmt = args.size() > 1
                                ? args[1].string_value()
                                : (f == "TO_DATE" ? "yyyy-MM-dd" : "yyyy-MM-dd HH:mm:ss");
    auto parsed = ParseDateTime(args[0].string_value(), fmt);
    if (!parsed) return Value::Null();
    if (f == "TO_DATE") return Value::Int(parsed->first);
    return Value::Ts(Timestamp{parsed->first * 86400000 + parsed->second, 0});
  }
  return Status::Internal("function " + f + " has no implementation");
}

Result<Value> EvalToDate(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const std::string fmt = args.size() > 1 ? args[1].string_value()
                                          : (f == "TO_DATE" ? "yyyy-MM-dd" : "yyyy-MM-dd HH:mm:ss");
  auto parsed = ParseDateTime(args[0].string_value(), fmt);
  if (!parsed) return Value::Null();
  if (f == "TO_DATE") return Value::Int(parsed->first);
  return Value::Ts(Timestamp{parsed->first * 86400000 + parsed->second, 0});
}

Result<Value> EvalAddIntervalCall(const BoundExpr& e, const std::vector<Value>& args) {
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  return EvalAddInterval(args[0], in.id == TypeId::kDate, args[1].int_value(), args[2].int_value(),
                         "INTERVAL arithmetic");
}

Result<Value> EvalDateAdd(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  int64_t day, ignored;
  Civil(args[0], e.args[0]->type.id == TypeId::kDate, &day, &ignored);
  const int64_t n = args[1].int_value();
  if (n > 3000000 || n < -3000000)
    return ErrorAt(e.pos, f + ": " + std::to_string(n) + " days is out of range");
  const int64_t out = f == "DATE_ADD" ? day + n : day - n;
  if (!DateInRange(out)) {
    return DateOutOfRange(f + "(" + FormatDate(day) + ", " + std::to_string(n) +
                          "): " + FormatDate(out));
  }
  return Value::Int(out);
}

Result<Value> EvalDatediff(const BoundExpr& e, const std::vector<Value>& args) {
  int64_t a, b, ignored;
  Civil(args[0], e.args[0]->type.id == TypeId::kDate, &a, &ignored);
  Civil(args[1], e.args[1]->type.id == TypeId::kDate, &b, &ignored);
  return Value::Int(a - b);
}

Result<Value> EvalFromUnixtime(const BoundExpr& e, const std::vector<Value>& args) {
  // Seconds outside years 0000-9999 (UTC) are an error: Flink's multiplication by 1000
  // overflows silently there (9223372036854775807 reads as 1969-12-31 23:59:59).
  const int64_t secs = args[0].int_value();
  if (secs < kMinTimestampMillis / 1000 || secs > kMaxTimestampMillis / 1000) {
    return TimestampOutOfRange("FROM_UNIXTIME: " + std::to_string(secs) +
                               " seconds since 1970-01-01 00:00:00 UTC");
  }
  const int64_t utc = secs * 1000;
  const int64_t wall = utc + LocalOffsetMillis(utc);
  const int64_t days = wall >= 0 ? wall / 86400000 : -((-wall + 86399999) / 86400000);
  const std::string fmt = args.size() > 1 ? args[1].string_value() : "yyyy-MM-dd HH:mm:ss";
  auto text = FormatDateTime(days, wall - days * 86400000, fmt);
  if (!text.ok()) return ErrorAt(e.pos, text.status().message());
  return Value::String(std::move(*text));
}

Result<Value> EvalToTimestampLtz(const BoundExpr& e, const std::vector<Value>& args) {
  const int64_t p = args.size() > 1 ? args[1].int_value() : 3;
  if (p != 0 && p != 3) return Status::Invalid("TO_TIMESTAMP_LTZ takes precision 0 or 3");
  // Outside 0000-01-01 .. 9999-12-31 23:59:59.999: NULL, as Flink's.
  constexpr int64_t kMin = kMinTimestampMillis, kMax = kMaxTimestampMillis;
  const int64_t n = args[0].int_value();
  if (n < (p == 0 ? kMin / 1000 : kMin) || n > (p == 0 ? kMax / 1000 : kMax)) {
    return Value::Null();
  }
  return Value::Ts(Timestamp{p == 0 ? n * 1000 : n, 0});
}

Result<Value> EvalTimestampadd(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const int64_t unit = UnitSize(args[0].string_value());
  if (f == "TIMESTAMPADD") {
    const __int128 n = args[1].int_value();  // wide: n * unit cannot overflow
    return EvalAddInterval(args[2], e.args[2]->type.id == TypeId::kDate, unit > 0 ? n * unit : 0,
                           unit < 0 ? n * -unit : 0, "TIMESTAMPADD", args[0].string_value(),
                           args[1].int_value());
  }
  int64_t d1, t1, d2, t2;
  Civil(args[1], e.args[1]->type.id == TypeId::kDate, &d1, &t1);
  Civil(args[2], e.args[2]->type.id == TypeId::kDate, &d2, &t2);
  if (unit > 0) {
    const int64_t diff = (d2 * 86400000 + t2) - (d1 * 86400000 + t1);
    return Value::Int(diff / unit);  // truncated toward zero
  }
  // Calcite's (so Flink's) month count: the most months m such that adding m months to the
  // earlier day (clamped to the month's end: Jan 31 + 1 month = Feb 29) does not pass the
  // later one; on the same day, the time of day decides.
  auto whole_months = [&](int64_t later, int64_t earlier) {
    int64_t m = (later - earlier) / 31;
    while (true) {
      if (AddMonthsClamped(earlier, m) >= later || AddMonthsClamped(earlier, m + 1) > later) {
        return m;
      }
      ++m;
    }
  };
  int64_t months = d2 >= d1 ? whole_months(d2, d1) : -whole_months(d1, d2);
  // Calcite's correction, whatever the sign (so a negative span can count one month more).
  if (AddMonthsClamped(d1, months) == d2 && t2 < t1) months--;
  return Value::Int(months / -unit);
}

}  // namespace

const std::vector<FunctionInfo>& DateTimeFunctions() {
  using K = FunctionKind;
  [[maybe_unused]] constexpr uint8_t N = kMayReturnNull, W = kReadsWallClock, V = kVolatile,
                                     S = kSeesNull;
  static const std::vector<FunctionInfo> kTable = {
      {"YEAR", K::kScalar, W, BindYear, EvalYear},
      {"QUARTER", K::kScalar, W, BindYear, EvalYear},
      {"MONTH", K::kScalar, W, BindYear, EvalYear},
      {"DAYOFMONTH", K::kScalar, W, BindYear, EvalYear},
      {"DAYOFYEAR", K::kScalar, W, BindYear, EvalYear},
      {"DAYOFWEEK", K::kScalar, W, BindYear, EvalYear},
      {"WEEK", K::kScalar, W, BindYear, EvalYear},
      {"HOUR", K::kScalar, W, BindHour, EvalYear},
      {"MINUTE", K::kScalar, W, BindHour, EvalYear},
      {"SECOND", K::kScalar, W, BindHour, EvalYear},
      {"DATE_FORMAT", K::kScalar, W, BindDateFormat, EvalDateFormat},
      {"TO_DATE", K::kScalar, N, BindToDate, EvalToDate},
      {"TO_TIMESTAMP", K::kScalar, N, BindToDate, EvalToTimestamp},
      {"DATEDIFF", K::kScalar, W, BindDatediff, EvalDatediff},
      {"DATE_ADD", K::kScalar, W, BindDateAdd, EvalDateAdd},
      {"DATE_SUB", K::kScalar, W, BindDateAdd, EvalDateAdd},
      {"UNIX_TIMESTAMP", K::kScalar, kVolatileWithoutArgs | N | S, BindUnixTimestamp,
       EvalUnixTimestamp},
      {"FROM_UNIXTIME", K::kScalar, kNone, BindFromUnixtime, EvalFromUnixtime},
      {"TO_TIMESTAMP_LTZ", K::kScalar, N, BindToTimestampLtz, EvalToTimestampLtz},
      {"TIMESTAMPADD", K::kScalar, kNone, BindTimestampadd, EvalTimestampadd},
      {"TIMESTAMPDIFF", K::kScalar, kNone, BindTimestampadd, EvalTimestampadd},
      {"$ADD_INTERVAL", K::kInternal, kNone, nullptr, EvalAddIntervalCall},
      {"$MILLISECOND", K::kInternal, W, BindHour, EvalMillisecond},
      {"$MICROSECOND", K::kInternal, W, BindHour, EvalMillisecond},
      {"$EPOCH", K::kInternal, kNone, BindYear, EvalEpoch},
      {"$FLOOR_TO", K::kInternal, W, BindFloorTo, EvalFloorToCall},
      {"$CEIL_TO", K::kInternal, W, BindFloorTo, EvalFloorToCall},
      {"$DECADE", K::kInternal, W, BindYear, EvalYear},
      {"$CENTURY", K::kInternal, W, BindYear, EvalYear},
      {"$MILLENNIUM", K::kInternal, W, BindYear, EvalYear},
      {"$ISODOW", K::kInternal, W, BindYear, EvalYear},
      {"$ISOYEAR", K::kInternal, W, BindYear, EvalYear},
  };
  return kTable;
}

}  // namespace tributary::sql
