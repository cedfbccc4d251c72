#include "merge/deduplicate.h"

#include <algorithm>

#include "merge/merge_config.h"
#include "merge/merge_function.h"

namespace tributary::merge {
namespace {

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
      if (mask[i] && !c_->IsKey(static_cast<int>(i))) {
        l.value[i] = IsAdd(kv.kind) ? kv.value[i] : Value();
      }
    }
    if (IsAdd(kv.kind)) {
      l.kind = kv.kind;
    } else if (!l.write_mask) {
      // A partial delete removes the row only when every non-key column is now NULL.
      bool empty = true;
      for (size_t i = 0; i < l.value.size(); i++) {
        if (!c_->IsKey(static_cast<int>(i)) && !l.value[i].is_null()) empty = false;
      }
      l.kind = empty ? RowKind::kDelete : RowKind::kInsert;
    }
    if (l.write_mask) l.write_mask = UnionWriteMask(l.write_mask, kv.write_mask);
    return Status::OK();
  }
  std::optional<KeyValue> Result() override { return latest_; }

 private:
  std::shared_ptr<const MergeConfig> c_;
  std::optional<KeyValue> latest_;
};

// Two runs: the common bucket before a full compaction (new level-0 records over the top
// level), merged into sized arrays.
void DeduplicateTwoRuns(const KeyRun& a, const KeyRun& b, bool keep_retracts, RunWinners* w) {
  w->run_of.resize(a.size + b.size);
  w->pos_of.resize(a.size + b.size);
  uint32_t* wr = w->run_of.data();
  uint32_t* wp = w->pos_of.data();
  size_t out = 0, i = 0, j = 0;
  auto put = [&](uint32_t r, const KeyRun& run, size_t p) {
    wr[out] = r;
    wp[out] = static_cast<uint32_t>(p);
    out += keep_retracts || !IsRetract(static_cast<RowKind>(run.kinds[p]));
  };
  while (i < a.size && j < b.size) {
    if (a.keys[i] < b.keys[j]) {
      put(0, a, i++);
    } else if (b.keys[j] < a.keys[i]) {
      put(1, b, j++);
    } else {
      if (DeduplicateWins(b.seqs[j], a.seqs[i])) {
        put(1, b, j);
      } else {
        put(0, a, i);
      }
      i++;
      j++;
    }
  }
  for (; i < a.size; i++) put(0, a, i);
  for (; j < b.size; j++) put(1, b, j);
  w->run_of.resize(out);
  w->pos_of.resize(out);
}

}  // namespace

std::unique_ptr<MergeFunction> NewDeduplicateMerge(std::shared_ptr<const MergeConfig> config) {
  return std::make_unique<DeduplicateMergeFunction>(std::move(config));
}

RunWinners DeduplicateRuns(const std::vector<KeyRun>& runs, bool keep_retracts) {
  RunWinners w;
  if (runs.size() == 2) {
    DeduplicateTwoRuns(runs[0], runs[1], keep_retracts, &w);
    return w;
  }
  size_t total = 0;
  for (const KeyRun& r : runs) total += r.size;
  w.run_of.reserve(total);
  w.pos_of.reserve(total);
  auto take = [&](uint32_t r, size_t p) {
    if (keep_retracts || !IsRetract(static_cast<RowKind>(runs[r].kinds[p]))) {
      w.run_of.push_back(r);
      w.pos_of.push_back(static_cast<uint32_t>(p));
    }
  };
  std::vector<size_t> pos(runs.size(), 0);
  std::vector<uint32_t> live;  // runs not yet exhausted
  for (uint32_t r = 0; r < runs.size(); r++) {
    if (runs[r].size > 0) live.push_back(r);
  }
  while (live.size() > 1) {
    int64_t low = runs[live[0]].keys[pos[live[0]]];
    for (size_t i = 1; i < live.size(); i++) low = std::min(low, runs[live[i]].keys[pos[live[i]]]);
    // Of the runs at key `low`, the winner (runs are in merge order: a later one on ties).
    uint32_t best = UINT32_MAX;
    for (uint32_t r : live) {
      if (runs[r].keys[pos[r]] != low) continue;
      if (best == UINT32_MAX || DeduplicateWins(runs[r].seqs[pos[r]], runs[best].seqs[pos[best]])) {
        best = r;
      }
    }
    take(best, pos[best]);
    for (size_t i = 0; i < live.size();) {
      const uint32_t r = live[i];
      if (runs[r].keys[pos[r]] == low && ++pos[r] == runs[r].size) {
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        i++;
      }
    }
  }
  if (live.size() == 1) {
    const uint32_t r = live[0];
    for (size_t p = pos[r]; p < runs[r].size; p++) take(r, p);
  }
  return w;
}

}  // namespace tributary::merge
