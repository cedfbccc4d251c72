#include "options/option_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "common/strings.h"

namespace tributary::options {
namespace {

// Splits "128 mb" into the number and the unit ("mb"); the unit may be empty.
Status SplitNumberAndUnit(std::string_view text, std::string_view what, int64_t* number,
                          std::string* unit) {
  std::string_view t = Trim(text);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0) {
    return Status::Invalid("invalid " + std::string(what) + " '" + std::string(text) +
                           "': expected a number followed by an optional unit");
  }
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + i, *number);
  if (ec != std::errc()) {
    return Status::Invalid("invalid " + std::string(what) + " '" + std::string(text) +
                           "': number out of range");
  }
  *unit = AsciiLower(Trim(t.substr(i)));
  return Status::OK();
}

Result<int64_t> Multiply(int64_t n, int64_t factor, std::string_view text, std::string_view what) {
  if (n > std::numeric_limits<int64_t>::max() / factor) {
    return Status::Invalid("invalid " + std::string(what) + " '" + std::string(text) +
                           "': value out of range");
  }
  return n * factor;
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<int64_t> ParseMemorySize(std::string_view text) {
  int64_t n = 0;
  std::string unit;
  TRIB_RETURN_NOT_OK(SplitNumberAndUnit(text, "memory size", &n, &unit));
  int64_t factor = 0;
  if (unit.empty() || unit == "b" || unit == "bytes") {
    factor = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kibibytes") {
    factor = int64_t{1} << 10;
  } else if (unit == "m" || unit == "mb" || unit == "mebibytes") {
    factor = int64_t{1} << 20;
  } else if (unit == "g" || unit == "gb" || unit == "gibibytes") {
    factor = int64_t{1} << 30;
  } else if (unit == "t" || unit == "tb" || unit == "tebibytes") {
    factor = int64_t{1} << 40;
  } else {
    return Status::Invalid("invalid memory size '" + std::string(text) + "': unknown unit '" +
                           unit + "' (use b, kb, mb, gb or tb)");
  }
  return Multiply(n, factor, text, "memory size");
}

Result<int64_t> ParseDurationMillis(std::string_view text) {
  int64_t n = 0;
  std::string unit;
  TRIB_RETURN_NOT_OK(SplitNumberAndUnit(text, "duration", &n, &unit));
  auto is = [&unit](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&](const char* u) { return unit == u; });
  };
  if (unit.empty() || is({"ms", "milli", "millis", "millisecond", "milliseconds"})) return n;
  if (is({"ns", "nano", "nanos", "nanosecond", "nanoseconds"})) return n / 1000000;
  if (is({"us", "\xC2\xB5s", "micro", "micros", "microsecond", "microseconds"})) return n / 1000;
  if (is({"s", "sec", "secs", "second", "seconds"})) return Multiply(n, 1000, text, "duration");
  if (is({"m", "min", "mins", "minute", "minutes"})) return Multiply(n, 60000, text, "duration");
  if (is({"h", "hour", "hours"})) return Multiply(n, 3600000, text, "duration");
  if (is({"d", "day", "days"})) return Multiply(n, 86400000, text, "duration");
  return Status::Invalid("invalid duration '" + std::string(text) + "': unknown unit '" + unit +
                         "' (use ms, s, min, h or d)");
}

bool ParseBool(std::string_view text, bool* value) {
  std::string t = AsciiLower(Trim(text));
  if (t == "true") {
    *value = true;
    return true;
  }
  if (t == "false") {
    *value = false;
    return true;
  }
  return false;
}

Result<int64_t> ParseInt64(std::string_view text) {
  std::string_view t = Trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec == std::errc::invalid_argument || ptr != t.data() + t.size()) {
    return Status::Invalid("'" + std::string(text) + "' is not an integer");
  }
  if (ec == std::errc::result_out_of_range) {
    return Status::Invalid("'" + std::string(text) + "' is out of range");
  }
  return v;
}

int EditDistance(std::string_view a_in, std::string_view b_in) {
  std::string a = AsciiLower(a_in), b = AsciiLower(b_in);
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const int len = static_cast<int>(word.size());
  const int limit = len <= 2 ? 0 : len <= 4 ? 1 : std::max(2, len / 3);
  const std::string lower_word = AsciiLower(word);
  int best = std::numeric_limits<int>::max();
  std::string best_candidate;
  for (const std::string& c : candidates) {
    int d = EditDistance(word, c);
    // One is a prefix of the other ('stream' / 'streaming', 'maximum' / 'max').
    std::string lower_c = AsciiLower(c);
    bool prefix = std::min(lower_c.size(), lower_word.size()) >= 3 &&
                  (lower_c.rfind(lower_word, 0) == 0 || lower_word.rfind(lower_c, 0) == 0);
    if ((d <= limit || prefix) && d < best) {
      best = d;
      best_candidate = c;
    }
  }
  return best_candidate;
}

std::string MatchAllowed(std::string_view v, const std::vector<std::string>& allowed) {
  auto fold = [](char c) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return c == '_' ? '-' : c;
  };
  for (const std::string& a : allowed) {
    if (a.size() != v.size()) continue;
    bool same = true;
    for (size_t i = 0; i < a.size() && same; ++i) same = fold(a[i]) == fold(v[i]);
    if (same) return a;
  }
  return "";
}

std::optional<std::string> CanonicalEnum(std::string_view value,
                                         const std::vector<std::string>& allowed, bool list) {
  std::string out;
  while (true) {
    const size_t comma = list ? value.find(',') : std::string_view::npos;
    const std::string match = MatchAllowed(Trim(value.substr(0, comma)), allowed);
    if (match.empty()) return std::nullopt;
    out += match;
    if (comma == std::string_view::npos) return out;
    out += ',';
    value.remove_prefix(comma + 1);
  }
}

}  // namespace tributary::options
