#include "merge/first_row.h"

#include "merge/merge_config.h"
#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

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

}  // namespace

std::unique_ptr<MergeFunction> NewFirstRowMerge(std::shared_ptr<const MergeConfig> config) {
  return std::make_unique<FirstRowMergeFunction>(std::move(config));
}

}  // namespace tributary::merge
