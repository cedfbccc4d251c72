// UniversalCompactionPicker: decides which sorted runs of one bucket to merge, with Paimon's
// universal-compaction policy (size amplification first, then size ratio, then the run-count
// trigger). Pure policy: no I/O, testable alone (rocksdb's compaction_picker_universal).
// Thread-safety: immutable after construction.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "meta/manifest.h"

namespace tributary::compact {

// One sorted run: a level-0 file, or all files of a level >= 1.
struct LevelSortedRun {
  int32_t level = 0;
  std::vector<meta::DataFileMeta> files;
  int64_t TotalSize() const {
    int64_t s = 0;
    for (const auto& f : files) s += f.file_size;
    return s;
  }
};

struct CompactUnit {
  int32_t output_level = 0;
  std::vector<meta::DataFileMeta> files;
  // The bucket's files below the output level, left as they are (a lookup table's compaction
  // looks keys up in them).
  std::vector<meta::DataFileMeta> below;
};

// Orders a bucket's files into runs: level-0 files newest first, then levels ascending.
std::vector<LevelSortedRun> BuildSortedRuns(const std::vector<meta::DataFileMeta>& files);

class UniversalCompactionPicker {
 public:
  UniversalCompactionPicker(int max_size_amp_percent, int size_ratio_percent, int run_trigger,
                            int max_level)
      : max_size_amp_(max_size_amp_percent),
        size_ratio_(size_ratio_percent),
        run_trigger_(run_trigger),
        max_level_(max_level) {}

  // The runs to merge now, or nullopt when the bucket is in shape.
  std::optional<CompactUnit> Pick(const std::vector<LevelSortedRun>& runs) const;
  // Everything into the last level (CALL sys.compact); nullopt when already one run at the top.
  std::optional<CompactUnit> PickFull(const std::vector<LevelSortedRun>& runs) const;
  // Deletion-vector tables (Paimon's ForceUpLevel0Compaction): when Pick finds nothing, every
  // level-0 run is still merged up (batch reads see no level-0 file), with the runs after them
  // the size ratio takes along; never into level 0. Nullopt when there is no level-0 file.
  std::optional<CompactUnit> PickForceLevel0(const std::vector<LevelSortedRun>& runs) const;
  // PickFull of a deletion-vector table: a bucket that is one run at the top already is
  // rewritten too when one of its files has a deletion vector (`has_vector`), to drop the rows
  // it deletes. (Paimon rewrites only those files; a subset of a run rewritten into one output
  // could overlap the files left, so the whole run is.)
  template <typename HasVector>
  std::optional<CompactUnit> PickFullWithVectors(const std::vector<LevelSortedRun>& runs,
                                                 const HasVector& has_vector) const {
    if (runs.size() != 1 || runs[0].level != max_level_) return PickFull(runs);
    if (std::none_of(runs[0].files.begin(), runs[0].files.end(), has_vector)) return std::nullopt;
    CompactUnit u;
    u.output_level = max_level_;
    u.files = runs[0].files;
    return u;
  }
  int max_level() const { return max_level_; }

 private:
  std::optional<CompactUnit> MakeUnit(const std::vector<LevelSortedRun>& runs,
                                      size_t run_count) const;
  // Paimon's pickForSizeRatio: the first `count` runs and the runs after them while the next is
  // not much bigger than those taken; nullopt when that is one run and `force` is false.
  std::optional<CompactUnit> SizeRatio(const std::vector<LevelSortedRun>& runs, size_t count,
                                       bool force) const;
  int max_size_amp_;
  int size_ratio_;
  int run_trigger_;
  int max_level_;
};

}  // namespace tributary::compact
