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

// "YYYY-MM-DD".
Result<int64_t> ParseDate(std::string_view s);
// "HH:MM[:SS[.fff]]" -> milliseconds of the day.
Result<int64_t> ParseTime(std::string_view s);
// "YYYY-MM-DD[ |T]HH:MM[:SS[.fffffffff]]" or a date alone; fraction truncated to `precision`.
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
