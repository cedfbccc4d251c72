#include "compact/compaction_picker.h"

#include <algorithm>
#include <map>

namespace tributary::compact {

std::vector<LevelSortedRun> BuildSortedRuns(const std::vector<meta::DataFileMeta>& files) {
  std::vector<LevelSortedRun> runs;
  std::vector<meta::DataFileMeta> l0;
  std::map<int32_t, std::vector<meta::DataFileMeta>> levels;
  for (const auto& f : files) {
    if (f.level == 0)
      l0.push_back(f);
    else
      levels[f.level].push_back(f);
  }
  std::sort(l0.begin(), l0.end(), [](const auto& a, const auto& b) {
    return a.max_sequence_number > b.max_sequence_number;
  });
  for (auto& f : l0) runs.push_back({0, {std::move(f)}});
  for (auto& [level, fs] : levels) runs.push_back({level, std::move(fs)});
  return runs;
}

std::optional<CompactUnit> UniversalCompactionPicker::MakeUnit(
    const std::vector<LevelSortedRun>& runs, size_t run_count) const {
  if (run_count == 0) return std::nullopt;
  int32_t output_level;
  if (run_count >= runs.size()) {
    output_level = max_level_;
    run_count = runs.size();
  } else {
    output_level = std::max(0, runs[run_count].level - 1);
  }
  if (output_level == 0) {
    // Never write level 0 from a compaction: take runs until one above level 0.
    for (; run_count < runs.size(); run_count++) {
      if (runs[run_count].level != 0) {
        output_level = runs[run_count].level;
        run_count++;
        break;
      }
    }
    if (output_level == 0) run_count = runs.size();
    // Everything taken: the output is the top level.
    if (run_count == runs.size()) output_level = max_level_;
  }
  if (run_count == 1 && runs[0].level == output_level) return std::nullopt;
  CompactUnit u;
  u.output_level = output_level;
  for (size_t i = 0; i < run_count; i++) {
    for (const auto& f : runs[i].files) u.files.push_back(f);
  }
  for (size_t i = run_count; i < runs.size(); i++) {
    for (const auto& f : runs[i].files) u.below.push_back(f);
  }
  return u;
}

std::optional<CompactUnit> UniversalCompactionPicker::Pick(
    const std::vector<LevelSortedRun>& runs) const {
  if (runs.size() < static_cast<size_t>(run_trigger_)) return std::nullopt;
  // 1. Size amplification: everything but the oldest run is too big relative to it.
  int64_t candidate = 0;
  for (size_t i = 0; i + 1 < runs.size(); i++) candidate += runs[i].TotalSize();
  int64_t earliest = runs.back().TotalSize();
  if (earliest > 0 && candidate * 100 > static_cast<int64_t>(max_size_amp_) * earliest) {
    return MakeUnit(runs, runs.size());
  }
  // 2. Size ratio: the newest run with the runs after it that are not much bigger.
  if (auto unit = SizeRatio(runs, 1, /*force=*/false)) return unit;
  // 3. Too many runs: the newest ones, so that `trigger - 1` remain, with what the size ratio
  // takes along.
  if (runs.size() > static_cast<size_t>(run_trigger_)) {
    return SizeRatio(runs, runs.size() - run_trigger_ + 1, /*force=*/false);
  }
  return std::nullopt;
}

std::optional<CompactUnit> UniversalCompactionPicker::SizeRatio(
    const std::vector<LevelSortedRun>& runs, size_t count, bool force) const {
  int64_t candidate = 0;
  for (size_t i = 0; i < count && i < runs.size(); i++) candidate += runs[i].TotalSize();
  // A merge is due once it takes two runs (or is forced); from then on the level-0 and level-1
  // runs after it come along whatever their size (Paimon's rule: they are the small ones that
  // would otherwise pile up behind a bigger level-1 run).
  bool due = force || count > 1;
  for (; count < runs.size(); count++) {
    const int64_t next = runs[count].TotalSize();
    if (static_cast<double>(candidate) * (100.0 + size_ratio_) / 100.0 <
            static_cast<double>(next) &&
        (!due || runs[count].level > 1)) {
      break;
    }
    candidate += next;
    due = true;
  }
  if (!due) return std::nullopt;
  return MakeUnit(runs, count);
}

std::optional<CompactUnit> UniversalCompactionPicker::PickForceLevel0(
    const std::vector<LevelSortedRun>& runs) const {
  size_t count = 0;
  while (count < runs.size() && runs[count].level == 0) count++;
  if (count == 0) return std::nullopt;
  return SizeRatio(runs, count, /*force=*/true);
}

std::optional<CompactUnit> UniversalCompactionPicker::PickFull(
    const std::vector<LevelSortedRun>& runs) const {
  if (runs.empty()) return std::nullopt;
  if (runs.size() == 1 && runs[0].level == max_level_) return std::nullopt;
  CompactUnit u;
  u.output_level = max_level_;
  for (const auto& r : runs) {
    for (const auto& f : r.files) u.files.push_back(f);
  }
  return u;
}

}  // namespace tributary::compact
