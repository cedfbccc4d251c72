// TimeZone: UTC offsets of a named time zone ('Asia/Shanghai', read from the system's TZif
// files in /usr/share/zoneinfo), a fixed offset ('+08:00', 'UTC'), or the machine's zone
// (/etc/localtime). Used where a value changes meaning with the session time zone
// ('table.local-time-zone'): casts between TIMESTAMP, TIMESTAMP_LTZ, DATE, STRING and integers.
// Immutable after loading; thread-safe.
// Limitation: the clock changes listed in the zone file are followed (to 2037 in Debian's
// tzdata); the POSIX rule at the file's end for later years is not, so after the last listed
// change the offset stays fixed (New York stays on standard time from November 2037).
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
  static TimeZone Utc() { return TimeZone(); }

  const std::string& name() const { return name_; }
  // Seconds to add to a UTC instant to get the local wall-clock time.
  int64_t OffsetAtUtc(int64_t utc_seconds) const;
  // The UTC instant of a local wall-clock time (the earlier one when a clock change repeats it).
  int64_t LocalToUtc(int64_t local_seconds) const;

 private:
  std::string name_ = "UTC";
  std::vector<int64_t> transitions_;  // UTC seconds when `offsets_[i + 1]` starts
  std::vector<int32_t> offsets_;      // offsets_[0] before the first transition
};

}  // namespace tributary
