#include "common/datetime.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <optional>

namespace tributary {

int64_t MachineUtcOffsetMillis(int64_t utc_millis) {
  const std::time_t secs =
      static_cast<std::time_t>(utc_millis >= 0 ? utc_millis / 1000 : -((-utc_millis + 999) / 1000));
  std::tm local{};
  localtime_r(&secs, &local);
  return static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

Status DateOutOfRange(const std::string& what) {
  return Status::Invalid(what + " is out of range (" + kDateRange + ")");
}

Status TimestampOutOfRange(const std::string& what) {
  return Status::Invalid(what + " is out of range (" + kTimestampRange + ")");
}

bool IsOutOfRange(const Status& st) {
  const std::string& m = st.message();
  for (const char* range : {kDateRange, kTimestampRange}) {
    const std::string tail = std::string(" is out of range (") + range + ")";
    if (m.size() >= tail.size() && m.compare(m.size() - tail.size(), tail.size(), tail) == 0) {
      return true;
    }
  }
  return false;
}

// Howard Hinnant's civil-date algorithms.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t yy = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = yy + (*m <= 2);
}

namespace {
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
std::string Pad(int64_t v, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(v));
  return buf;
}
// Fraction digits (0..9 digits of nanos) with trailing zeros dropped; "" when zero.
std::string Fraction(int64_t nanos) {
  if (nanos == 0) return "";
  std::string f = Pad(nanos, 9);
  while (!f.empty() && f.back() == '0') f.pop_back();
  return "." + f;
}
}  // namespace

std::string FormatDate(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  std::string ys = y < 0 ? "-" + Pad(-y, 4) : Pad(y, 4);
  return ys + "-" + Pad(m, 2) + "-" + Pad(d, 2);
}

std::string FormatTime(int64_t millis) {
  int64_t s = FloorDiv(millis, 1000);
  int64_t ms = millis - s * 1000;
  std::string out = Pad(s / 3600, 2) + ":" + Pad((s / 60) % 60, 2) + ":" + Pad(s % 60, 2);
  return out + Fraction(ms * 1000000);
}

std::string PadTimestampFraction(std::string text, int precision) {
  if (precision <= 0) return text;
  const size_t space = text.find(' ');
  const size_t dot = text.find('.', space == std::string::npos ? 0 : space);
  // The fraction ends at the first character after the seconds that is not a digit (a zone).
  size_t end = dot == std::string::npos ? text.find_first_not_of("0123456789:", space + 1)
                                        : text.find_first_not_of("0123456789", dot + 1);
  if (end == std::string::npos) end = text.size();
  const size_t have = dot == std::string::npos ? 0 : end - dot - 1;
  if (have >= static_cast<size_t>(precision)) return text;
  std::string pad = (dot == std::string::npos ? "." : "") + std::string(precision - have, '0');
  text.insert(end, pad);
  return text;
}

std::string FormatTimestamp(const Timestamp& ts) {
  int64_t secs = FloorDiv(ts.millis, 1000);
  int64_t ms = ts.millis - secs * 1000;
  int64_t days = FloorDiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  return FormatDate(days) + " " + Pad(sod / 3600, 2) + ":" + Pad((sod / 60) % 60, 2) + ":" +
         Pad(sod % 60, 2) + Fraction(ms * 1000000 + ts.nanos_of_milli);
}

namespace {
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool Digits(int min, int max, int64_t* out) {
    size_t b = p_;
    int64_t v = 0;
    while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_])) &&
           static_cast<int>(p_ - b) < max) {
      v = v * 10 + (s_[p_] - '0');
      p_++;
    }
    *out = v;
    return static_cast<int>(p_ - b) >= min;
  }
  bool Char(char c) {
    if (p_ < s_.size() && s_[p_] == c) {
      p_++;
      return true;
    }
    return false;
  }
  bool AtEnd() const { return p_ == s_.size(); }
  size_t pos() const { return p_; }
  std::string_view rest() const { return s_.substr(p_); }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool ValidDate(int64_t y, int64_t m, int64_t d) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1) return false;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  int max = kDays[m - 1] + (m == 2 && leap ? 1 : 0);
  return d <= max;
}

// The date at the cursor; a year outside 0000-9999 (more digits, a sign) is out of the DATE
// range, or of the TIMESTAMP range when `timestamp`.
Status ParseDateAt(Cursor* c, std::string_view whole, bool timestamp, int64_t* days) {
  int64_t y, m, d;
  bool neg = c->Char('-');
  if (!c->Digits(4, 9, &y) || !c->Char('-') || !c->Digits(1, 2, &m) || !c->Char('-') ||
      !c->Digits(1, 2, &d)) {
    return Status::Invalid("invalid date '" + std::string(whole) + "' (expected YYYY-MM-DD)");
  }
  if (neg || y > 9999) {
    return timestamp ? TimestampOutOfRange("timestamp '" + std::string(whole) + "'")
                     : DateOutOfRange("date '" + std::string(whole) + "'");
  }
  if (!ValidDate(y, m, d)) return Status::Invalid("invalid date '" + std::string(whole) + "'");
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return Status::OK();
}

// HH:MM[:SS[.f...]] -> nanos of day.
Status ParseTimeAt(Cursor* c, std::string_view whole, int64_t* nanos) {
  int64_t h, mi, s = 0, frac = 0;
  if (!c->Digits(1, 2, &h) || !c->Char(':') || !c->Digits(2, 2, &mi)) {
    return Status::Invalid("invalid time in '" + std::string(whole) + "' (expected HH:MM:SS)");
  }
  if (c->Char(':')) {
    if (!c->Digits(2, 2, &s))
      return Status::Invalid("invalid seconds in '" + std::string(whole) + "'");
    if (c->Char('.')) {
      size_t b = c->pos();
      if (!c->Digits(1, 9, &frac)) {
        return Status::Invalid("invalid fraction in '" + std::string(whole) + "'");
      }
      for (size_t n = c->pos() - b; n < 9; n++) frac *= 10;
    }
  }
  if (h > 23 || mi > 59 || s > 59) {
    return Status::Invalid("time out of range in '" + std::string(whole) + "'");
  }
  *nanos = ((h * 60 + mi) * 60 + s) * 1000000000LL + frac;
  return Status::OK();
}
}  // namespace

Result<int64_t> ParseDate(std::string_view s) {
  s = Trim(s);
  Cursor c(s);
  int64_t days;
  TRIB_RETURN_NOT_OK(ParseDateAt(&c, s, /*timestamp=*/false, &days));
  if (!c.AtEnd()) return Status::Invalid("invalid date '" + std::string(s) + "'");
  return days;
}

Result<int64_t> ParseTime(std::string_view s) {
  s = Trim(s);
  Cursor c(s);
  int64_t nanos;
  TRIB_RETURN_NOT_OK(ParseTimeAt(&c, s, &nanos));
  if (!c.AtEnd()) return Status::Invalid("invalid time '" + std::string(s) + "'");
  return nanos / 1000000;
}

Timestamp TruncateTimestamp(Timestamp ts, int32_t precision) {
  if (precision >= 9) return ts;
  if (precision >= 3) {
    int32_t unit = 1;
    for (int i = precision; i < 9; i++) unit *= 10;
    ts.nanos_of_milli -= ts.nanos_of_milli % unit;
    return ts;
  }
  int64_t unit = 1;
  for (int i = precision; i < 3; i++) unit *= 10;
  ts.nanos_of_milli = 0;
  ts.millis = FloorDiv(ts.millis, unit) * unit;
  return ts;
}

Result<Timestamp> ParseTimestamp(std::string_view s, int32_t precision) {
  s = Trim(s);
  Cursor c(s);
  int64_t days;
  TRIB_RETURN_NOT_OK(ParseDateAt(&c, s, /*timestamp=*/true, &days));
  int64_t nanos = 0;
  if (!c.AtEnd()) {
    if (!c.Char(' ') && !c.Char('T')) {
      return Status::Invalid("invalid timestamp '" + std::string(s) + "'");
    }
    TRIB_RETURN_NOT_OK(ParseTimeAt(&c, s, &nanos));
  }
  c.Char('Z');
  if (!c.AtEnd()) return Status::Invalid("invalid timestamp '" + std::string(s) + "'");
  Timestamp ts;
  ts.millis = days * 86400000LL + nanos / 1000000;
  ts.nanos_of_milli = static_cast<int32_t>(nanos % 1000000);
  return TruncateTimestamp(ts, precision);
}

__int128 Pow10(int n) {
  __int128 r = 1;
  for (int i = 0; i < n; i++) r *= 10;
  return r;
}

std::string FormatDecimal(__int128 unscaled, int32_t scale) {
  bool neg = unscaled < 0;
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(unscaled + 1)) + 1
                            : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  if (scale > 0) {
    while (static_cast<int32_t>(digits.size()) <= scale) digits.insert(digits.begin(), '0');
    digits.insert(digits.end() - scale, '.');
  }
  return neg ? "-" + digits : digits;
}

namespace {

// `t` (no sign) with its exponent (`1.5E-3`, as Java's BigDecimal and PostgreSQL read it) moved
// into the digits (`0.0015`); nullopt when the exponent is malformed or beyond 1,000.
std::optional<std::string> WithoutExponent(std::string_view t) {
  const size_t e = t.find_first_of("eE");
  std::string_view mantissa = t.substr(0, e), exp_text = t.substr(e + 1);
  int exponent = 0;
  bool exp_neg = false;
  if (!exp_text.empty() && (exp_text[0] == '-' || exp_text[0] == '+')) {
    exp_neg = exp_text[0] == '-';
    exp_text.remove_prefix(1);
  }
  if (exp_text.empty() || exp_text.size() > 4) return std::nullopt;
  for (char ch : exp_text) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
    exponent = exponent * 10 + (ch - '0');
  }
  if (exponent > 1000) return std::nullopt;
  if (exp_neg) exponent = -exponent;
  const size_t point = mantissa.find('.');
  std::string digits(mantissa.substr(0, point));
  int whole = static_cast<int>(digits.size());
  if (point != std::string_view::npos) digits += mantissa.substr(point + 1);
  whole += exponent;
  if (whole <= 0) return "0." + std::string(static_cast<size_t>(-whole), '0') + digits;
  if (whole >= static_cast<int>(digits.size())) {
    return digits + std::string(static_cast<size_t>(whole) - digits.size(), '0');
  }
  return digits.substr(0, static_cast<size_t>(whole)) + "." + digits.substr(whole);
}

}  // namespace

Result<__int128> ParseDecimal(std::string_view s, int32_t precision, int32_t scale) {
  std::string_view t = Trim(s);
  auto bad = [&]() { return Status::Invalid("invalid DECIMAL value '" + std::string(s) + "'"); };
  if (t.empty()) return bad();
  bool neg = false;
  if (t[0] == '-' || t[0] == '+') {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  std::optional<std::string> expanded;
  if (t.find_first_of("eE") != std::string_view::npos) {
    expanded = WithoutExponent(t);
    if (!expanded) return bad();
    t = *expanded;
  }
  __int128 v = 0;
  int frac_digits = 0;
  bool seen_point = false, any = false;
  int round_digit = -1;
  for (char ch : t) {
    if (ch == '.') {
      if (seen_point) return bad();
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(ch))) return bad();
    any = true;
    if (seen_point && frac_digits >= scale) {
      if (round_digit < 0) round_digit = ch - '0';
      continue;
    }
    if (v > Pow10(37))
      return Status::Invalid("DECIMAL value '" + std::string(s) + "' is out of range");
    v = v * 10 + (ch - '0');
    if (seen_point) frac_digits++;
  }
  if (!any) return bad();
  for (; frac_digits < scale; frac_digits++) v *= 10;
  if (round_digit >= 5) v += 1;
  if (v >= Pow10(precision)) {
    return Status::Invalid("value '" + std::string(s) + "' does not fit DECIMAL(" +
                           std::to_string(precision) + ", " + std::to_string(scale) + ")");
  }
  return neg ? -v : v;
}

}  // namespace tributary
