// Column vectors in the representation scans give their type (ColumnVector::RepOf): what
// operators that compare, hash or spill columns work on, whatever representation a column came
// in. Internal.
// Thread-safety: stateless functions.
#pragma once

#include "tributary/column_batch.h"

namespace tributary {

// An empty column of `type` in its scan representation (ColumnVector::RepOf).
ColumnVector TypedColumn(const DataType& type);

// `col` in the representation its type has in scans (ColumnVector::RepOf): a column of Values
// (as row-by-row evaluation makes) becomes typed vectors; a typed column is returned as it is.
ColumnVector Canonical(ColumnVector&& col);

}  // namespace tributary
