#include "merge/partial_update.h"

#include "merge/merge_config.h"
#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

class PartialUpdateMergeFunction : public MergeFunction {
 public:
  PartialUpdateMergeFunction(std::shared_ptr<const MergeConfig> c,
                             std::vector<std::unique_ptr<FieldAggregator>> aggs)
      : c_(std::move(c)), aggs_(std::move(aggs)) {
    size_t n = c_->aggregate.size();
    group_of_.assign(n, -1);
    is_seq_.assign(n, false);
    for (size_t g = 0; g < c_->groups.size(); g++) {
      for (int f : c_->groups[g].value_fields) group_of_[f] = static_cast<int>(g);
      for (int f : c_->groups[g].sequence_fields) is_seq_[f] = true;
    }
    is_key_.assign(n, false);
    for (int k : c_->primary_key) is_key_[k] = true;
    for (size_t i = 0; i < n; i++) {
      if (!is_key_[i] && group_of_[i] < 0 && !is_seq_[i]) plain_.push_back(static_cast<int>(i));
    }
  }

  void Reset() override {
    row_.reset();
    saw_insert_ = false;
    removed_ = false;
    for (auto& a : aggs_) {
      if (a) a->Reset();
    }
  }

  Status Add(const KeyValue& kv) override {
    if (!row_) {
      // The key's values; every other column starts NULL.
      row_.emplace();
      row_->level = kv.level;
      row_->kind = RowKind::kInsert;
      row_->write_mask = kv.write_mask;
      row_->value.resize(kv.value.size());
      for (size_t i = 0; i < kv.value.size(); i++) {
        if (i < is_key_.size() && is_key_[i]) row_->value[i] = kv.value[i];
      }
    } else if (!kv.write_mask) {
      row_->write_mask = nullptr;
    } else {
      row_->write_mask = UnionWriteMask(row_->write_mask, kv.write_mask);
    }
    row_->sequence = kv.sequence;
    if (IsRetract(kv.kind)) return Retract(kv);
    saw_insert_ = true;
    removed_ = false;
    Row& v = row_->value;
    const std::vector<bool>* mask = kv.write_mask.get();
    // Columns outside any sequence group: non-null values win (in static partial-column writes,
    // every written column wins, NULL included).
    for (int i : plain_) {
      if (mask ? (*mask)[i] : !kv.value[i].is_null()) v[i] = kv.value[i];
    }
    for (const auto& g : c_->groups) {
      bool all_null = true;
      for (int f : g.sequence_fields) all_null &= kv.value[f].is_null();
      if (all_null) continue;  // a record without this group's sequence leaves the group alone
      int cmp = CompareSeq(g, kv.value, v);
      bool newer = cmp >= 0;
      for (int f : g.value_fields) {
        if (aggs_[f]) {
          TRIB_ASSIGN_OR_RETURN(v[f], newer ? aggs_[f]->Agg(v[f], kv.value[f])
                                            : aggs_[f]->AggReversed(v[f], kv.value[f]));
        } else if (newer) {
          v[f] = kv.value[f];  // inside a group, NULL overwrites too
        }
      }
      if (newer) {
        for (int f : g.sequence_fields) v[f] = kv.value[f];
      }
    }
    return Status::OK();
  }

  std::optional<KeyValue> Result() override {
    if (!row_) return std::nullopt;
    KeyValue r = *row_;
    r.kind = (removed_ || !saw_insert_) ? RowKind::kDelete : RowKind::kInsert;
    return r;
  }
  std::optional<KeyValue> TakeResult() override {
    if (!row_) return std::nullopt;
    KeyValue r = std::move(*row_);
    row_.reset();
    r.kind = (removed_ || !saw_insert_) ? RowKind::kDelete : RowKind::kInsert;
    return r;
  }

 private:
  // Compares the sequence fields of group `g` (nulls lowest).
  static int CompareSeq(const SequenceGroup& g, const Row& a, const Row& b) {
    for (int f : g.sequence_fields) {
      int c = CompareValues(a[f], b[f]);
      if (c != 0) return c;
    }
    return 0;
  }

  Status Retract(const KeyValue& kv) {
    if (c_->ignore_delete) return Status::OK();
    if (c_->remove_record_on_delete) {
      if (kv.kind == RowKind::kDelete) {
        removed_ = true;
        row_->value = kv.value;  // the row restarts from the delete's values
      }
      return Status::OK();
    }
    if (!c_->HasSequenceGroups()) {
      return Status::Invalid(
          "a partial-update table cannot accept DELETE or UPDATE_BEFORE records by default; set "
          "'partial-update.ignore-delete' = 'true' or 'partial-update.remove-record-on-delete' = "
          "'true', or use sequence groups");
    }
    Row& v = row_->value;
    for (const auto& g : c_->groups) {
      bool all_null = true;
      for (int f : g.sequence_fields) all_null &= kv.value[f].is_null();
      if (all_null) continue;
      if (CompareSeq(g, kv.value, v) < 0) continue;  // an older retraction changes nothing
      bool remove = false;
      for (int f : g.sequence_fields) remove |= c_->remove_on_group.count(f) > 0;
      if (remove && kv.kind == RowKind::kDelete) {
        removed_ = true;
        v = kv.value;
        return Status::OK();
      }
      for (int f : g.value_fields) {
        if (aggs_[f]) {
          if (c_->ignore_retract[f]) continue;
          TRIB_ASSIGN_OR_RETURN(v[f], aggs_[f]->Retract(v[f], kv.value[f]));
        } else {
          v[f] = Value();
        }
      }
      for (int f : g.sequence_fields) v[f] = kv.value[f];
    }
    return Status::OK();
  }

  std::shared_ptr<const MergeConfig> c_;
  std::vector<std::unique_ptr<FieldAggregator>> aggs_;
  std::vector<int> group_of_;
  std::vector<bool> is_seq_;
  std::vector<bool> is_key_;
  std::vector<int> plain_;  // columns outside the key and every sequence group
  std::optional<KeyValue> row_;
  bool saw_insert_ = false;
  bool removed_ = false;
};

}  // namespace

std::unique_ptr<MergeFunction> NewPartialUpdateMerge(
    std::shared_ptr<const MergeConfig> config, std::vector<std::unique_ptr<FieldAggregator>> aggs) {
  return std::make_unique<PartialUpdateMergeFunction>(std::move(config), std::move(aggs));
}

}  // namespace tributary::merge
