#include "merge/sort_merge_reader.h"

namespace tributary::merge {

LoserTree::LoserTree(std::vector<std::unique_ptr<RecordSource>> sources, const KeyComparator* cmp,
                     const SequenceOrder* order)
    : sources_(std::move(sources)), cmp_(cmp), order_(order) {
  k_ = static_cast<int>(sources_.size());
  heads_.resize(k_);
  live_.assign(k_, false);
  tree_.assign(std::max(k_, 1), -1);
}

bool LoserTree::Beats(int a, int b) const {
  // -1 is the sentinel used while building: it beats everything.
  if (a == -1) return true;
  if (b == -1) return false;
  if (!live_[a]) return false;
  if (!live_[b]) return true;
  int c = cmp_->Compare(heads_[a].value, heads_[b].value);
  if (c != 0) return c < 0;
  c = order_->Compare(heads_[a], heads_[b]);
  if (c != 0) return c < 0;
  return a < b;
}

void LoserTree::Adjust(int s) {
  int t = (s + k_) / 2;
  while (t > 0) {
    if (Beats(tree_[t], s)) std::swap(s, tree_[t]);
    t /= 2;
  }
  tree_[0] = s;
}

Status LoserTree::Init() {
  for (int i = 0; i < k_; i++) {
    TRIB_ASSIGN_OR_RETURN(bool has, sources_[i]->Next(&heads_[i]));
    live_[i] = has;
  }
  if (k_ == 0) return Status::OK();
  std::fill(tree_.begin(), tree_.end(), -1);
  for (int i = k_ - 1; i >= 0; i--) Adjust(i);
  return Status::OK();
}

const KeyValue* LoserTree::Top() const {
  if (k_ == 0) return nullptr;
  int w = tree_[0];
  if (w < 0 || !live_[w]) return nullptr;
  return &heads_[w];
}

Status LoserTree::Pop(KeyValue* out) {
  int w = tree_[0];
  *out = std::move(heads_[w]);
  TRIB_ASSIGN_OR_RETURN(bool has, sources_[w]->Next(&heads_[w]));
  live_[w] = has;
  Adjust(w);
  return Status::OK();
}

SortMergeReader::SortMergeReader(std::vector<std::unique_ptr<RecordSource>> sources,
                                 KeyComparator cmp, SequenceOrder order, MergeFunction* merge)
    : cmp_(std::move(cmp)),
      order_(std::move(order)),
      tree_(std::move(sources), &cmp_, &order_),
      merge_(merge) {}

Result<bool> SortMergeReader::Next(KeyValue* out) {
  if (!initialized_) {
    TRIB_RETURN_NOT_OK(tree_.Init());
    initialized_ = true;
  }
  while (const KeyValue* top = tree_.Top()) {
    merge_->Reset();
    KeyValue kv;
    TRIB_RETURN_NOT_OK(tree_.Pop(&kv));
    const auto& cols = cmp_.key_columns();
    key_.resize(cols.size());  // reused: no allocation per key
    for (size_t i = 0; i < cols.size(); i++) key_[i] = kv.value[cols[i]];
    TRIB_RETURN_NOT_OK(merge_->AddOwned(std::move(kv)));
    while ((top = tree_.Top()) != nullptr) {
      bool same = true;
      for (size_t i = 0; i < cols.size(); i++) {
        if (FastCompare(top->value[cols[i]], key_[i]) != 0) {
          same = false;
          break;
        }
      }
      if (!same) break;
      TRIB_RETURN_NOT_OK(tree_.Pop(&kv));
      TRIB_RETURN_NOT_OK(merge_->AddOwned(std::move(kv)));
    }
    TRIB_RETURN_NOT_OK(merge_->Complete());
    std::optional<KeyValue> r = merge_->TakeResult();
    if (r) {
      *out = std::move(*r);
      return true;
    }
  }
  return false;
}

}  // namespace tributary::merge
