// Whether a value may be stored in a column: its representation (value.h) is the column type's
// and it fits (string length, integer range, nested elements).
#pragma once

#include "tributary/schema.h"
#include "tributary/status.h"
#include "tributary/value.h"

namespace tributary {

// Checks that `v` has the representation of `field`'s type and fits it; names the column in the
// error.
Status CheckValue(const Value& v, const Field& field);

}  // namespace tributary
