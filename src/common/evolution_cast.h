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

// Whether values a data file stores as `stored` (the type its format says) can be read as
// `declared` (the type the file's schema version gives the column) without a cast: the same kind
// of value, integers and decimals no wider, decimals of the same scale, nested types alike at
// every level. A file that does not fit was not written with that schema (a hand-edited schema
// file, a table re-created with other types): reading it must fail, not misread its values.
bool StoredTypeFits(const DataType& stored, const DataType& declared);

// Whether values of a column of type `from` can be read as `to` after ALTER TABLE MODIFY: the
// type kinds CastEvolvedValue converts between (a value that does not convert, a string that
// is no number say, is then an error of the read).
bool EvolutionCastSupported(const DataType& from, const DataType& to);

}  // namespace tributary
