// The partial-update merge engine: each column of a key takes its newest non-NULL value; sequence
// groups ('fields.<seq>.sequence-group') order their columns independently and may aggregate;
// retractions only with sequence groups or the delete options. Its faces:
//   rows      NewPartialUpdateMerge (a MergeFunction: every option);
//   one key   PartialUpdateColumns (ColumnMergePlan: plain partial-update, a key's records seen
//             as column cells).
// Thread-safety: the functions are pure; a MergeFunction is one per merge.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "merge/field_aggregator.h"
#include "tributary/value.h"

namespace tributary::merge {

class MergeFunction;
struct MergeConfig;

// Rows: the engine's MergeFunction over `aggs` (MakeFieldAggregators in merge/aggregate.h).
std::unique_ptr<MergeFunction> NewPartialUpdateMerge(
    std::shared_ptr<const MergeConfig> config, std::vector<std::unique_ptr<FieldAggregator>> aggs);

// One key of a plain partial-update table (MergeConfig::IsPlainPartialUpdate: such a table
// accepts no retractions): per column c (`needed`, null: every column), appends to
// (*column_rows)[c] the row its merged value comes from: the key columns from the first record
// (as the row merge keeps them), the others from the newest record where they are not NULL, or
// `null_row` (a row whose every column is NULL). `g`: size(), kind(m), row(m), IsNull(c, m).
// False, with nothing appended, when a record is a retraction: the row merge then reports it.
template <typename Group>
bool PartialUpdateColumns(const Group& g, const std::vector<bool>& is_key,
                          const std::vector<bool>* needed, uint32_t null_row,
                          std::vector<std::vector<uint32_t>>* column_rows) {
  const size_t n = g.size();
  for (size_t m = 0; m < n; m++) {
    if (IsRetract(g.kind(m))) return false;
  }
  for (size_t c = 0; c < column_rows->size(); c++) {
    if (needed != nullptr && !(*needed)[c]) continue;
    if (is_key[c]) {
      (*column_rows)[c].push_back(g.row(0));
      continue;
    }
    uint32_t from = null_row;
    for (size_t m = n; m > 0; m--) {  // newest first
      if (!g.IsNull(c, m - 1)) {
        from = g.row(m - 1);
        break;
      }
    }
    (*column_rows)[c].push_back(from);
  }
  return true;
}

}  // namespace tributary::merge
