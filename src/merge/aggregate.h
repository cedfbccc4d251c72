// The aggregation merge engine: every non-key column of a key folds its aggregate function
// ('fields.<col>.aggregate-function') over the key's records in merge order; retractions go
// through the function's retract unless 'ignore-retract', and are skipped with 'ignore-delete'.
// Its faces:
//   rows      NewAggregateMerge (a MergeFunction: write buffer, row reads, compaction; also
//             'remove-record-on-delete' and 'count' inputs);
//   one key   AggregateColumns (ColumnMergePlan: a key's records seen as column cells).
// Thread-safety: one MergeFunction or AggregateColumns per merge (they hold aggregator state).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merge/field_aggregator.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::merge {

class MergeFunction;
struct MergeConfig;

// The aggregator of each column of `fields` that has a function in `config` (null for the
// others: key columns, and partial-update columns without one). Errors name the column.
Result<std::vector<std::unique_ptr<FieldAggregator>>> MakeFieldAggregators(
    const MergeConfig& config, const std::vector<Field>& fields);

// Rows: the engine's MergeFunction over `aggs` (MakeFieldAggregators).
std::unique_ptr<MergeFunction> NewAggregateMerge(
    std::shared_ptr<const MergeConfig> config, std::vector<std::unique_ptr<FieldAggregator>> aggs);

// One key: the aggregated columns' merged values, appended to `computed` (one vector per
// column; the key columns and columns not `needed` are left alone).
class AggregateColumns {
 public:
  static Result<AggregateColumns> Make(const MergeConfig& config, const std::vector<Field>& fields);
  // Whether column c is aggregated (false for the key columns).
  bool aggregated(size_t c) const { return c < aggs_.size() && aggs_[c] != nullptr; }

  // Folds the records `live` (positions in `g`, in merge order: the records that count) of one
  // key: `g.kind(m)`, `g.Get(c, m)`. Errors are the aggregator's, as the row merge returns them
  // (record by record, column by column).
  template <typename Group>
  Status Merge(const Group& g, const std::vector<size_t>& live, const std::vector<bool>* needed,
               std::vector<std::optional<ColumnVector>>* computed);

 private:
  std::vector<std::shared_ptr<FieldAggregator>> aggs_;  // null for columns not aggregated
  std::vector<bool> ignore_retract_;
  std::vector<Value> acc_;  // per column, while merging a key
};

template <typename Group>
Status AggregateColumns::Merge(const Group& g, const std::vector<size_t>& live,
                               const std::vector<bool>* needed,
                               std::vector<std::optional<ColumnVector>>* computed) {
  auto take = [&](size_t c) { return aggs_[c] && (needed == nullptr || (*needed)[c]); };
  for (size_t c = 0; c < aggs_.size(); c++) {
    if (!take(c)) continue;
    aggs_[c]->Reset();
    acc_[c] = Value();
  }
  for (size_t m : live) {
    const bool add = IsAdd(g.kind(m));
    for (size_t c = 0; c < aggs_.size(); c++) {
      if (!take(c)) continue;
      if (add) {
        TRIB_ASSIGN_OR_RETURN(acc_[c], aggs_[c]->Agg(acc_[c], g.Get(c, m)));
      } else if (!ignore_retract_[c]) {
        auto r = aggs_[c]->Retract(acc_[c], g.Get(c, m));
        if (!r.ok()) return r.status().WithContext("column '" + std::to_string(c) + "'");
        acc_[c] = std::move(*r);
      }
    }
  }
  for (size_t c = 0; c < aggs_.size(); c++) {
    if (take(c)) (*computed)[c]->Append(acc_[c]);
  }
  return Status::OK();
}

}  // namespace tributary::merge
