#include "merge/merge_function.h"

#include <algorithm>

#include "merge/aggregate.h"
#include "merge/deduplicate.h"
#include "merge/first_row.h"
#include "merge/partial_update.h"

namespace tributary::merge {
namespace {

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
        auto at = std::find_if(candidates_.begin(), candidates_.end(),
                               [&](const KeyValue& kv) { return order_.Compare(kv, *found) > 0; });
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

Result<std::unique_ptr<MergeFunction>> MakeEngineMergeFunction(std::shared_ptr<const MergeConfig> c,
                                                               const TableSchema& schema) {
  if (c->engine == "deduplicate") return NewDeduplicateMerge(std::move(c));
  if (c->engine == "first-row") return NewFirstRowMerge(std::move(c));
  TRIB_ASSIGN_OR_RETURN(auto aggs, MakeFieldAggregators(*c, schema.fields));
  if (c->engine == "aggregation") return NewAggregateMerge(std::move(c), std::move(aggs));
  return NewPartialUpdateMerge(std::move(c), std::move(aggs));
}

Result<std::unique_ptr<MergeFunction>> MakeMergeFunction(const TableSchema& schema) {
  TRIB_ASSIGN_OR_RETURN(auto config, MergeConfig::Make(schema));
  return MakeMergeFunction(std::move(config), schema);
}

}  // namespace tributary::merge
