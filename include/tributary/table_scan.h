// TableScan: a batch read of one snapshot: plans splits (one per partition and bucket), prunes
// them with the filters, and returns merged rows batch by batch.
// Thread-safety: one thread at a time.
#pragma once

#include <vector>

#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/table.h"
#include "tributary/types.h"

namespace tributary {

class TableScan {
 public:
  virtual ~TableScan() = default;
  // Fields of the rows returned (the projection of the table schema).
  virtual const std::vector<Field>& output_fields() const = 0;
  // Replaces `batch` with the next rows; returns false when the scan is exhausted.
  virtual Result<bool> Next(RowBatch* batch) = 0;
  // The same rows, column by column (for aggregates and other analytic work, which then need no
  // row per record); returns false when the scan is exhausted. Use either Next or NextColumns
  // on one scan. The default converts what Next returns.
  virtual Result<bool> NextColumns(ColumnBatch* batch);
};

}  // namespace tributary
