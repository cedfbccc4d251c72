// Casts of stored values when a column's type changed between schema versions (ALTER TABLE
// MODIFY): a file written with the old type is read with the new one, as Paimon's
// CastExecutors do (DOUBLE -> INT truncates, anything -> STRING renders it, STRING -> BYTES keeps
// the bytes, ...).
#pragma once

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary {

class TimeZone;

// `tz`: the session time zone, for casts between TIMESTAMP_LTZ (an instant) and wall-clock
// values (TIMESTAMP, DATE, TIME, STRING, and TIMESTAMP to or from epoch seconds); null is UTC.
Result<Value> CastEvolvedValue(const Value& v, const DataType& from, const DataType& to,
                               const TimeZone* tz = nullptr);

}  // namespace tributary
