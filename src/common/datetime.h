// Calendar arithmetic and the text forms of DATE, TIME, TIMESTAMP and DECIMAL values.
// Proleptic Gregorian calendar, as Java's java.time (which Paimon uses).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary {

// The machine's UTC offset (its local time zone: TZ, /etc/localtime) at `utc_millis`, in
// milliseconds. Wall-clock times Paimon records without a zone (a data file's _CREATION_TIME,
// LocalDateTime.now()) are UTC plus this.
int64_t MachineUtcOffsetMillis(int64_t utc_millis);

// The range of DATE and TIMESTAMP values, Flink's: years 0000 to 9999. Every DATE and
// TIMESTAMP a statement, a function or an ingest produces is in it (else an error or, where
// Flink's function gives NULL, NULL); a TIMESTAMP_LTZ's instant is checked as UTC.
inline constexpr int64_t kMinDate = -719528;  // 0000-01-01, days since 1970-01-01
inline constexpr int64_t kMaxDate = 2932896;  // 9999-12-31
inline constexpr int64_t kMinTimestampMillis = kMinDate * 86400000;            // 0000-01-01 00:00
inline constexpr int64_t kMaxTimestampMillis = (kMaxDate + 1) * 86400000 - 1;  // 9999-12-31 ...
inline constexpr char kDateRange[] = "0000-01-01 to 9999-12-31";
inline constexpr char kTimestampRange[] = "0000-01-01 00:00:00 to 9999-12-31 23:59:59.999999999";

inline bool DateInRange(int64_t days) { return days >= kMinDate && days <= kMaxDate; }
inline bool TimestampInRange(const Timestamp& ts) {
  return ts.millis >= kMinTimestampMillis && ts.millis <= kMaxTimestampMillis;
}
// "<what> is out of range (0000-01-01 to 9999-12-31)", `what` naming the value ("DATE 4294967297
// (days since 1970-01-01)"); the TIMESTAMP form names the TIMESTAMP range.
Status DateOutOfRange(const std::string& what);
Status TimestampOutOfRange(const std::string& what);
// Whether `st` is one of the errors above (also from ParseDate / ParseTimestamp): the value is
// well-formed but outside the range.
bool IsOutOfRange(const Status& st);

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d);
void CivilFromDays(int64_t days, int64_t* y, unsigned* m, unsigned* d);

// "YYYY-MM-DD".
std::string FormatDate(int64_t days);
// "HH:MM:SS" plus ".fff" when the milliseconds are not zero.
std::string FormatTime(int64_t millis_of_day);
// "YYYY-MM-DD HH:MM:SS" plus the fraction (trailing zeros dropped) when not zero.
std::string FormatTimestamp(const Timestamp& ts);
// `text` (a timestamp as FormatTimestamp writes it, possibly with a zone after it) with exactly
// `precision` fraction digits, as Flink writes a TIMESTAMP(p): "... 00:00:00.500" for p = 3.
std::string PadTimestampFraction(std::string text, int precision);

// "YYYY-MM-DD"; a year outside 0000-9999 is an out-of-range error.
Result<int64_t> ParseDate(std::string_view s);
// "HH:MM[:SS[.fff]]" -> milliseconds of the day.
Result<int64_t> ParseTime(std::string_view s);
// "YYYY-MM-DD[ |T]HH:MM[:SS[.fffffffff]]" or a date alone; fraction truncated to `precision`. A
// year outside 0000-9999 is an out-of-range error.
Result<Timestamp> ParseTimestamp(std::string_view s, int32_t precision = 9);
// Truncates a timestamp to `precision` fractional digits (0..9).
Timestamp TruncateTimestamp(Timestamp ts, int32_t precision);

// Unscaled integer with `scale` digits after the point, e.g. (1234, 2) -> "12.34".
std::string FormatDecimal(__int128 unscaled, int32_t scale);
// Parses a decimal literal ("-12.5", "3", "1e3" is rejected) into DECIMAL(precision, scale),
// rounding half-up extra digits; an error when it does not fit.
Result<__int128> ParseDecimal(std::string_view s, int32_t precision, int32_t scale);
// 10^n for n in 0..38.
__int128 Pow10(int n);

}  // namespace tributary
