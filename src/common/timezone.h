// TimeZone: UTC offsets of a named time zone ('Asia/Shanghai', read from the system's TZif
// files in /usr/share/zoneinfo), a fixed offset ('+08:00', 'UTC'), or the machine's zone
// (/etc/localtime). Used where a value changes meaning with the session time zone
// ('table.local-time-zone'): casts between TIMESTAMP, TIMESTAMP_LTZ, DATE, STRING and integers.
// Immutable after loading; thread-safe.
// After the last clock change listed in the file (2037 in Debian's tzdata) the POSIX TZ rule at
// the file's end ('EST5EDT,M3.2.0,M11.1.0') gives the offsets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tributary/result.h"

namespace tributary {

class TimeZone {
 public:
  // "" or "default": the machine's zone. Unknown names are an error naming the zone.
  static Result<TimeZone> Load(const std::string& name);

  const std::string& name() const { return name_; }
  // Seconds to add to a UTC instant to get the local wall-clock time.
  int64_t OffsetAtUtc(int64_t utc_seconds) const;
  // The UTC instant of a local wall-clock time (the earlier one when a clock change repeats it).
  int64_t LocalToUtc(int64_t local_seconds) const;

 private:
  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;  // UTC seconds when `offsets_[i + 1]` starts
  std::vector<int32_t> offsets_;      // offsets_[0] before the first transition

  // A POSIX TZ rule date: Mm.w.d (kind 'M'), Jn (1-365, Feb 29 never counted) or n (0-365).
  struct RuleDate {
    char kind = 'M';
    int month = 1, week = 1, weekday = 0, day = 0;
    int32_t time = 7200;  // local seconds after midnight (may be negative or past 24 h)
  };
  bool ParseRule(const std::string& tz);
  // UTC second a rule date of `year` happens at, the local clock running at `offset`.
  static int64_t RuleUtc(const RuleDate& d, int64_t year, int32_t offset);
  bool has_rule_ = false;  // the rule applies after the last transition
  bool rule_dst_ = false;
  int32_t std_offset_ = 0, dst_offset_ = 0;
  RuleDate dst_start_, dst_end_;
};

}  // namespace tributary
