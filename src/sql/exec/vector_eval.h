// Bound expressions evaluated over a whole column batch: columns, constants, integer and
// floating-point arithmetic, casts of integers that cannot fail, and comparisons of such
// operands run as loops over the typed vectors; every other expression (and any whose vector
// loop meets an error: an overflow, a division by zero) is computed row by row (Evaluate) over
// the columns it reads, so the result, or the error, is always the one Evaluate gives.
// Thread-safety: free functions over immutable inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "sql/binder/expression.h"
#include "tributary/column_batch.h"

namespace tributary::sql {

// The value of `e` for every row of `batch` (a column of e.type).
// REQUIRES: every column `e` reads is a column of `batch`.
Result<ColumnVector> EvaluateBatch(const BoundExpr& e, const ColumnBatch& batch);

// The rows of `batch` (ascending) for which every predicate is TRUE.
Result<std::vector<uint32_t>> SelectRows(const std::vector<BoundExprPtr>& predicates,
                                         const ColumnBatch& batch);

// `batch` cut down to `rows` (ascending row numbers).
ColumnBatch TakeRows(ColumnBatch&& batch, const std::vector<uint32_t>& rows);
// Rows `rows` of `batch` (in that order, repeats allowed), copied.
ColumnBatch CopyRows(const ColumnBatch& batch, const std::vector<uint32_t>& rows);

// An empty column of `type` holding Values (any value of the type, as Evaluate returns it).
ColumnVector ValueColumn(const DataType& type);

}  // namespace tributary::sql
