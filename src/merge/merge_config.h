// MergeConfig: a table's merge engine and its per-column settings, parsed once from the schema
// options and validated (CREATE TABLE reports its errors). Immutable; thread-safe.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "merge/key_value.h"
#include "tributary/result.h"
#include "tributary/schema.h"

namespace tributary::merge {

struct SequenceGroup {
  std::vector<int> sequence_fields;  // ordered; compared lexicographically, nulls lowest
  std::vector<int> value_fields;
};

struct MergeConfig {
  // "deduplicate", "first-row", "aggregation" or "partial-update" ("versioned" is deduplicate
  // ordered by its version column).
  std::string engine = "deduplicate";
  std::vector<int> primary_key;      // every primary-key column (partition keys included)
  std::vector<int> sequence_fields;  // 'sequence.field' (or the versioned engine's column)
  bool sequence_descending = false;
  bool pad_row_kind = false;  // 'sequence.auto-padding' = 'row-kind-flag'
  bool ignore_delete = false;
  bool remove_record_on_delete = false;
  // Aggregation / partial-update: per column (empty = none), and ignore-retract flags.
  std::vector<std::string> aggregate;
  std::vector<bool> ignore_retract;
  std::vector<std::string> list_delimiter;
  std::vector<int> count_fields;      // 'count' columns: inputs become 1 / 0 indicators
  std::vector<SequenceGroup> groups;  // partial-update sequence groups
  std::set<int> remove_on_group;      // sequence fields of 'remove-record-on-sequence-group'
  // 'changelog-producer' = 'lookup' (aggregation, partial-update, deduplicate by
  // 'sequence.field'): the newest record of a key above level 0 holds its whole merged value, so
  // a merge takes that one record and the level-0 records only (LookupLevelsMerge), and a
  // compaction of level-0 records looks the key up below its output level.
  bool lookup_levels = false;

  // REQUIRES: schema has a primary key. `strict` (CREATE TABLE) also checks what Tributary
  // accepts for new tables but reads from existing ones (e.g. STRING sequence fields, which
  // Java Paimon tables may have).
  static Result<std::shared_ptr<const MergeConfig>> Make(const TableSchema& schema,
                                                         bool strict = false);
  bool HasSequenceGroups() const { return !groups.empty(); }
  // Whether column i is a primary-key column.
  bool IsKey(int i) const {
    for (int k : primary_key) {
      if (k == i) return true;
    }
    return false;
  }
  // Deduplicate in sequence-number order: the newest record of a key is the result (the newest
  // that is not a retraction with 'ignore-delete').
  bool IsPlainDeduplicate() const { return engine == "deduplicate" && sequence_fields.empty(); }
  // Aggregation in sequence-number order without 'remove-record-on-delete': each non-key column
  // folds its function over the key's records (retractions through Retract unless
  // 'ignore-retract'; skipped with 'ignore-delete').
  bool IsPlainAggregation() const {
    return engine == "aggregation" && !remove_record_on_delete && sequence_fields.empty();
  }
  // First-row in sequence-number order: the oldest record of a key (retractions are refused, or
  // skipped with 'first-row.ignore-delete').
  bool IsPlainFirstRow() const { return engine == "first-row" && sequence_fields.empty(); }
  // Partial-update in sequence-number order without sequence groups, aggregates or delete
  // options (such a table accepts no retractions): each column of a key takes its newest
  // non-NULL value, and the result is an INSERT.
  bool IsPlainPartialUpdate() const {
    if (engine != "partial-update" || ignore_delete || remove_record_on_delete ||
        !sequence_fields.empty() || !groups.empty() || !remove_on_group.empty()) {
      return false;
    }
    for (const auto& a : aggregate) {
      if (!a.empty()) return false;
    }
    return true;
  }
};

// Orders the records of one key for merging: 'sequence.field' values (nulls lowest, descending
// when asked), then the row-kind padding, then the system sequence number. Thread-safe.
class SequenceOrder {
 public:
  explicit SequenceOrder(std::shared_ptr<const MergeConfig> config) : config_(std::move(config)) {}
  // < 0 when `a` is merged before (is older than) `b`.
  int Compare(const KeyValue& a, const KeyValue& b) const;
  // False when the order is just the system sequence number (no 'sequence.field').
  bool HasSequenceFields() const { return !config_->sequence_fields.empty(); }

 private:
  std::shared_ptr<const MergeConfig> config_;
};

// Sorts a write buffer into merge order: by key, then SequenceOrder (stable, so records that
// compare equal keep their arrival order).
void SortWriteBuffer(std::vector<KeyValue>* records, const KeyComparator& key,
                     const SequenceOrder& order);

}  // namespace tributary::merge
