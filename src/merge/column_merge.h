// ColumnMergePlan: the merge engines run column by column. The records of one key (in merge
// order: ascending sequence) combine into one merged record whose columns are either gathered
// from a source record (deduplicate: the newest; first-row: the oldest; partial-update: per
// column, the newest where it is not NULL) or computed (aggregation: each column's function
// folded over the records), with no row per record. What a merge function
// (merge/merge_function.cc) gives the same records, for the engines and options Make accepts.
// Thread-safety: a plan holds aggregator state; one per merge.
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
struct MergeConfig;
}  // namespace tributary::merge

namespace tributary::merge {

// The deduplicate engine's rule for two records of one key, `later` coming after `earlier` in
// merge order (a later file, or later in the same file): whether the later one wins. The higher
// sequence number wins and the later record on ties; every column path merging deduplicate
// records (ColumnMergePlan below, the merged column reads of datafile/) decides by it.
inline bool DeduplicateWins(int64_t later_seq, int64_t earlier_seq) {
  return later_seq >= earlier_seq;
}

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
  std::vector<std::shared_ptr<merge::FieldAggregator>> aggs_;  // kAggregate: null for keys
  std::vector<bool> ignore_retract_;
  std::vector<bool> is_key_;  // primary-key columns (partition keys included)
  std::vector<Value> acc_;  // kAggregate: per column, while merging a key
  std::vector<size_t> live_;  // the records of the key being merged that count
};

template <typename Group>
Result<bool> ColumnMergePlan::Merge(const Group& g, const std::vector<bool>* needed,
                                    uint32_t null_row, ColumnMergeOutput* out) {
  const size_t n = g.size();
  if (n == 0) return true;
  auto wanted = [&](size_t c) { return needed == nullptr || (*needed)[c]; };
  auto emit = [&](size_t m, RowKind kind) {
    out->rows.push_back(g.row(m));
    out->sequences.push_back(g.seq(m));
    out->kinds.push_back(static_cast<int64_t>(kind));
  };
  // The records a merge takes: with 'ignore-delete' (deduplicate, aggregation) retractions are
  // skipped as if absent.
  live_.clear();
  for (size_t m = 0; m < n; m++) {
    if (!ignore_delete_ || !IsRetract(g.kind(m))) live_.push_back(m);
  }
  switch (kind_) {
    case Kind::kDeduplicate: {
      if (live_.empty()) return true;  // only skipped retractions
      const size_t w = live_.back();
      if (IsRetract(g.kind(w)) && !keep_retracts_) return true;  // the key is gone
      emit(w, g.kind(w));
      return true;
    }
    case Kind::kFirstRow: {
      size_t first = n;
      for (size_t m = 0; m < n; m++) {
        if (IsRetract(g.kind(m))) {
          if (!ignore_delete_) return false;
        } else if (first == n) {
          first = m;
        }
      }
      if (first < n) emit(first, g.kind(first));
      return true;
    }
    case Kind::kPartialUpdate: {
      for (size_t m = 0; m < n; m++) {
        if (IsRetract(g.kind(m))) return false;
      }
      emit(n - 1, RowKind::kInsert);
      for (size_t c = 0; c < fields_.size(); c++) {
        if (!wanted(c)) continue;
        if (is_key_[c]) {  // the first record's, as the row merge keeps them
          out->column_rows[c].push_back(g.row(0));
          continue;
        }
        uint32_t from = null_row;
        for (size_t m = n; m > 0; m--) {  // newest first
          if (!g.IsNull(c, m - 1)) {
            from = g.row(m - 1);
            break;
          }
        }
        out->column_rows[c].push_back(from);
      }
      return true;
    }
    case Kind::kAggregate: {
      if (live_.empty()) return true;  // only skipped retractions
      for (size_t c = 0; c < fields_.size(); c++) {
        if (!aggs_[c] || !wanted(c)) continue;
        aggs_[c]->Reset();
        acc_[c] = Value();
      }
      // Record by record, column by column: the order the row merge fails in.
      for (size_t m : live_) {
        const bool add = IsAdd(g.kind(m));
        for (size_t c = 0; c < fields_.size(); c++) {
          if (!aggs_[c] || !wanted(c)) continue;
          if (add) {
            TRIB_ASSIGN_OR_RETURN(acc_[c], aggs_[c]->Agg(acc_[c], g.Get(c, m)));
          } else if (!ignore_retract_[c]) {
            auto r = aggs_[c]->Retract(acc_[c], g.Get(c, m));
            if (!r.ok()) return r.status().WithContext("column '" + std::to_string(c) + "'");
            acc_[c] = std::move(*r);
          }
        }
      }
      emit(live_.back(), RowKind::kInsert);
      for (size_t c = 0; c < fields_.size(); c++) {
        if (aggs_[c] && wanted(c)) out->computed[c]->Append(acc_[c]);
      }
      return true;
    }
  }
  return true;
}

}  // namespace tributary::merge
