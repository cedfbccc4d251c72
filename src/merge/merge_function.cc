#include "merge/merge_function.h"

#include <algorithm>

#include "merge/field_aggregator.h"

namespace tributary::merge {
namespace {

bool IsKey(const MergeConfig& c, int i) {
  return std::find(c.primary_key.begin(), c.primary_key.end(), i) != c.primary_key.end();
}

std::shared_ptr<const std::vector<bool>> UnionMask(const std::shared_ptr<const std::vector<bool>>& a,
                                                   const std::shared_ptr<const std::vector<bool>>& b) {
  if (!a || !b) return nullptr;
  auto m = std::make_shared<std::vector<bool>>(*a);
  for (size_t i = 0; i < m->size() && i < b->size(); i++) (*m)[i] = (*m)[i] || (*b)[i];
  return m;
}

// deduplicate (and versioned, which is deduplicate ordered by its version column): the last
// record wins; a retraction as the last record removes the key. Records of static partial-column
// writes replace only the columns they wrote.
class DeduplicateMergeFunction : public MergeFunction {
 public:
  explicit DeduplicateMergeFunction(std::shared_ptr<const MergeConfig> c) : c_(std::move(c)) {}
  void Reset() override { latest_.reset(); }

  Status AddOwned(KeyValue&& kv) override {
    if (!kv.write_mask && !(c_->ignore_delete && IsRetract(kv.kind))) {
      latest_ = std::move(kv);
      return Status::OK();
    }
    return Add(kv);
  }
  std::optional<KeyValue> TakeResult() override {
    std::optional<KeyValue> r = std::move(latest_);
    latest_.reset();
    return r;
  }

  Status Add(const KeyValue& kv) override {
    if (c_->ignore_delete && IsRetract(kv.kind)) return Status::OK();
    if (!kv.write_mask || !latest_) {
      latest_ = kv;
      return Status::OK();
    }
    const std::vector<bool>& mask = *kv.write_mask;
    KeyValue& l = *latest_;
    l.sequence = kv.sequence;
    if (!l.write_mask && IsRetract(l.kind)) {
      // The row was deleted: a partial insert starts a new row (unwritten columns NULL).
      if (IsAdd(kv.kind)) {
        l = kv;
        l.write_mask = nullptr;
      }
      return Status::OK();
    }
    for (size_t i = 0; i < mask.size() && i < l.value.size(); i++) {
      if (mask[i] && !IsKey(*c_, static_cast<int>(i))) {
        l.value[i] = IsAdd(kv.kind) ? kv.value[i] : Value();
      }
    }
    if (IsAdd(kv.kind)) {
      l.kind = kv.kind;
    } else if (!l.write_mask) {
      // A partial delete removes the row only when every non-key column is now NULL.
      bool empty = true;
      for (size_t i = 0; i < l.value.size(); i++) {
        if (!IsKey(*c_, static_cast<int>(i)) && !l.value[i].is_null()) empty = false;
      }
      l.kind = empty ? RowKind::kDelete : RowKind::kInsert;
    }
    if (l.write_mask) l.write_mask = UnionMask(l.write_mask, kv.write_mask);
    return Status::OK();
  }
  std::optional<KeyValue> Result() override { return latest_; }

 private:
  std::shared_ptr<const MergeConfig> c_;
  std::optional<KeyValue> latest_;
};

// first-row: the first record wins; later ones are ignored.
class FirstRowMergeFunction : public MergeFunction {
 public:
  explicit FirstRowMergeFunction(std::shared_ptr<const MergeConfig> c) : c_(std::move(c)) {}
  void Reset() override { first_.reset(); }
  Status Add(const KeyValue& kv) override {
    if (IsRetract(kv.kind)) {
      if (c_->ignore_delete) return Status::OK();
      return Status::Invalid(
          "a first-row table cannot accept DELETE or UPDATE_BEFORE records; set "
          "'first-row.ignore-delete' = 'true' to ignore them");
    }
    if (!first_) first_ = kv;
    return Status::OK();
  }
  Status AddOwned(KeyValue&& kv) override {
    if (IsRetract(kv.kind) || first_) return Add(kv);
    first_ = std::move(kv);
    return Status::OK();
  }
  std::optional<KeyValue> Result() override { return first_; }
  std::optional<KeyValue> TakeResult() override {
    std::optional<KeyValue> r = std::move(first_);
    first_.reset();
    return r;
  }

 private:
  std::shared_ptr<const MergeConfig> c_;
  std::optional<KeyValue> first_;
};

// Builds the per-column aggregators of a config.
Result<std::vector<std::unique_ptr<FieldAggregator>>> MakeAggregators(
    const MergeConfig& c, const std::vector<std::string>& names, const std::vector<DataType>& types) {
  std::vector<std::unique_ptr<FieldAggregator>> out(c.aggregate.size());
  for (size_t i = 0; i < c.aggregate.size(); i++) {
    if (c.aggregate[i].empty()) continue;
    TRIB_ASSIGN_OR_RETURN(out[i], FieldAggregator::Make(c.aggregate[i], names[i], types[i],
                                                        c.list_delimiter[i]));
  }
  return out;
}

// aggregation: every non-key column combines with its aggregate function.
class AggregateMergeFunction : public MergeFunction {
 public:
  AggregateMergeFunction(std::shared_ptr<const MergeConfig> c,
                         std::vector<std::unique_ptr<FieldAggregator>> aggs)
      : c_(std::move(c)), aggs_(std::move(aggs)) {}

  void Reset() override {
    row_.reset();
    removed_ = false;
    for (auto& a : aggs_) {
      if (a) a->Reset();
    }
  }

  Status Add(const KeyValue& kv) override {
    // 'ignore-delete': retractions of files written before the option was set are skipped, as
    // Paimon's readers skip them.
    if (c_->ignore_delete && IsRetract(kv.kind)) return Status::OK();
    if (!row_) {
      row_ = kv;
      row_->kind = RowKind::kInsert;
      for (size_t i = 0; i < aggs_.size(); i++) {
        if (aggs_[i]) row_->value[i] = Value();
      }
    }
    row_->sequence = kv.sequence;
    if (IsRetract(kv.kind) && c_->remove_record_on_delete && kv.kind == RowKind::kDelete) {
      removed_ = true;
      row_->value = kv.value;
      return Status::OK();
    }
    if (IsAdd(kv.kind) && removed_) {
      removed_ = false;
      for (size_t i = 0; i < aggs_.size(); i++) {
        if (aggs_[i]) {
          aggs_[i]->Reset();
          row_->value[i] = Value();
        }
      }
    }
    for (size_t i = 0; i < aggs_.size(); i++) {
      if (!aggs_[i]) {
        row_->value[i] = kv.value[i];  // key columns
        continue;
      }
      if (IsAdd(kv.kind)) {
        TRIB_ASSIGN_OR_RETURN(row_->value[i], aggs_[i]->Agg(row_->value[i], kv.value[i]));
      } else if (!c_->ignore_retract[i]) {
        auto r = aggs_[i]->Retract(row_->value[i], kv.value[i]);
        if (!r.ok()) return r.status().WithContext("column '" + std::to_string(i) + "'");
        row_->value[i] = *r;
      }
    }
    return Status::OK();
  }

  std::optional<KeyValue> Result() override {
    if (!row_) return std::nullopt;
    KeyValue r = *row_;
    r.kind = removed_ ? RowKind::kDelete : RowKind::kInsert;
    return r;
  }

  void PrepareInput(KeyValue* kv) const override {
    for (int f : c_->count_fields) {
      kv->value[f] = Value::Int(kv->value[f].is_null() ? 0 : 1);
    }
  }

 private:
  std::shared_ptr<const MergeConfig> c_;
  std::vector<std::unique_ptr<FieldAggregator>> aggs_;
  std::optional<KeyValue> row_;
  bool removed_ = false;
};

// partial-update: the latest non-null value of each column wins; sequence groups order their
// columns independently (and may aggregate).
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
      row_->write_mask = UnionMask(row_->write_mask, kv.write_mask);
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

// Lookup tables ('changelog-producer' = 'lookup'): a key's newest record above level 0 already
// holds every older record merged in (the lookup compaction wrote it so), so only it and the
// key's level-0 records are merged; older records above level 0 are stale copies. Records of a
// write buffer (level -1 in Paimon, 0 here) count as level 0. The merge runs in Complete, once
// the key's records are all in.
class LookupLevelsMerge : public MergeFunction {
 public:
  LookupLevelsMerge(std::shared_ptr<const MergeConfig> c, std::unique_ptr<MergeFunction> inner,
                    BelowLookup below)
      : order_(std::move(c)), inner_(std::move(inner)), below_(std::move(below)) {}

  void Reset() override {
    candidates_.clear();
    result_.reset();
  }
  Status Add(const KeyValue& kv) override {
    candidates_.push_back(kv);
    return Status::OK();
  }
  Status AddOwned(KeyValue&& kv) override {
    candidates_.push_back(std::move(kv));
    return Status::OK();
  }
  void PrepareInput(KeyValue* kv) const override { inner_->PrepareInput(kv); }

  Status Complete() override {
    result_.reset();
    if (candidates_.empty()) return Status::OK();
    int high = HighLevel();
    bool level0 = std::any_of(candidates_.begin(), candidates_.end(),
                              [](const KeyValue& kv) { return kv.level <= 0; });
    if (high < 0 && level0 && below_) {
      // The key's whole value so far lies below the merged levels: merge the new records into it.
      TRIB_ASSIGN_OR_RETURN(std::optional<KeyValue> found, below_(candidates_[0].value));
      if (found) {
        auto at = std::find_if(candidates_.begin(), candidates_.end(), [&](const KeyValue& kv) {
          return order_.Compare(kv, *found) > 0;
        });
        high = static_cast<int>(at - candidates_.begin());
        candidates_.insert(at, std::move(*found));
      }
    }
    inner_->Reset();
    for (size_t i = 0; i < candidates_.size(); i++) {
      if (candidates_[i].level <= 0 || static_cast<int>(i) == high) {
        TRIB_RETURN_NOT_OK(inner_->AddOwned(std::move(candidates_[i])));
      }
    }
    TRIB_RETURN_NOT_OK(inner_->Complete());
    result_ = inner_->TakeResult();
    return Status::OK();
  }
  std::optional<KeyValue> Result() override { return result_; }
  std::optional<KeyValue> TakeResult() override {
    std::optional<KeyValue> r = std::move(result_);
    result_.reset();
    return r;
  }

 private:
  // The newest record above level 0 (the lowest such level), or -1.
  int HighLevel() const {
    int best = -1;
    for (size_t i = 0; i < candidates_.size(); i++) {
      int32_t l = candidates_[i].level;
      if (l > 0 && (best < 0 || l < candidates_[best].level)) best = static_cast<int>(i);
    }
    return best;
  }

  SequenceOrder order_;
  std::unique_ptr<MergeFunction> inner_;
  BelowLookup below_;
  std::vector<KeyValue> candidates_;
  std::optional<KeyValue> result_;
};

}  // namespace

Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(std::shared_ptr<const MergeConfig> c,
                                                         const TableSchema& schema,
                                                         BelowLookup below) {
  if (!c->lookup_levels) return MakeEngineMergeFunction(std::move(c), schema);
  TRIB_ASSIGN_OR_RETURN(auto inner, MakeEngineMergeFunction(c, schema));
  return std::unique_ptr<MergeFunction>(
      new LookupLevelsMerge(c, std::move(inner), std::move(below)));
}

Result<std::unique_ptr<MergeFunction>> MakeEngineMergeFunction(
    std::shared_ptr<const MergeConfig> c, const TableSchema& schema) {
  std::vector<std::string> names;
  std::vector<DataType> types;
  for (const auto& f : schema.fields) {
    names.push_back(f.name);
    types.push_back(f.type);
  }
  using P = std::unique_ptr<MergeFunction>;
  if (c->engine == "deduplicate") return P(new DeduplicateMergeFunction(std::move(c)));
  if (c->engine == "first-row") return P(new FirstRowMergeFunction(std::move(c)));
  TRIB_ASSIGN_OR_RETURN(auto aggs, MakeAggregators(*c, names, types));
  if (c->engine == "aggregation") {
    return P(new AggregateMergeFunction(std::move(c), std::move(aggs)));
  }
  return P(new PartialUpdateMergeFunction(std::move(c), std::move(aggs)));
}

Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const TableSchema& schema) {
  TRIB_ASSIGN_OR_RETURN(auto config, MergeConfig::Make(schema));
  return MakeMergeFunction(std::move(config), schema);
}

}  // namespace tributary::merge
