// The deduplicate merge engine (and versioned, which is deduplicate ordered by its version
// column): of a key's records in merge order the newest wins, and a retraction as the newest
// removes the key. Its three faces, which every path merging deduplicate records uses:
//   rows          NewDeduplicateMerge (a MergeFunction: write buffer, row reads, compaction);
//   one key       DeduplicateWinner (ColumnMergePlan: a key's records seen as column cells);
//   sorted runs   DeduplicateRuns (the merged column reads of datafile/: files of integer keys).
// Thread-safety: the functions are pure; a MergeFunction is one per merge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tributary/value.h"

namespace tributary::merge {

class MergeFunction;
struct MergeConfig;

// Of two records of one key, `later` coming after `earlier` in merge order (a later file, or
// later in the same file): whether the later one wins. The higher sequence number wins and the
// later record on ties.
inline bool DeduplicateWins(int64_t later_seq, int64_t earlier_seq) {
  return later_seq >= earlier_seq;
}

// Rows: the engine's MergeFunction. Records of static partial-column writes (a write mask)
// replace only the columns they wrote.
std::unique_ptr<MergeFunction> NewDeduplicateMerge(std::shared_ptr<const MergeConfig> config);

// One key: of the records of one key in merge order (`g.size()`, `g.kind(m)`), the one the
// merge keeps, or nullopt when the key is gone. With `ignore_delete` retractions are skipped as
// if absent; a winning retraction is kept only with `keep_retracts` (a compaction below the top
// level, where older records of the key may lie further down).
template <typename Group>
std::optional<size_t> DeduplicateWinner(const Group& g, bool ignore_delete, bool keep_retracts) {
  for (size_t m = g.size(); m > 0; m--) {
    const RowKind kind = g.kind(m - 1);
    if (ignore_delete && IsRetract(kind)) continue;
    if (IsRetract(kind) && !keep_retracts) return std::nullopt;
    return m - 1;
  }
  return std::nullopt;
}

// Sorted runs: one file's records sorted by an integer key (a key once per run), with their
// sequence numbers and row kinds.
struct KeyRun {
  const int64_t* keys = nullptr;
  const int64_t* seqs = nullptr;
  const int64_t* kinds = nullptr;
  size_t size = 0;
};
// The record each key keeps, in key order: run run_of[w], position pos_of[w].
struct RunWinners {
  std::vector<uint32_t> run_of, pos_of;
  size_t size() const { return run_of.size(); }
};
// Merges runs given in merge order (a later run wins ties of sequence numbers); a winning
// retraction is kept only with `keep_retracts`.
RunWinners DeduplicateRuns(const std::vector<KeyRun>& runs, bool keep_retracts);

}  // namespace tributary::merge
