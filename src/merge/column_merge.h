// ColumnMergePlan: the merge engines run column by column. The records of one key (in merge
// order: ascending sequence) combine into one merged record whose columns are either gathered
// from a source record (deduplicate: the newest; first-row: the oldest; partial-update: per
// column, the newest where it is not NULL) or computed (aggregation: each column's function
// folded over the records), with no row per record. The plan picks the engine's column face
// (merge/deduplicate.h, first_row.h, partial_update.h, aggregate.h: each engine's row and
// column faces live in its own file), so it gives what the engine's merge function gives the
// same records, for the engines and options Make accepts.
// Thread-safety: a plan holds aggregator state; one per merge.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "merge/aggregate.h"
#include "merge/deduplicate.h"
#include "merge/first_row.h"
#include "merge/partial_update.h"
#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::merge {
struct MergeConfig;
}  // namespace tributary::merge

namespace tributary::merge {

// Merged records, key by key.
struct ColumnMergeOutput {
  // Per merged record: the row of its source record (the winner; the newest record for
  // partial-update and aggregation, whose key columns come from it).
  std::vector<uint32_t> rows;
  // Partial-update: per column, the row each merged record takes it from (a NULL row when no
  // record has a value). Empty otherwise.
  std::vector<std::vector<uint32_t>> column_rows;
  // Aggregation: per aggregated column, its merged values (one per merged record); nullopt for
  // the key columns (and columns not needed).
  std::vector<std::optional<ColumnVector>> computed;
  std::vector<int64_t> sequences, kinds;
  size_t size() const { return rows.size(); }
  // The row of column c for merged record k in the sources (not for computed columns).
  uint32_t SourceRow(size_t c, size_t k) const {
    return column_rows.empty() || column_rows[c].empty() ? rows[k] : column_rows[c][k];
  }
};

class ColumnMergePlan {
 public:
  enum class Kind { kDeduplicate, kPartialUpdate, kAggregate, kFirstRow };

  // The plan of `config` for a table of `fields`, or nullopt when its merge needs rows
  // ('sequence.field', sequence groups, delete options; see MergeConfig::IsPlain*). Deduplicate
  // keeps a winning retraction only with `keep_retracts` (a compaction below the top level).
  static Result<std::optional<ColumnMergePlan>> Make(const merge::MergeConfig& config,
                                                     const std::vector<Field>& fields,
                                                     bool keep_retracts);
  Kind kind() const { return kind_; }
  // Whether Merge takes every retraction (else a key holding one may return false: partial-update
  // always, first-row without 'ignore-delete').
  bool TakesRetractions() const {
    return kind_ == Kind::kDeduplicate || kind_ == Kind::kAggregate ||
           (kind_ == Kind::kFirstRow && ignore_delete_);
  }

  // Whether the newest record of each key wins, a winning retraction dropping the key unless
  // keep_retracts(): what merge::DeduplicateRuns computes from the keys alone.
  bool LatestWins() const { return kind_ == Kind::kDeduplicate && !ignore_delete_; }
  bool keep_retracts() const { return keep_retracts_; }

  // Merges the records of one key into `out`. `g` gives them in merge order:
  //   size_t size(); RowKind kind(m); int64_t seq(m); uint32_t row(m);
  //   bool IsNull(c, m); Value Get(c, m)   (column c of record m)
  // `needed` (null: every column) limits the columns merged. `null_row` is a source row whose
  // every column is NULL (partial-update). Returns false, with nothing added, when the key needs
  // the row merge (a retraction partial-update or first-row does not take: the row merge
  // reports it); aggregator errors are returned as the row merge returns them.
  template <typename Group>
  Result<bool> Merge(const Group& g, const std::vector<bool>* needed, uint32_t null_row,
                     ColumnMergeOutput* out);

  // Prepares `out` for records of `num_columns` columns.
  void Start(size_t num_columns, ColumnMergeOutput* out) const;

 private:
  Kind kind_ = Kind::kDeduplicate;
  bool keep_retracts_ = false;
  bool ignore_delete_ = false;
  std::vector<Field> fields_;
  std::optional<AggregateColumns> aggregate_;  // kAggregate
  std::vector<bool> is_key_;                   // primary-key columns (partition keys included)
  std::vector<size_t> live_;  // kAggregate: the records of the key being merged that count
};

template <typename Group>
Result<bool> ColumnMergePlan::Merge(const Group& g, const std::vector<bool>* needed,
                                    uint32_t null_row, ColumnMergeOutput* out) {
  const size_t n = g.size();
  if (n == 0) return true;
  auto emit = [&](size_t m, RowKind kind) {
    out->rows.push_back(g.row(m));
    out->sequences.push_back(g.seq(m));
    out->kinds.push_back(static_cast<int64_t>(kind));
  };
  switch (kind_) {
    case Kind::kDeduplicate: {
      const std::optional<size_t> w = DeduplicateWinner(g, ignore_delete_, keep_retracts_);
      if (w) emit(*w, g.kind(*w));
      return true;
    }
    case Kind::kFirstRow: {
      const FirstRowPick pick = FirstRowWinner(g, ignore_delete_);
      if (pick.needs_rows) return false;
      if (pick.record) emit(*pick.record, g.kind(*pick.record));
      return true;
    }
    case Kind::kPartialUpdate: {
      if (!PartialUpdateColumns(g, is_key_, needed, null_row, &out->column_rows)) return false;
      emit(n - 1, RowKind::kInsert);
      return true;
    }
    case Kind::kAggregate: {
      // With 'ignore-delete' retractions are skipped as if absent.
      live_.clear();
      for (size_t m = 0; m < n; m++) {
        if (!ignore_delete_ || !IsRetract(g.kind(m))) live_.push_back(m);
      }
      if (live_.empty()) return true;  // only skipped retractions
      TRIB_RETURN_NOT_OK(aggregate_->Merge(g, live_, needed, &out->computed));
      emit(live_.back(), RowKind::kInsert);
      return true;
    }
  }
  return true;
}

}  // namespace tributary::merge
