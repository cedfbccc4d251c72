#include "merge/aggregate.h"

#include "merge/merge_config.h"
#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

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

}  // namespace

Result<std::vector<std::unique_ptr<FieldAggregator>>> MakeFieldAggregators(
    const MergeConfig& config, const std::vector<Field>& fields) {
  std::vector<std::unique_ptr<FieldAggregator>> out(config.aggregate.size());
  for (size_t i = 0; i < config.aggregate.size() && i < fields.size(); i++) {
    if (config.aggregate[i].empty()) continue;
    TRIB_ASSIGN_OR_RETURN(out[i], FieldAggregator::Make(config.aggregate[i], fields[i].name,
                                                        fields[i].type, config.list_delimiter[i]));
  }
  return out;
}

std::unique_ptr<MergeFunction> NewAggregateMerge(
    std::shared_ptr<const MergeConfig> config, std::vector<std::unique_ptr<FieldAggregator>> aggs) {
  return std::make_unique<AggregateMergeFunction>(std::move(config), std::move(aggs));
}

Result<AggregateColumns> AggregateColumns::Make(const MergeConfig& config,
                                                const std::vector<Field>& fields) {
  AggregateColumns a;
  TRIB_ASSIGN_OR_RETURN(auto aggs, MakeFieldAggregators(config, fields));
  a.aggs_.resize(fields.size());
  a.ignore_retract_.assign(fields.size(), false);
  a.acc_.resize(fields.size());
  for (size_t i = 0; i < fields.size() && i < aggs.size(); i++) {
    if (!aggs[i]) continue;
    a.aggs_[i] = std::move(aggs[i]);
    a.ignore_retract_[i] = i < config.ignore_retract.size() && config.ignore_retract[i];
  }
  return a;
}

}  // namespace tributary::merge
