// Casts of stored values when a column's type changed between schema versions (ALTER TABLE
// MODIFY): a file written with the old type is read with the new one, as Paimon's
// CastExecutors do (DOUBLE -> INT truncates, anything -> STRING renders it, STRING -> BYTES keeps
// the bytes, ...).
#pragma once

#include "tributary/result.h"
#include "tributary/value.h"

namespace tributary {

Result<Value> CastEvolvedValue(const Value& v, const DataType& from, const DataType& to);

}  // namespace tributary
