#include "common/timezone.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/datetime.h"

namespace tributary {
namespace {

int64_t Be(const std::string& b, size_t off, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v = (v << 8) | static_cast<uint8_t>(b[off + i]);
  if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

// "+08:00", "-0530", "UTC+8", "GMT-03:00", "Z", "UTC" -> seconds; false when not a fixed offset.
bool FixedOffset(std::string s, int32_t* out) {
  for (const char* p : {"UTC", "GMT"}) {
    if (s.rfind(p, 0) == 0) s = s.substr(3);
  }
  if (s.empty() || s == "Z") {
    *out = 0;
    return true;
  }
  if (s[0] != '+' && s[0] != '-') return false;
  int sign = s[0] == '-' ? -1 : 1;
  std::string digits;
  for (size_t i = 1; i < s.size(); i++) {
    if (std::isdigit(static_cast<unsigned char>(s[i])))
      digits += s[i];
    else if (s[i] != ':')
      return false;
  }
  if (digits.empty() || digits.size() > 4) return false;
  int h = 0, m = 0;
  if (digits.size() <= 2)
    h = std::stoi(digits);
  else {
    h = std::stoi(digits.substr(0, digits.size() - 2));
    m = std::stoi(digits.substr(digits.size() - 2));
  }
  if (h > 18 || m > 59) return false;
  *out = sign * (h * 3600 + m * 60);
  return true;
}

}  // namespace

Result<TimeZone> TimeZone::Load(const std::string& name) {
  TimeZone tz;
  std::string path;
  if (name.empty() || name == "default") {
    // The machine's zone as the C library finds it: $TZ (a zone name, ":name" or a file path)
    // when set, else /etc/localtime.
    const char* env = std::getenv("TZ");
    std::string tz_env = env != nullptr ? env : "";
    if (!tz_env.empty() && tz_env[0] == ':') tz_env.erase(0, 1);
    if (!tz_env.empty()) {
      if (tz_env[0] == '/') {
        std::ifstream probe(tz_env, std::ios::binary);
        if (probe) path = tz_env;
      } else if (auto named = Load(tz_env); named.ok()) {
        named->name_ = "default";
        return named;
      }
    }
    if (path.empty()) path = "/etc/localtime";
    tz.name_ = "default";
  } else {
    int32_t fixed;
    if (FixedOffset(name, &fixed)) {
      tz.name_ = name;
      tz.offsets_ = {fixed};
      return tz;
    }
    for (char c : name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
            c == '+')) {
        return Status::Invalid("unknown time zone '" + name + "'");
      }
    }
    if (name.find("..") != std::string::npos)
      return Status::Invalid("unknown time zone '" + name + "'");
    path = "/usr/share/zoneinfo/" + name;
    tz.name_ = name;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (name.empty() || name == "default") {
      tz.offsets_ = {0};  // no zone configured: UTC
      return tz;
    }
    return Status::Invalid("unknown time zone '" + name + "' (no " + path + ")");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string b = ss.str();
  auto bad = [&]() { return Status::Corruption("time zone file '" + path + "' is damaged"); };
  if (b.size() < 44 || b.compare(0, 4, "TZif") != 0) return bad();
  // Header counts: isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt.
  auto counts = [&](size_t at, int64_t c[6]) {
    for (int i = 0; i < 6; i++) c[i] = Be(b, at + 20 + 4 * i, 4);
  };
  int64_t c[6];
  counts(0, c);
  size_t pos = 44;
  int time_size = 4;
  char version = b[4];
  if (version >= '2') {
    // Skip the 32-bit block and use the 64-bit one that follows.
    pos += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (pos + 44 > b.size() || b.compare(pos, 4, "TZif") != 0) return bad();
    counts(pos, c);
    pos += 44;
    time_size = 8;
  }
  int64_t timecnt = c[3], typecnt = c[4];
  if (typecnt <= 0 || pos + timecnt * (time_size + 1) + typecnt * 6 > b.size()) return bad();
  std::vector<int64_t> times(timecnt);
  for (int64_t i = 0; i < timecnt; i++) times[i] = Be(b, pos + i * time_size, time_size);
  pos += timecnt * time_size;
  std::vector<uint8_t> idx(timecnt);
  for (int64_t i = 0; i < timecnt; i++) idx[i] = static_cast<uint8_t>(b[pos + i]);
  pos += timecnt;
  std::vector<int32_t> type_offset(typecnt);
  for (int64_t i = 0; i < typecnt; i++)
    type_offset[i] = static_cast<int32_t>(Be(b, pos + i * 6, 4));
  for (uint8_t i : idx) {
    if (i >= typecnt) return bad();
  }
  tz.offsets_.push_back(type_offset[0]);
  for (int64_t i = 0; i < timecnt; i++) {
    tz.transitions_.push_back(times[i]);
    tz.offsets_.push_back(type_offset[idx[i]]);
  }
  if (version >= '2') {
    // The footer after the 64-bit block: "\n<POSIX TZ rule>\n" for times after the last change.
    size_t end = pos + typecnt * 6 + c[5] + c[2] * 12 + c[1] + c[0];
    if (end < b.size() && b[end] == '\n') {
      size_t nl = b.find('\n', end + 1);
      if (nl != std::string::npos && !tz.ParseRule(b.substr(end + 1, nl - end - 1)) &&
          nl > end + 1) {
        return bad();
      }
    }
  }
  return tz;
}

namespace {

// POSIX TZ pieces; each advances `i` over what it read and returns false on bad input.
bool TzName(const std::string& s, size_t& i) {
  size_t start = i;
  if (i < s.size() && s[i] == '<') {
    size_t close = s.find('>', i);
    if (close == std::string::npos) return false;
    i = close + 1;
    return true;
  }
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) i++;
  return i - start >= 3;
}

// [+-]hh[:mm[:ss]] as seconds.
bool TzTime(const std::string& s, size_t& i, int32_t* out) {
  int sign = 1;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
  int32_t total = 0;
  for (int part = 0; part < 3; part++) {
    if (part > 0) {
      if (i >= s.size() || s[i] != ':') break;
      i++;
    }
    size_t start = i;
    int32_t v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 3) {
      v = v * 10 + (s[i++] - '0');
    }
    if (i == start) return false;
    total += v * (part == 0 ? 3600 : part == 1 ? 60 : 1);
  }
  *out = sign * total;
  return true;
}

bool TzNumber(const std::string& s, size_t& i, int* out) {
  size_t start = i;
  int v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 4) {
    v = v * 10 + (s[i++] - '0');
  }
  *out = v;
  return i > start;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

}  // namespace

bool TimeZone::ParseRule(const std::string& s) {
  size_t i = 0;
  int32_t std_west = 0;
  if (!TzName(s, i) || !TzTime(s, i, &std_west)) return false;
  std_offset_ = -std_west;  // POSIX offsets count west of Greenwich
  has_rule_ = true;
  if (i == s.size()) return true;
  if (!TzName(s, i)) return false;
  dst_offset_ = std_offset_ + 3600;
  if (i < s.size() && s[i] != ',') {
    int32_t dst_west = 0;
    if (!TzTime(s, i, &dst_west)) return false;
    dst_offset_ = -dst_west;
  }
  auto date = [&](RuleDate* d) {
    if (i >= s.size() || s[i] != ',') return false;
    i++;
    if (i < s.size() && s[i] == 'M') {
      i++;
      d->kind = 'M';
      if (!TzNumber(s, i, &d->month) || i >= s.size() || s[i++] != '.') return false;
      if (!TzNumber(s, i, &d->week) || i >= s.size() || s[i++] != '.') return false;
      if (!TzNumber(s, i, &d->weekday)) return false;
      if (d->month < 1 || d->month > 12 || d->week < 1 || d->week > 5 || d->weekday > 6) {
        return false;
      }
    } else {
      d->kind = i < s.size() && s[i] == 'J' ? 'J' : 'n';
      if (d->kind == 'J') i++;
      if (!TzNumber(s, i, &d->day) || d->day > 365) return false;
    }
    if (i < s.size() && s[i] == '/') {
      i++;
      if (!TzTime(s, i, &d->time)) return false;
    }
    return true;
  };
  if (!date(&dst_start_) || !date(&dst_end_) || i != s.size()) return false;
  rule_dst_ = true;
  return true;
}

int64_t TimeZone::RuleUtc(const RuleDate& d, int64_t year, int32_t offset) {
  int64_t day;
  if (d.kind == 'J') {
    day = DaysFromCivil(year, 1, 1) + d.day - 1 + (IsLeap(year) && d.day >= 60 ? 1 : 0);
  } else if (d.kind == 'n') {
    day = DaysFromCivil(year, 1, 1) + d.day;
  } else {
    int64_t first = DaysFromCivil(year, static_cast<unsigned>(d.month), 1);
    int64_t first_weekday = ((first % 7) + 11) % 7;  // 1970-01-01 was a Thursday (4)
    day = first + (d.weekday - first_weekday + 7) % 7 + 7 * (d.week - 1);
    int64_t next_month = d.month == 12 ? DaysFromCivil(year + 1, 1, 1)
                                       : DaysFromCivil(year, static_cast<unsigned>(d.month + 1), 1);
    while (day >= next_month) day -= 7;  // week 5: the last such weekday
  }
  return day * 86400 + d.time - offset;
}

int64_t TimeZone::OffsetAtUtc(int64_t utc) const {
  if (offsets_.empty()) return 0;
  if (has_rule_ && (transitions_.empty() || utc >= transitions_.back())) {
    if (!rule_dst_) return std_offset_;
    int64_t local_day = (utc + std_offset_) >= 0 ? (utc + std_offset_) / 86400
                                                 : -((-(utc + std_offset_) + 86399) / 86400);
    int64_t year;
    unsigned month, day;
    CivilFromDays(local_day, &year, &month, &day);
    int64_t start = RuleUtc(dst_start_, year, std_offset_);
    int64_t end = RuleUtc(dst_end_, year, dst_offset_);
    bool dst = start < end ? (utc >= start && utc < end) : (utc < end || utc >= start);
    return dst ? dst_offset_ : std_offset_;
  }
  // The last transition at or before `utc`.
  size_t lo = 0, hi = transitions_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (transitions_[mid] <= utc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return offsets_[lo];
}

int64_t TimeZone::LocalToUtc(int64_t local) const {
  // The offset in effect at `local` is one of those around it (clock changes are far less than
  // a day apart from their neighbours' effects); of the candidates that map back to `local`,
  // take the earliest instant.
  std::optional<int64_t> best;
  for (int64_t around : {local - 86400, local, local + 86400}) {
    int64_t utc = local - OffsetAtUtc(around);
    if (utc + OffsetAtUtc(utc) == local && (!best || utc < *best)) best = utc;
  }
  if (best) return *best;
  // A wall-clock time skipped by a clock change: read it with the offset before the change.
  return local - OffsetAtUtc(local - 86400);
}

}  // namespace tributary
