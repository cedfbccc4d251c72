// SortMergeReader: merges sorted runs of KeyValues into one record per key. A loser tree picks the
// next record across the runs in (key, sequence, run) order, so each key's records reach the merge
// function oldest first; the merge function's result is returned.
// Thread-safety: single-threaded.
#pragma once

#include <memory>
#include <vector>

#include "merge/key_value.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"

namespace tributary::merge {

// A stream of KeyValues sorted by key (each key at most once per stream, or ascending sequence).
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual Result<bool> Next(KeyValue* out) = 0;
};

// A RecordSource over records held in memory. REQUIRES: sorted by key then sequence.
class VectorSource : public RecordSource {
 public:
  explicit VectorSource(std::vector<KeyValue> records) : records_(std::move(records)) {}
  Result<bool> Next(KeyValue* out) override {
    if (pos_ >= records_.size()) return false;
    *out = std::move(records_[pos_++]);
    return true;
  }

 private:
  std::vector<KeyValue> records_;
  size_t pos_ = 0;
};

// Loser tree over k sources, in (key, SequenceOrder) order; source order breaks remaining ties
// (a later source is newer).
class LoserTree {
 public:
  LoserTree(std::vector<std::unique_ptr<RecordSource>> sources, const KeyComparator* cmp,
            const SequenceOrder* order);
  Status Init();
  // The current smallest record, or nullptr when every source is exhausted.
  const KeyValue* Top() const;
  // Moves the smallest record out and advances its source.
  Status Pop(KeyValue* out);

 private:
  bool Beats(int a, int b) const;  // true when a's record comes before b's
  void Adjust(int s);

  std::vector<std::unique_ptr<RecordSource>> sources_;
  const KeyComparator* cmp_;
  const SequenceOrder* order_;
  std::vector<KeyValue> heads_;
  std::vector<bool> live_;
  std::vector<int> tree_;  // tree_[0]: winner; tree_[1..k-1]: losers
  int k_ = 0;
};

class SortMergeReader {
 public:
  // `merge` is borrowed and must outlive the reader.
  SortMergeReader(std::vector<std::unique_ptr<RecordSource>> sources, KeyComparator cmp,
                  SequenceOrder order, MergeFunction* merge);
  // Next merged record (possibly a retraction: the caller decides whether to keep it).
  Result<bool> Next(KeyValue* out);

 private:
  KeyComparator cmp_;
  SequenceOrder order_;
  LoserTree tree_;
  MergeFunction* merge_;
  Row key_;  // the current key group's key
  bool initialized_ = false;
};

}  // namespace tributary::merge
