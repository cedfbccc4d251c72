// Built-in scalar functions beyond the core ones (functions.h): numeric, string, conditional and
// date/time functions with Flink's names and semantics.
#include "sql/functions.h"

#include "common/json.h"

#include <openssl/evp.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "common/datetime.h"
#include "sql/cast.h"
#include "sql/function_registry.h"

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

// The digest `name` (md5, sha1, sha256, ...) of `s` as lowercase hex, as Flink's MD5 / SHA*.
Result<std::string> HexDigest(const char* name, const std::string& s) {
  const EVP_MD* md = EVP_get_digestbyname(name);
  if (md == nullptr) return Status::Internal(std::string("no digest ") + name);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(s.data(), s.size(), out, &len, md, nullptr) != 1) {
    return Status::Internal(std::string("digest ") + name + " failed");
  }
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; i++) {
    hex += kHex[out[i] >> 4];
    hex += kHex[out[i] & 15];
  }
  return hex;
}

// The UTC offset at `utc_millis` of the session zone, else the machine's (the zone UNIX_TIMESTAMP
// and FROM_UNIXTIME read and write wall times in, as LOCALTIMESTAMP).
int64_t LocalOffsetMillis(int64_t utc_millis) {
  if (SessionZone() != nullptr) return InstantToLocal(Timestamp{utc_millis, 0}).millis - utc_millis;
  return MachineUtcOffsetMillis(utc_millis);
}

// The value at a JSON path ('$', then `.name`, `['name']` or `[index]` steps) of `doc`, or null
// when the path is malformed (then *malformed is set, when given) or leads nowhere.
const Json* JsonAt(const Json& doc, const std::string& path, bool* malformed = nullptr) {
  auto bad = [&]() -> const Json* {
    if (malformed) *malformed = true;
    return nullptr;
  };
  if (path.empty() || path[0] != '$') return bad();
  const Json* at = &doc;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t j = i + 1;
      while (j < path.size() && path[j] != '.' && path[j] != '[') j++;
      const std::string key = path.substr(i + 1, j - i - 1);
      if (key.empty()) return bad();
      if (!at->is_object()) return nullptr;
      auto it = at->find(key);
      if (it == at->end()) return nullptr;
      at = &*it;
      i = j;
    } else if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string::npos) return bad();
      std::string inner = path.substr(i + 1, close - i - 1);
      if (inner.size() >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner.back() == inner[0]) {
        const std::string key = inner.substr(1, inner.size() - 2);
        if (!at->is_object()) return nullptr;
        auto it = at->find(key);
        if (it == at->end()) return nullptr;
        at = &*it;
      } else {
        if (inner.empty() || !std::all_of(inner.begin(), inner.end(), ::isdigit) ||
            inner.size() > 9) {
          return bad();
        }
        if (!at->is_array()) return nullptr;
        const size_t index = std::stoul(inner);
        if (index >= at->size()) return nullptr;
        at = &(*at)[index];
      }
      i = close + 1;
    } else {
      return bad();
    }
  }
  return at;
}

}  // namespace

struct RandomState {
  std::mt19937_64 engine;
};

namespace {

std::mt19937_64& RandomEngine() {
  thread_local std::mt19937_64 engine(std::random_device{}());
  return engine;
}


std::string Utf8(const std::vector<uint32_t>& cps, size_t begin = 0, size_t end = SIZE_MAX) {
  std::string out;
  end = std::min(end, cps.size());
  for (size_t i = begin; i < end; i++) {
    uint32_t c = cps[i];
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// A compiled pattern (PCRE2: Perl syntax, as Java's java.util.regex reads it), matched over
// UTF-8 text with bounded work and heap instead of the stack, so a long value cannot overflow it.
// Thread-safety: a compiled pattern is shared; each match has its own match data.
class Regex {
 public:
  explicit Regex(pcre2_code* code) : code_(code) {
    pcre2_pattern_info(code_, PCRE2_INFO_CAPTURECOUNT, &groups_);
  }
  ~Regex() { pcre2_code_free(code_); }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  uint32_t groups() const { return groups_; }

  // The first match at or after byte `from`: false when there is none; `spans` gets (begin, end)
  // of the whole match and of each group (-1, -1 for a group that took no part).
  Result<bool> Find(const std::string& s, size_t from,
                    std::vector<std::pair<int64_t, int64_t>>* spans) const {
    static thread_local std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>
        context = [] {
          pcre2_match_context* c = pcre2_match_context_create(nullptr);
          pcre2_set_match_limit(c, 50'000'000);
          pcre2_set_heap_limit(c, 256 * 1024);  // KiB of backtracking memory
          return std::unique_ptr<pcre2_match_context, decltype(&pcre2_match_context_free)>(
              c, &pcre2_match_context_free);
        }();
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> data(
        pcre2_match_data_create_from_pattern(code_, nullptr), &pcre2_match_data_free);
    const int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), from, 0,
                               data.get(), context.get());
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) {
      PCRE2_UCHAR buf[256];
      pcre2_get_error_message(rc, buf, sizeof buf);
      return Status::Invalid(std::string("regular expression match failed: ") +
                             reinterpret_cast<const char*>(buf));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data.get());
    spans->clear();
    for (uint32_t i = 0; i <= groups_; i++) {
      if (i < static_cast<uint32_t>(rc) && ov[2 * i] != PCRE2_UNSET) {
        spans->emplace_back(static_cast<int64_t>(ov[2 * i]), static_cast<int64_t>(ov[2 * i + 1]));
      } else {
        spans->emplace_back(-1, -1);
      }
    }
    return true;
  }

 private:
  pcre2_code* code_;
  uint32_t groups_ = 0;
};

// Compiled patterns, by text (a pattern is usually a constant of the query).
Result<std::shared_ptr<const Regex>> Pattern(const std::string& p) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Regex>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(p);
  if (it != cache.end()) return it->second;
  int error = 0;
  PCRE2_SIZE offset = 0;
  // '.' and '$' treat CR, LF and the Unicode line separators as line ends, as Java's do.
  std::unique_ptr<pcre2_compile_context, decltype(&pcre2_compile_context_free)> compile(
      pcre2_compile_context_create(nullptr), &pcre2_compile_context_free);
  pcre2_set_newline(compile.get(), PCRE2_NEWLINE_ANY);
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(),
                                   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &error, &offset,
                                   compile.get());
  if (code == nullptr) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(error, buf, sizeof buf);
    return Status::Invalid("invalid regular expression '" + p + "' at character " +
                           std::to_string(offset + 1) + ": " +
                           reinterpret_cast<const char*>(buf));
  }
  auto r = std::make_shared<const Regex>(code);
  if (cache.size() > 1000) cache.clear();
  cache[p] = r;
  return r;
}

// Bytes of the UTF-8 character starting at s[i] (1 for a byte that starts none).
size_t CharBytes(const std::string& s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return std::min(n, s.size() - i);
}

// Flink's REGEXP_REPLACE: every match replaced by `replacement` taken literally (Flink quotes it
// with Matcher.quoteReplacement: '$' and '\\' are plain characters); an empty match moves on by
// one character, as Java's replaceAll.
Result<std::string> RegexReplaceAll(const Regex& re, const std::string& s,
                                    const std::string& replacement) {
  std::string out;
  std::vector<std::pair<int64_t, int64_t>> spans;
  size_t last = 0, from = 0;
  while (from <= s.size()) {
    TRIB_ASSIGN_OR_RETURN(bool found, re.Find(s, from, &spans));
    if (!found) break;
    const size_t begin = static_cast<size_t>(spans[0].first);
    const size_t end = static_cast<size_t>(spans[0].second);
    out.append(s, last, begin - last);
    out += replacement;
    last = end;
    if (end == begin) {
      if (end >= s.size()) break;
      const size_t step = CharBytes(s, end);
      out.append(s, end, step);
      last = end + step;
      from = end + step;
    } else {
      from = end;
    }
  }
  if (last < s.size()) out.append(s, last, std::string::npos);
  return out;
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
  static const char* kMonths[] = {"January", "February", "March",     "April",
                                  "May",     "June",     "July",      "August",
                                  "September", "October", "November", "December"};
  static const char* kDays[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                                "Sunday"};
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
    const size_t most = c == 'M' || c == 'E' ? 5 : c == 'a' ? 1 : c == 'D' ? 3 : c == 'S' ? 9
                      : c == 'y' ? 19 : 2;
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
      case 'y': num(n == 2 ? y % 100 : y, n); break;
      case 'M':
        if (n >= 3) text(kMonths[m - 1]);
        else num(m, n);
        break;
      case 'd': num(d, n); break;
      case 'D': num(days - DaysFromCivil(y, 1, 1) + 1, n); break;
      case 'E': text(kDays[weekday]); break;
      case 'a': out += h < 12 ? "AM" : "PM"; break;
      case 'H': num(h, n); break;
      case 'h': num(h % 12 == 0 ? 12 : h % 12, n); break;
      case 'K': num(h % 12, n); break;
      case 'k': num(h == 0 ? 24 : h, n); break;
      case 'm': num(mi, n); break;
      case 's': num(s, n); break;
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
    while (p < text.size() && p - start < max_digits && std::isdigit(static_cast<unsigned char>(text[p]))) p++;
    if (p == start) return std::nullopt;
    const int64_t v = std::stoll(text.substr(start, p - start));
    switch (c) {
      case 'y': y = n == 2 ? 2000 + v : v; break;
      case 'M': mo = v; break;
      case 'd': d = v; break;
      case 'H': h = v; break;
      case 'm': mi = v; break;
      case 's': s = v; break;
      default: ms = v; break;
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

const char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string ToBase64(const std::string& in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) | static_cast<unsigned char>(in[i + 2]);
    for (int k = 3; k >= 0; k--) out += kBase64[(v >> (6 * k)) & 63];
  }
  if (i < in.size()) {
    uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> FromBase64(const std::string& in) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* at = std::strchr(kBase64, c);
    if (!at || c == '\0') return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(at - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// x rounded (or truncated) to `digits` digits after the point, in x's own type.
// `v` rounded (half up) or truncated to `digits` places as a decimal, as Flink's ROUND and
// TRUNCATE of a DOUBLE round BigDecimal.valueOf(v): the shortest decimal that reads back as v,
// so ROUND(1.005, 2) is 1.01 though the binary value is a little below 1.005.
double RoundShortestDecimal(double v, int64_t digits, bool truncate) {
  if (!std::isfinite(v) || v == 0) return v;
  char buf[64];
  const auto written =
      std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
  const std::string sci(buf, written.ptr);  // d.ddde±x
  const size_t e = sci.find('e');
  std::string digs;
  for (size_t i = 0; i < e; i++) {
    if (sci[i] != '.') digs += sci[i];
  }
  const int64_t point = std::stoll(sci.substr(e + 1)) + 1;  // v = 0.<digs> * 10^point
  digits = std::clamp<int64_t>(digits, -400, 400);            // beyond: all digits, or none
  const int64_t keep = point + digits;                        // digits of digs kept
  if (keep >= static_cast<int64_t>(digs.size())) return v;
  if (keep < 0) return 0.0;
  const bool up = !truncate && digs[static_cast<size_t>(keep)] >= '5';
  std::string kept = keep == 0 ? "0" : digs.substr(0, static_cast<size_t>(keep));
  if (up) {
    size_t i = kept.size();
    while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
    if (i == 0) kept.insert(kept.begin(), '1');
    else kept[i - 1]++;
  }
  const std::string text = kept + "e" + std::to_string(point - keep);
  double out = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), out);
  if (parsed.ec == std::errc::result_out_of_range) return std::copysign(HUGE_VAL, v);
  return out == 0 ? 0.0 : std::copysign(out, v);
}

Value RoundTo(const Value& x, const DataType& type, int64_t digits, bool truncate) {
  digits = std::clamp<int64_t>(digits, -400, 400);  // beyond: every digit kept, or none
  if (x.is_double()) return Value::Double(RoundShortestDecimal(x.double_value(), digits, truncate));
  // Integers and decimals: an unscaled integer with `scale` digits after the point.
  const int scale = x.is_decimal() ? type.scale : 0;
  const __int128 u = x.is_decimal() ? x.decimal_value().unscaled : x.int_value();
  const int64_t drop = static_cast<int64_t>(scale) - digits;
  if (drop <= 0) return x;
  if (drop > 38) return x.is_decimal() ? Value::Dec(Decimal{0}) : Value::Int(0);
  const __int128 p = Pow10(static_cast<int>(drop));
  __int128 q = u / p;
  const __int128 rem = u % p;
  if (!truncate && (rem >= p / 2 || -rem >= p / 2) && rem != 0) q += u < 0 ? -1 : 1;
  const __int128 r = q * p;
  return x.is_decimal() ? Value::Dec(Decimal{r}) : Value::Int(static_cast<int64_t>(r));
}

}  // namespace

bool IsScalarFunction(const std::string& f) {
  const FunctionInfo* info = FindFunction(f);
  return info != nullptr && (info->kind == FunctionKind::kScalar ||
                             info->kind == FunctionKind::kInternal);
}

bool IsVolatileFunction(const std::string& f, size_t arg_count) {
  const FunctionInfo* info = FindFunction(f);
  return info != nullptr && ((info->flags & kVolatile) != 0 ||
                             ((info->flags & kVolatileWithoutArgs) != 0 && arg_count == 0));
}

std::vector<std::string> AllFunctionNames() {
  std::vector<std::string> out;
  for (const FunctionInfo& f : AllFunctions()) {
    if (f.kind != FunctionKind::kInternal) out.push_back(f.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One binding of a scalar function's call: the arguments (replaced by casts where the function
// wants another type) and the result, with the checks the functions share.
struct ScalarBindCall {
  const std::string& f;
  const Pos& pos;
  std::vector<BoundExprPtr>& args;
  ScalarBinding b;

  Status Arity(size_t lo, size_t hi) const {
    if (args.size() < lo || args.size() > hi) {
      return ErrorAt(pos, "function " + f + " takes " +
                              (lo == hi ? std::to_string(lo)
                                        : std::to_string(lo) + " to " + std::to_string(hi)) +
                              " argument(s), got " + std::to_string(args.size()));
    }
    return Status::OK();
  }
  Status As(size_t i, const DataType& t) {
    TRIB_ASSIGN_OR_RETURN(args[i],
                          CastTo(std::move(args[i]), t, static_cast<int>(CastMode::kExplicit)));
    return Status::OK();
  }
  Status Need(size_t i, bool ok, const char* what) const {
    if (args[i]->null_literal) return Status::OK();
    if (!ok) {
      return ErrorAt(args[i]->pos, "function " + f + " needs " + what + ", not " +
                                       TypeName(args[i]->type));
    }
    return Status::OK();
  }
  Status StringArg(size_t i) {
    TRIB_RETURN_NOT_OK(Need(i, args[i]->type.IsString(), "a string"));
    return As(i, DataType::String());
  }
  Status IntArg(size_t i) {
    TRIB_RETURN_NOT_OK(Need(i, args[i]->type.IsInteger(), "an integer"));
    return As(i, DataType::BigInt());
  }
  Status NumericArg(size_t i) {
    if (args[i]->null_literal) return As(i, DataType::Int());
    return Need(i, args[i]->type.IsNumeric(), "a number");
  }
  Status TemporalArg(size_t i, bool time_ok) {
    if (args[i]->null_literal) return As(i, DataType::Timestamp(3));
    const DataType& t = args[i]->type;
    const bool ok = t.id == TypeId::kDate || t.IsTimestamp() || (time_ok && t.id == TypeId::kTime);
    return Need(i, ok, time_ok ? "a DATE, TIME or TIMESTAMP" : "a DATE or TIMESTAMP");
  }
};

namespace {

Status BindRound(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 2));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  if (args.size() > 1) TRIB_RETURN_NOT_OK(c.IntArg(1));
  b.type = args[0]->type;
  // A DECIMAL rounded to a constant number of places has that scale (Flink's
  // findRoundDecimalType): ROUND(1.2345, 2) is DECIMAL(4, 2) 1.23, ROUND(2.5) DECIMAL(2, 0) 3.
  const bool constant_places =
      args.size() == 1 || (args[1]->IsConstant() && !args[1]->constant.is_null());
  if (b.type.id == TypeId::kDecimal && constant_places) {
    const int64_t r = args.size() == 1 ? 0 : args[1]->constant.int_value();
    const int p = b.type.precision, s = b.type.scale;
    if (r < 0) {
      b.type = DataType::Decimal(std::min(38, 1 + p - s), 0).WithNullable(b.type.nullable);
    } else if (r < s) {
      b.type = DataType::Decimal(static_cast<int>(1 + p - s + r), static_cast<int>(r))
                   .WithNullable(b.type.nullable);
    }
  }
  return Status::OK();
}

Status BindFloor(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  b.type = args[0]->type;
  if (b.type.id == TypeId::kDecimal) {
    b.type = DataType::Decimal(std::min(38, b.type.precision - b.type.scale + 1), 0)
                 .WithNullable(b.type.nullable);
  }
  return Status::OK();
}

Status BindPower(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "LOG" ? c.Arity(1, 2) : c.Arity(2, 2));
  for (size_t i = 0; i < args.size(); i++) {
    TRIB_RETURN_NOT_OK(c.NumericArg(i));
    TRIB_RETURN_NOT_OK(c.As(i, DataType::Double()));
  }
  b.type = DataType::Double();
  return Status::OK();
}

Status BindSqrt(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  TRIB_RETURN_NOT_OK(c.As(0, DataType::Double()));
  b.type = DataType::Double();
  return Status::OK();
}

Status BindSign(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.NumericArg(0));
  b.type = args[0]->type;
  return Status::OK();
}

Status BindPi(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(0, 0));
  b.type = DataType::Double().NotNull();
  return Status::OK();
}

Status BindReplace(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  for (size_t i = 0; i < 3; i++) TRIB_RETURN_NOT_OK(c.StringArg(i));
  b.type = DataType::String();
  return Status::OK();
}

Status BindRepeat(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.IntArg(1));
  b.type = DataType::String();
  return Status::OK();
}

Status BindReverse(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindLpad(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.IntArg(1));
  TRIB_RETURN_NOT_OK(c.StringArg(2));
  b.type = DataType::String();
  return Status::OK();
}

Status BindLocate(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 3));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  if (args.size() > 2) TRIB_RETURN_NOT_OK(c.IntArg(2));
  b.type = DataType::Int();
  return Status::OK();
}

Status BindConcatWs(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 1000));
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.As(i, DataType::String()));
  b.type = DataType::String();
  return Status::OK();
}

Status BindSplitIndex(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  TRIB_RETURN_NOT_OK(c.IntArg(2));
  b.type = DataType::String();
  return Status::OK();
}

Status BindRegexp(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "REGEXP" ? c.Arity(2, 2) : c.Arity(f == "REGEXP_REPLACE" ? 3 : 2, 3));
  for (size_t i = 0; i < args.size(); i++) {
    if (f == "REGEXP_EXTRACT" && i == 2) {
      TRIB_RETURN_NOT_OK(c.IntArg(i));
    } else {
      TRIB_RETURN_NOT_OK(c.StringArg(i));
    }
  }
  // A constant pattern is checked now.
  if (args[1]->IsConstant() && !args[1]->constant.is_null()) {
    TRIB_ASSIGN_OR_RETURN(auto ignored, Pattern(args[1]->constant.string_value()));
    (void)ignored;
  }
  b.type = f == "REGEXP" ? DataType::Boolean() : DataType::String();
  return Status::OK();
}

Status BindAscii(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  b.type = DataType::Int();
  return Status::OK();
}

Status BindChr(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.IntArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindIf(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 3));
  if (args[0]->null_literal) TRIB_RETURN_NOT_OK(c.As(0, DataType::Boolean()));
  TRIB_RETURN_NOT_OK(c.Need(0, args[0]->type.id == TypeId::kBoolean, "a BOOLEAN condition"));
  std::vector<DataType> types;
  for (size_t i = 1; i < 3; i++) {
    if (!args[i]->null_literal) types.push_back(args[i]->type);
  }
  auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
  if (!common) return ErrorAt(pos, "the two branches of IF have types that do not combine");
  for (size_t i = 1; i < 3; i++) TRIB_RETURN_NOT_OK(c.As(i, *common));
  b.type = common->WithNullable(true);
  return Status::OK();
}

Status BindGreatest(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1000));
  std::vector<DataType> types;
  for (const auto& a : args) {
    if (!a->null_literal) types.push_back(a->type);
  }
  auto common = types.empty() ? std::optional<DataType>(DataType::String()) : CommonType(types);
  if (!common) return ErrorAt(pos, "the arguments of " + f + " have types that do not combine");
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.As(i, *common));
  b.type = *common;
  return Status::OK();
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

Status BindEpoch(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.TemporalArg(0, false));
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

Status BindMd5(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "SHA2" ? c.Arity(2, 2) : c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  if (f == "SHA2") {
    TRIB_RETURN_NOT_OK(c.IntArg(1));
    if (args[1]->IsConstant() && !args[1]->constant.is_null()) {
      const int64_t bits = args[1]->constant.int_value();
      if (bits != 224 && bits != 256 && bits != 384 && bits != 512) {
        return ErrorAt(args[1]->pos, "SHA2 takes a bit length of 224, 256, 384 or 512, not " +
                                         std::to_string(bits));
      }
    }
  }
  b.type = DataType::String();
  return Status::OK();
}

Status BindRand(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "RAND" ? c.Arity(0, 1) : c.Arity(1, 2));
  const bool seeded = (f == "RAND" && args.size() == 1) || (f == "RAND_INTEGER" && args.size() == 2);
  for (size_t i = 0; i < args.size(); i++) TRIB_RETURN_NOT_OK(c.IntArg(i));
  if (seeded && !args[0]->IsConstant()) {
    return ErrorAt(args[0]->pos, f + "'s seed must be a constant");
  }
  b.type = f == "RAND" && !seeded ? DataType::Double().NotNull()
           : f == "RAND"          ? DataType::Double()
                                  : DataType::Int();
  b.may_return_null = seeded;
  return Status::OK();
}

Status BindUuid(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(0, 0));
  b.type = DataType::String().NotNull();
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
      return ErrorAt(args[1]->pos, "TO_TIMESTAMP_LTZ takes precision 0 (seconds) or 3 "
                                   "(milliseconds), not " + std::to_string(p));
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

Status BindJsonExists(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(2, 2));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  b.type = DataType::Boolean();
  return Status::OK();
}

Status BindJsonValue(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  // The parser's form (parser_expression.cc): JSON_VALUE(s, path, type, on_empty,
  // empty_default, on_error, error_default), JSON_QUERY(s, path, wrapper, on_empty, on_error).
  const bool value = f == "JSON_VALUE";
  TRIB_RETURN_NOT_OK(c.Arity(value ? 7 : 6, value ? 7 : 6));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  b.type = DataType::String();
  if (!value) {
    // JSON_QUERY ... RETURNING STRING (the JSON text) or ARRAY<STRING> (the array's elements,
    // strings as their values, others as JSON text), as Flink.
    auto t = DataType::Parse(args[5]->constant.string_value());
    if (!t.ok()) return ErrorAt(pos, "JSON_QUERY ... RETURNING: " + t.status().message());
    const bool array = t->id == TypeId::kArray && t->element().IsString();
    if (!t->IsString() && !array) {
      return ErrorAt(pos, "JSON_QUERY ... RETURNING takes STRING or ARRAY<STRING>, not " +
                              TypeName(*t));
    }
    b.type = array ? DataType::Array(DataType::String()) : DataType::String();
  }
  if (value) {
    auto t = DataType::Parse(args[2]->constant.string_value());
    if (!t.ok()) return ErrorAt(pos, "JSON_VALUE ... RETURNING: " + t.status().message());
    if (t->IsNested() || t->id == TypeId::kBinary || t->id == TypeId::kVarBinary) {
      return NotSupportedAt(pos, "JSON_VALUE ... RETURNING " + TypeName(*t) +
                                     " is not supported (a scalar type)");
    }
    b.type = t->WithNullable(true);
    for (size_t i : {size_t{4}, size_t{6}}) {
      if (args[i]->null_literal) continue;
      if (!CanCast(args[i]->type, b.type, CastMode::kExplicit)) {
        return ErrorAt(args[i]->pos, "the DEFAULT of JSON_VALUE must be a " +
                                         TypeName(b.type) + ", not " + TypeName(args[i]->type));
      }
      TRIB_RETURN_NOT_OK(c.As(i, b.type));
    }
  }
  return Status::OK();
}

Status BindOverlay(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(3, 4));
  TRIB_RETURN_NOT_OK(c.StringArg(0));
  TRIB_RETURN_NOT_OK(c.StringArg(1));
  TRIB_RETURN_NOT_OK(c.IntArg(2));
  if (args.size() > 3) TRIB_RETURN_NOT_OK(c.IntArg(3));
  b.type = DataType::String();
  return Status::OK();
}

Status BindHex(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  if (!args[0]->type.IsString()) TRIB_RETURN_NOT_OK(c.IntArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindBin(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(c.Arity(1, 1));
  TRIB_RETURN_NOT_OK(c.IntArg(0));
  b.type = DataType::String();
  return Status::OK();
}

Status BindSin(ScalarBindCall& c) {
  [[maybe_unused]] auto& [f, pos, args, b] = c;
  TRIB_RETURN_NOT_OK(f == "ATAN2" ? c.Arity(2, 2) : c.Arity(1, 1));
  for (size_t i = 0; i < args.size(); i++) {
    TRIB_RETURN_NOT_OK(c.NumericArg(i));
    TRIB_RETURN_NOT_OK(c.As(i, DataType::Double()));
  }
  b.type = DataType::Double();
  return Status::OK();
}

}  // namespace

namespace {
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

}  // namespace

namespace {
// JSON_VALUE(s, path, type, on_empty, empty_default, on_error, error_default) and
// JSON_QUERY(s, path, wrapper, on_empty, on_error), as Flink: "empty" is a path that leads
// nowhere (or, for JSON_VALUE, to null); an "error" is text that is not JSON, a malformed path,
// a JSON_VALUE of an object or array or of a value the RETURNING type cannot hold, a
// JSON_QUERY of a scalar without a wrapper.
Result<Value> EvalJsonFunction(const BoundExpr& e, const std::vector<Value>& args) {
  const bool value = e.op == "JSON_VALUE";
  auto behave = [&](int which, const std::string& why) -> Result<Value> {
    const std::string& mode = args[value ? 3 + 2 * which : 3 + which].string_value();
    if (mode == "ERROR") {
      return Status::Invalid(e.op + ": " + why + " (" + mode + " ON " +
                             (which == 0 ? "EMPTY" : "ERROR") + ")");
    }
    if (mode == "DEFAULT") return args[4 + 2 * which];
    if (mode == "EMPTY ARRAY") return Value::String("[]");
    if (mode == "EMPTY OBJECT") return Value::String("{}");
    return Value::Null();
  };
  auto doc = ParseJson(args[0].string_value(), "JSON text");
  if (!doc.ok()) return behave(1, "the text is not JSON");
  bool malformed = false;
  const Json* at = JsonAt(*doc, args[1].string_value(), &malformed);
  if (malformed) return behave(1, "malformed JSON path '" + args[1].string_value() + "'");
  if (value) {
    if (at == nullptr || at->is_null()) return behave(0, "no value at the path");
    if (at->is_object() || at->is_array()) return behave(1, "the value at the path is not a scalar");
    Value text = Value::String(at->is_string() ? at->get<std::string>() : at->dump());
    if (e.type.IsString()) return text;
    auto cast = CastValue(text, DataType::String(), e.type, CastMode::kExplicit);
    if (!cast.ok()) return behave(1, cast.status().message());
    return *cast;
  }
  // RETURNING ARRAY<STRING>: the elements of the array found (or of the EMPTY ARRAY default).
  auto returned = [&](Result<Value> text) -> Result<Value> {
    if (!text.ok() || e.type.id != TypeId::kArray || text->is_null()) return text;
    auto parsed = ParseJson(text->string_value(), "JSON text");
    if (!parsed.ok() || !parsed->is_array()) {
      return behave(1, "the value at the path is not an array (RETURNING ARRAY<STRING>)");
    }
    std::vector<Value> elements;
    for (const Json& item : *parsed) {
      elements.push_back(item.is_null() ? Value::Null()
                                        : Value::String(item.is_string() ? item.get<std::string>()
                                                                         : item.dump()));
    }
    return Value::Array(std::move(elements));
  };
  if (at == nullptr) return returned(behave(0, "no value at the path"));
  const std::string& wrapper = args[2].string_value();
  const bool scalar = !at->is_object() && !at->is_array();
  if (wrapper == "UNCONDITIONAL" || (wrapper == "CONDITIONAL" && scalar)) {
    return returned(Value::String(Json::array({*at}).dump()));
  }
  if (scalar) return returned(behave(1, "the value at the path is not an object or array"));
  return returned(Value::String(at->dump()));
}
}  // namespace

namespace {

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
    const int64_t size = unit == "HOUR" ? 3600000 : unit == "MINUTE" ? 60000
                       : unit == "SECOND" ? 1000 : 1;
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

// Functions that read a date or time's fields: a TIMESTAMP_LTZ argument (an instant) is read as
// the session zone's wall-clock time, as Flink does (HOUR(ltz) in Asia/Shanghai is UTC + 8).
bool ReadsWallClock(const std::string& f) {
  const FunctionInfo* info = FindFunction(f);
  return info != nullptr && (info->flags & kReadsWallClock) != 0;
}

Result<Value> EvalScalarFunctionWallClock(const BoundExpr& e, const std::vector<Value>& args);

}  // namespace

Result<Value> EvalScalarFunction(const BoundExpr& e, const std::vector<Value>& args) {
  if (SessionZone() != nullptr && ReadsWallClock(e.op)) {
    bool ltz = false;
    for (size_t i = 0; i < args.size() && i < e.args.size(); i++) {
      ltz = ltz || (e.args[i]->type.id == TypeId::kTimestampLtz && !args[i].is_null());
    }
    if (ltz) {
      std::vector<Value> local = args;
      for (size_t i = 0; i < local.size() && i < e.args.size(); i++) {
        if (e.args[i]->type.id == TypeId::kTimestampLtz && !local[i].is_null()) {
          local[i] = Value::Ts(InstantToLocal(local[i].timestamp_value()));
        }
      }
      return EvalScalarFunctionWallClock(e, local);
    }
  }
  return EvalScalarFunctionWallClock(e, args);
}

namespace {

Result<Value> EvalPi(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(M_PI);
}

Result<Value> EvalRand(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  // With a seed (the first argument), the call's own sequence: the same seed gives the same
  // numbers, as Flink's RAND(seed) / RAND_INTEGER(seed, n).
  const bool seeded = (f == "RAND" && args.size() == 1) || (f == "RAND_INTEGER" && args.size() == 2);
  std::mt19937_64* engine = &RandomEngine();
  if (seeded) {
    if (args[0].is_null()) return Value::Null();
    if (!e.random_state) {
      e.random_state = std::make_shared<RandomState>();
      e.random_state->engine.seed(static_cast<uint64_t>(args[0].int_value()));
    }
    engine = &e.random_state->engine;
  }
  if (f == "RAND") return Value::Double(std::uniform_real_distribution<double>(0, 1)(*engine));
  const Value& bound = args[seeded ? 1 : 0];
  if (bound.is_null()) return Value::Null();
  const int64_t n = bound.int_value();
  if (n <= 0) return Status::Invalid("RAND_INTEGER needs a positive bound, not " + std::to_string(n));
  return Value::Int(std::uniform_int_distribution<int64_t>(0, n - 1)(*engine));
}

Result<Value> EvalUuid(const BoundExpr& e, const std::vector<Value>& args) {
  // A version 4 UUID, as Flink's (java.util.UUID.randomUUID).
  uint64_t hi = RandomEngine()(), lo = RandomEngine()();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;
  lo = (lo & ~(3ULL << 62)) | (2ULL << 62);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xFFFF),
                static_cast<unsigned>(hi & 0xFFFF), static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return Value::String(buf);
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

Result<Value> EvalIf(const BoundExpr& e, const std::vector<Value>& args) {
  const bool c = !args[0].is_null() && args[0].bool_value();
  return c ? args[1] : args[2];
}

Result<Value> EvalJsonValue(const BoundExpr& e, const std::vector<Value>& args) {
  // Its DEFAULT arguments may be NULL; a NULL text or path gives NULL.
  if (args[0].is_null() || args[1].is_null()) return Value::Null();
  return EvalJsonFunction(e, args);
}

Result<Value> EvalConcatWs(const BoundExpr& e, const std::vector<Value>& args) {
  if (args[0].is_null()) return Value::Null();
  std::string out;
  bool first = true;
  for (size_t i = 1; i < args.size(); i++) {
    if (args[i].is_null()) continue;
    if (!first) out += args[0].string_value();
    out += args[i].string_value();
    first = false;
  }
  return Value::String(std::move(out));
}

Result<Value> EvalRound(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  Value r = RoundTo(args[0], in, args.size() > 1 ? args[1].int_value() : 0, f == "TRUNCATE");
  if (r.is_decimal() && e.type.id == TypeId::kDecimal && e.type.scale < in.scale) {
    // Rounded to e.type.scale places (or to tens and more: scale 0): exact.
    r = Value::Dec(Decimal{r.decimal_value().unscaled / Pow10(in.scale - e.type.scale)});
  }
  return r;
}

Result<Value> EvalFloor(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  const bool up = f != "FLOOR";
  if (args[0].is_double()) {
    return Value::Double(up ? std::ceil(args[0].double_value()) : std::floor(args[0].double_value()));
  }
  if (args[0].is_int()) return args[0];
  const __int128 p = Pow10(in.scale);
  const __int128 u = args[0].decimal_value().unscaled;
  __int128 q = u / p;
  if (u % p != 0 && ((u > 0) == up)) q += up ? 1 : -1;
  return Value::Dec(Decimal{q});
}

Result<Value> EvalPower(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::pow(args[0].double_value(), args[1].double_value()));
}

Result<Value> EvalSqrt(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::sqrt(args[0].double_value()));
}

Result<Value> EvalLn(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::log(args[0].double_value()));
}

Result<Value> EvalLog10(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::log10(args[0].double_value()));
}

Result<Value> EvalLog2(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::log2(args[0].double_value()));
}

Result<Value> EvalLog(const BoundExpr& e, const std::vector<Value>& args) {
  if (args.size() == 1) return Value::Double(std::log(args[0].double_value()));
  return Value::Double(std::log(args[1].double_value()) / std::log(args[0].double_value()));
}

Result<Value> EvalExp(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::exp(args[0].double_value()));
}

Result<Value> EvalSign(const BoundExpr& e, const std::vector<Value>& args) {
  const DataType& in = e.args.empty() ? e.type : e.args[0]->type;
  if (args[0].is_int()) return Value::Int((args[0].int_value() > 0) - (args[0].int_value() < 0));
  if (args[0].is_double()) {
    const double d = args[0].double_value();
    return Value::Double(static_cast<double>((d > 0) - (d < 0)));
  }
  const __int128 u = args[0].decimal_value().unscaled;
  return Value::Dec(Decimal{((u > 0) - (u < 0)) * Pow10(in.scale)});
}

Result<Value> EvalReplace(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& s = args[0].string_value();
  const std::string& from = args[1].string_value();
  if (from.empty()) return args[0];
  std::string out;
  size_t at = 0;
  for (size_t k; (k = s.find(from, at)) != std::string::npos; at = k + from.size()) {
    out += s.substr(at, k - at) + args[2].string_value();
  }
  return Value::String(out + s.substr(at));
}

Result<Value> EvalRepeat(const BoundExpr& e, const std::vector<Value>& args) {
  const int64_t n = args[1].int_value();
  const std::string& s = args[0].string_value();
  if (n <= 0 || s.empty()) return Value::String("");
  if (static_cast<double>(n) * static_cast<double>(s.size()) > 64.0 * 1024 * 1024) {
    return ErrorAt(e.pos, "REPEAT would make a string of more than 64 MiB");
  }
  std::string out;
  out.reserve(static_cast<size_t>(n) * s.size());
  for (int64_t i = 0; i < n; i++) out += s;
  return Value::String(std::move(out));
}

Result<Value> EvalReverse(const BoundExpr& e, const std::vector<Value>& args) {
  auto cps = CodePoints(args[0].string_value());
  std::reverse(cps.begin(), cps.end());
  return Value::String(Utf8(cps));
}

Result<Value> EvalInitcap(const BoundExpr& e, const std::vector<Value>& args) {
  std::string s = args[0].string_value();
  bool start = true;
  for (char& c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      c = static_cast<char>(start ? std::toupper(u) : std::tolower(u));
      start = false;
    } else {
      start = u < 0x80;
    }
  }
  return Value::String(std::move(s));
}

Result<Value> EvalLpad(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const int64_t len = args[1].int_value();
  auto s = CodePoints(args[0].string_value());
  auto pad = CodePoints(args[2].string_value());
  if (len < 0) return Value::Null();
  if (static_cast<size_t>(len) <= s.size()) return Value::String(Utf8(s, 0, static_cast<size_t>(len)));
  if (pad.empty()) return Value::Null();
  if (len > 64 * 1024 * 1024) return ErrorAt(e.pos, f + " length is too large");
  std::vector<uint32_t> fill;
  while (fill.size() + s.size() < static_cast<size_t>(len)) fill.push_back(pad[fill.size() % pad.size()]);
  return Value::String(f == "LPAD" ? Utf8(fill) + Utf8(s) : Utf8(s) + Utf8(fill));
}

Result<Value> EvalLocate(const BoundExpr& e, const std::vector<Value>& args) {
  auto needle = CodePoints(args[0].string_value());
  auto hay = CodePoints(args[1].string_value());
  int64_t start = args.size() > 2 ? args[2].int_value() : 1;
  if (start < 1) return Value::Int(0);
  if (needle.empty()) return Value::Int(start <= static_cast<int64_t>(hay.size()) + 1 ? start : 0);
  auto it = std::search(hay.begin() + std::min<int64_t>(start - 1, hay.size()), hay.end(),
                        needle.begin(), needle.end());
  return Value::Int(it == hay.end() ? 0 : (it - hay.begin()) + 1);
}

Result<Value> EvalSplitIndex(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& s = args[0].string_value();
  const std::string& sep = args[1].string_value();
  const int64_t idx = args[2].int_value();
  if (sep.empty() || idx < 0) return Value::Null();
  size_t at = 0;
  for (int64_t i = 0;; i++) {
    size_t k = s.find(sep, at);
    if (i == idx) return Value::String(s.substr(at, k == std::string::npos ? std::string::npos : k - at));
    if (k == std::string::npos) return Value::Null();
    at = k + sep.size();
  }
}

Result<Value> EvalRegexp(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  auto re = Pattern(args[1].string_value());
  if (!re.ok()) return ErrorAt(e.pos, re.status().message());
  const std::string& s = args[0].string_value();
  if (f == "REGEXP_REPLACE") {
    auto replaced = RegexReplaceAll(**re, s, args[2].string_value());
    if (!replaced.ok()) return ErrorAt(e.pos, replaced.status().message());
    return Value::String(std::move(*replaced));
  }
  std::vector<std::pair<int64_t, int64_t>> spans;
  auto found = (*re)->Find(s, 0, &spans);
  if (!found.ok()) return ErrorAt(e.pos, found.status().message());
  if (f == "REGEXP") return Value::Bool(*found && !args[1].string_value().empty());
  if (!*found) return Value::Null();
  // A group the pattern does not have gives NULL, as Flink's (its exception is caught).
  const int64_t g = args.size() > 2 ? args[2].int_value() : 0;
  if (g < 0 || static_cast<size_t>(g) >= spans.size() ||
      spans[static_cast<size_t>(g)].first < 0) {
    return Value::Null();
  }
  const auto& span = spans[static_cast<size_t>(g)];
  return Value::String(s.substr(static_cast<size_t>(span.first),
                                static_cast<size_t>(span.second - span.first)));
}

Result<Value> EvalToBase64(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::String(ToBase64(args[0].string_value()));
}

Result<Value> EvalFromBase64(const BoundExpr& e, const std::vector<Value>& args) {
  auto d = FromBase64(args[0].string_value());
  return d ? Value::String(std::move(*d)) : Value::Null();
}

Result<Value> EvalAscii(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& s = args[0].string_value();
  return Value::Int(s.empty() ? 0 : static_cast<unsigned char>(s[0]));
}

Result<Value> EvalChr(const BoundExpr& e, const std::vector<Value>& args) {
  const int64_t c = args[0].int_value();
  if (c < 0 || c > 0x10FFFF) return Value::String("");
  return Value::String(Utf8({static_cast<uint32_t>(c)}));
}

Result<Value> EvalGreatest(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  Value best = args[0];
  for (size_t i = 1; i < args.size(); i++) {
    const int c = CompareSame(args[i], best);
    if (f == "GREATEST" ? c > 0 : c < 0) best = args[i];
  }
  return best;
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
  if (f == "$ISODOW") return Value::Int(WeekdayFromMonday(days) + 1);  // 1 = Monday
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
    const std::string fmt = args.size() > 1 ? args[1].string_value()
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
  return EvalAddInterval(args[0], in.id == TypeId::kDate, args[1].int_value(),
                         args[2].int_value(), "INTERVAL arithmetic");
}

Result<Value> EvalDateAdd(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  int64_t day, ignored;
  Civil(args[0], e.args[0]->type.id == TypeId::kDate, &day, &ignored);
  const int64_t n = args[1].int_value();
  if (n > 3000000 || n < -3000000) return ErrorAt(e.pos, f + ": " + std::to_string(n) + " days is out of range");
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

Result<Value> EvalMd5(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  std::string name = f == "SHA2" ? "sha" + std::to_string(args[1].int_value()) : f;
  if (f == "SHA2" && name != "sha224" && name != "sha256" && name != "sha384" &&
      name != "sha512") {
    return Value::Null();  // Flink: NULL for another bit length
  }
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  TRIB_ASSIGN_OR_RETURN(std::string hex, HexDigest(name.c_str(), args[0].string_value()));
  return Value::String(std::move(hex));
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

Result<Value> EvalJsonExists(const BoundExpr& e, const std::vector<Value>& args) {
  // A document that does not parse gives FALSE, as Flink's default (FALSE ON ERROR).
  auto doc = ParseJson(args[0].string_value(), "JSON text");
  return Value::Bool(doc.ok() && JsonAt(*doc, args[1].string_value()) != nullptr);
}

Result<Value> EvalOverlay(const BoundExpr& e, const std::vector<Value>& args) {
  // Whole UTF-8 characters: r replaces len characters of s from position pos (1-based; len
  // defaults to r's length).
  const std::vector<uint32_t> s = CodePoints(args[0].string_value());
  const std::vector<uint32_t> r = CodePoints(args[1].string_value());
  const int64_t from = args[2].int_value();
  const int64_t len = args.size() > 3 ? args[3].int_value() : static_cast<int64_t>(r.size());
  if (from < 1 || len < 0) {
    return Status::Invalid("OVERLAY needs a position of at least 1 and a length of at least 0");
  }
  const size_t start = std::min<size_t>(static_cast<size_t>(from - 1), s.size());
  const size_t end = std::min<size_t>(start + static_cast<size_t>(len), s.size());
  return Value::String(Utf8(s, 0, start) + Utf8(r) + Utf8(s, end));
}

Result<Value> EvalHex(const BoundExpr& e, const std::vector<Value>& args) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  if (args[0].is_string()) {
    for (unsigned char c : args[0].string_value()) {
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    return Value::String(std::move(out));
  }
  uint64_t u = static_cast<uint64_t>(args[0].int_value());
  do {
    out.insert(out.begin(), kHex[u & 15]);
    u >>= 4;
  } while (u != 0);
  return Value::String(std::move(out));
}

Result<Value> EvalBin(const BoundExpr& e, const std::vector<Value>& args) {
  uint64_t u = static_cast<uint64_t>(args[0].int_value());
  std::string out;
  do {
    out.insert(out.begin(), static_cast<char>('0' + (u & 1)));
    u >>= 1;
  } while (u != 0);
  return Value::String(std::move(out));
}

Result<Value> EvalAtan2(const BoundExpr& e, const std::vector<Value>& args) {
  return Value::Double(std::atan2(args[0].double_value(), args[1].double_value()));
}

Result<Value> EvalSin(const BoundExpr& e, const std::vector<Value>& args) {
  const std::string& f = e.op;
  const double x = args[0].double_value();
  if (f == "SIN") return Value::Double(std::sin(x));
  if (f == "COS") return Value::Double(std::cos(x));
  if (f == "TAN") return Value::Double(std::tan(x));
  if (f == "COT") return Value::Double(1.0 / std::tan(x));
  if (f == "ASIN") return Value::Double(std::asin(x));
  if (f == "ACOS") return Value::Double(std::acos(x));
  if (f == "ATAN") return Value::Double(std::atan(x));
  if (f == "SINH") return Value::Double(std::sinh(x));
  if (f == "COSH") return Value::Double(std::cosh(x));
  if (f == "TANH") return Value::Double(std::tanh(x));
  if (f == "DEGREES") return Value::Double(x * 180.0 / M_PI);
  return Value::Double(x * M_PI / 180.0);
}


}  // namespace

const std::vector<FunctionInfo>& ScalarFunctions() {
  using K = FunctionKind;
  constexpr uint8_t N = kMayReturnNull, W = kReadsWallClock, V = kVolatile, S = kSeesNull;
  // Each function once: its name, kind, flags, type rules and evaluation.
  static const std::vector<FunctionInfo> kTable = {
      // Numeric.
      {"ROUND", K::kScalar, kNone, BindRound, EvalRound},
      {"TRUNCATE", K::kScalar, kNone, BindRound, EvalRound},
      {"FLOOR", K::kScalar, kNone, BindFloor, EvalFloor},
      {"CEIL", K::kScalar, kNone, BindFloor, EvalFloor},
      {"CEILING", K::kScalar, kNone, BindFloor, EvalFloor},
      {"POWER", K::kScalar, kNone, BindPower, EvalPower},
      {"POW", K::kScalar, kNone, BindPower, EvalPower},
      {"SQRT", K::kScalar, kNone, BindSqrt, EvalSqrt},
      {"LN", K::kScalar, kNone, BindSqrt, EvalLn},
      {"LOG10", K::kScalar, kNone, BindSqrt, EvalLog10},
      {"LOG2", K::kScalar, kNone, BindSqrt, EvalLog2},
      {"LOG", K::kScalar, N, BindPower, EvalLog},
      {"EXP", K::kScalar, kNone, BindSqrt, EvalExp},
      {"SIGN", K::kScalar, kNone, BindSign, EvalSign},
      {"PI", K::kScalar, S, BindPi, EvalPi},
      {"SIN", K::kScalar, kNone, BindSin, EvalSin},
      {"COS", K::kScalar, kNone, BindSin, EvalSin},
      {"TAN", K::kScalar, kNone, BindSin, EvalSin},
      {"COT", K::kScalar, kNone, BindSin, EvalSin},
      {"ASIN", K::kScalar, kNone, BindSin, EvalSin},
      {"ACOS", K::kScalar, kNone, BindSin, EvalSin},
      {"ATAN", K::kScalar, kNone, BindSin, EvalSin},
      {"ATAN2", K::kScalar, kNone, BindSin, EvalAtan2},
      {"SINH", K::kScalar, kNone, BindSin, EvalSin},
      {"COSH", K::kScalar, kNone, BindSin, EvalSin},
      {"TANH", K::kScalar, kNone, BindSin, EvalSin},
      {"DEGREES", K::kScalar, kNone, BindSin, EvalSin},
      {"RADIANS", K::kScalar, kNone, BindSin, EvalSin},
      {"HEX", K::kScalar, kNone, BindHex, EvalHex},
      {"BIN", K::kScalar, kNone, BindBin, EvalBin},
      // String.
      {"REPLACE", K::kScalar, kNone, BindReplace, EvalReplace},
      {"REPEAT", K::kScalar, kNone, BindRepeat, EvalRepeat},
      {"REVERSE", K::kScalar, kNone, BindReverse, EvalReverse},
      {"INITCAP", K::kScalar, kNone, BindReverse, EvalInitcap},
      {"LPAD", K::kScalar, N, BindLpad, EvalLpad},
      {"RPAD", K::kScalar, N, BindLpad, EvalLpad},
      {"LOCATE", K::kScalar, kNone, BindLocate, EvalLocate},
      {"CONCAT_WS", K::kScalar, N | S, BindConcatWs, EvalConcatWs},
      {"SPLIT_INDEX", K::kScalar, N, BindSplitIndex, EvalSplitIndex},
      {"REGEXP", K::kScalar, kNone, BindRegexp, EvalRegexp},
      {"REGEXP_REPLACE", K::kScalar, kNone, BindRegexp, EvalRegexp},
      {"REGEXP_EXTRACT", K::kScalar, N, BindRegexp, EvalRegexp},
      {"TO_BASE64", K::kScalar, kNone, BindReverse, EvalToBase64},
      {"FROM_BASE64", K::kScalar, N, BindReverse, EvalFromBase64},
      {"ASCII", K::kScalar, kNone, BindAscii, EvalAscii},
      {"CHR", K::kScalar, kNone, BindChr, EvalChr},
      {"OVERLAY", K::kScalar, kNone, BindOverlay, EvalOverlay},
      // Conditional.
      {"IF", K::kScalar, N | S, BindIf, EvalIf},
      {"GREATEST", K::kScalar, kNone, BindGreatest, EvalGreatest},
      {"LEAST", K::kScalar, kNone, BindGreatest, EvalGreatest},
      // Hashing and random.
      {"MD5", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA1", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA224", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA256", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA384", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA512", K::kScalar, kNone, BindMd5, EvalMd5},
      {"SHA2", K::kScalar, N, BindMd5, EvalMd5},
      {"RAND", K::kScalar, V | S, BindRand, EvalRand},
      {"RAND_INTEGER", K::kScalar, V | S, BindRand, EvalRand},
      {"UUID", K::kScalar, V | S, BindUuid, EvalUuid},
      // JSON.
      {"JSON_VALUE", K::kScalar, N | S, BindJsonValue, EvalJsonValue},
      {"JSON_EXISTS", K::kScalar, N, BindJsonExists, EvalJsonExists},
      {"JSON_QUERY", K::kScalar, N | S, BindJsonValue, EvalJsonValue},
      // Date and time.
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
      {"UNIX_TIMESTAMP", K::kScalar, kVolatileWithoutArgs | N | S, BindUnixTimestamp, EvalUnixTimestamp},
      {"FROM_UNIXTIME", K::kScalar, kNone, BindFromUnixtime, EvalFromUnixtime},
      {"TO_TIMESTAMP_LTZ", K::kScalar, N, BindToTimestampLtz, EvalToTimestampLtz},
      {"TIMESTAMPADD", K::kScalar, kNone, BindTimestampadd, EvalTimestampadd},
      {"TIMESTAMPDIFF", K::kScalar, kNone, BindTimestampadd, EvalTimestampadd},
      // Internal forms the parser makes: d + INTERVAL ..., EXTRACT(MILLISECOND | MICROSECOND |
      // EPOCH | DECADE | CENTURY | MILLENNIUM | ISODOW | ISOYEAR FROM x), FLOOR / CEIL(t TO unit).
      {"$ADD_INTERVAL", K::kInternal, kNone, nullptr, EvalAddIntervalCall},
      {"$MILLISECOND", K::kInternal, W, BindHour, EvalMillisecond},
      {"$MICROSECOND", K::kInternal, W, BindHour, EvalMillisecond},
      {"$EPOCH", K::kInternal, kNone, BindEpoch, EvalEpoch},
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

Result<ScalarBinding> BindScalarFunction(const std::string& f, const Pos& pos,
                                         std::vector<BoundExprPtr>* args) {
  const FunctionInfo* info = FindFunction(f);
  if (info == nullptr || info->bind == nullptr) {
    return ErrorAt(pos, "unknown function '" + f + "'");
  }
  ScalarBindCall call{f, pos, *args, ScalarBinding{}};
  call.b.may_return_null = (info->flags & kMayReturnNull) != 0;
  TRIB_RETURN_NOT_OK(info->bind(call));
  return call.b;
}

namespace {
Result<Value> EvalScalarFunctionWallClock(const BoundExpr& e, const std::vector<Value>& args) {
  const FunctionInfo* info = FindFunction(e.op);
  if (info == nullptr || info->eval == nullptr) {
    return Status::Internal("function " + e.op + " has no implementation");
  }
  if ((info->flags & kSeesNull) == 0) {
    for (const auto& v : args) {
      if (v.is_null()) return Value::Null();
    }
  }
  return info->eval(e, args);
}
}  // namespace

}  // namespace tributary::sql
