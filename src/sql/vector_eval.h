// Bound expressions evaluated over a whole column batch: columns, constants and comparisons of a
// column with a constant run as loops over the typed vectors; every other expression is computed
// row by row (Evaluate) over the columns it reads, so the result is always the one Evaluate
// gives.
// Thread-safety: free functions over immutable inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "sql/expression.h"
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
