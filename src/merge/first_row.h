// The first-row merge engine: of a key's records in merge order the oldest wins and later ones
// are ignored; retractions are refused, or skipped with 'first-row.ignore-delete'. Its faces:
//   rows      NewFirstRowMerge (a MergeFunction: write buffer, row reads, compaction);
//   one key   FirstRowWinner (ColumnMergePlan: a key's records seen as column cells).
// Thread-safety: the functions are pure; a MergeFunction is one per merge.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "tributary/value.h"

namespace tributary::merge {

class MergeFunction;
struct MergeConfig;

// Rows: the engine's MergeFunction (a retraction without 'ignore-delete' is an error naming the
// option).
std::unique_ptr<MergeFunction> NewFirstRowMerge(std::shared_ptr<const MergeConfig> config);

// One key: of the records of one key in merge order (`g.size()`, `g.kind(m)`), the one kept
// (nullopt: none, only skipped retractions), or `needs_rows` when a retraction is among them
// and not skipped: the row merge then reports the error.
struct FirstRowPick {
  bool needs_rows = false;
  std::optional<size_t> record;
};
template <typename Group>
FirstRowPick FirstRowWinner(const Group& g, bool ignore_delete) {
  FirstRowPick pick;
  for (size_t m = 0; m < g.size(); m++) {
    if (IsRetract(g.kind(m))) {
      if (!ignore_delete) return FirstRowPick{true, std::nullopt};
    } else if (!pick.record) {
      pick.record = m;
    }
  }
  return pick;
}

}  // namespace tributary::merge
