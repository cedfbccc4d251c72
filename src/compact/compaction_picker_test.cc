#include "compact/compaction_picker.h"

#include <gtest/gtest.h>

namespace tributary::compact {
namespace {

meta::DataFileMeta File(int level, int64_t size, int64_t seq) {
  meta::DataFileMeta f;
  f.file_name = "f" + std::to_string(seq);
  f.level = level;
  f.file_size = size;
  f.max_sequence_number = seq;
  return f;
}

TEST(UniversalCompactionPickerTest, NothingBelowTrigger) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  auto runs = BuildSortedRuns({File(0, 10, 1), File(0, 10, 2), File(5, 1000, 0)});
  EXPECT_FALSE(p.Pick(runs).has_value());
}

TEST(UniversalCompactionPickerTest, SizeAmplificationCompactsEverything) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  std::vector<meta::DataFileMeta> files;
  for (int i = 1; i <= 5; i++) files.push_back(File(0, 100, i));
  files.push_back(File(5, 100, 0));
  auto unit = p.Pick(BuildSortedRuns(files));
  ASSERT_TRUE(unit.has_value());
  EXPECT_EQ(unit->output_level, 5);
  EXPECT_EQ(unit->files.size(), 6u);
}

TEST(UniversalCompactionPickerTest, SizeRatioPicksSimilarNewRunsAndNeverOutputsLevelZero) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  std::vector<meta::DataFileMeta> files;
  for (int i = 1; i <= 5; i++) files.push_back(File(0, 1, i));
  files.push_back(File(5, 100000, 0));
  auto unit = p.Pick(BuildSortedRuns(files));
  ASSERT_TRUE(unit.has_value());
  EXPECT_EQ(unit->output_level, 4);  // one below the oldest run's level
  EXPECT_EQ(unit->files.size(), 5u);
}

// Too many runs: the newest are merged so that trigger - 1 remain, and the size ratio takes the
// runs after them along while they are not much bigger (Paimon's rule). Without that, a steady
// stream of small commits merged level 0 into level 1 alone every time, level 1 growing far
// past level 2 and rewritten whole at each commit (quadratic write amplification).
TEST(UniversalCompactionPickerTest, RunCountTriggerTakesAlongWhatTheSizeRatioAllows) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  auto u = p.Pick(BuildSortedRuns({File(0, 10, 6), File(1, 90, 5), File(2, 100, 4),
                                   File(3, 1000, 3), File(4, 10000, 2), File(5, 100000, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->files.size(), 3u);  // level 0, level 1 and level 2
  EXPECT_EQ(u->output_level, 2);   // one below level 3
  // Once due, level-0 and level-1 runs come along whatever their size.
  u = p.Pick(BuildSortedRuns({File(0, 10, 7), File(0, 10, 6), File(1, 5000, 5), File(2, 6000, 4),
                              File(3, 7000, 3), File(5, 100000, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->files.size(), 3u);
  EXPECT_EQ(u->output_level, 1);
}

TEST(UniversalCompactionPickerTest, FullCompactionIsNoOpOnOneTopRun) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  EXPECT_FALSE(p.PickFull(BuildSortedRuns({File(5, 10, 1)})).has_value());
  auto u = p.PickFull(BuildSortedRuns({File(0, 10, 2), File(5, 10, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->files.size(), 2u);
}

// Deletion-vector tables push every level-0 file up even below the run trigger: Java's golden
// shape [L0, L5] with a small level-0 file goes to level 4, one above the top run.
TEST(UniversalCompactionPickerTest, ForceLevel0TakesEveryLevel0RunNeverOutputsLevel0) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  EXPECT_FALSE(p.PickForceLevel0(BuildSortedRuns({File(5, 10, 1)})).has_value());
  auto u = p.PickForceLevel0(BuildSortedRuns({File(0, 10, 2), File(5, 1000, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->output_level, 4);
  ASSERT_EQ(u->files.size(), 1u);
  EXPECT_EQ(u->files[0].file_name, "f2");
  ASSERT_EQ(u->below.size(), 1u);
  // Two level-0 runs, the next run (level 1) no bigger than both: taken along, out to level 1
  // at least; a bucket of level-0 files only goes to the top.
  u = p.PickForceLevel0(
      BuildSortedRuns({File(0, 10, 3), File(0, 10, 4), File(1, 15, 2), File(5, 1000, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->output_level, 4);
  EXPECT_EQ(u->files.size(), 3u);
  // A level-1 run joins a merge that is due whatever its size (Paimon's rule); the output goes
  // one below the next run.
  u = p.PickForceLevel0(BuildSortedRuns({File(0, 10, 3), File(1, 1000, 2), File(5, 5000, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->output_level, 4);
  EXPECT_EQ(u->files.size(), 2u);
  u = p.PickForceLevel0(BuildSortedRuns({File(0, 10, 3), File(0, 10, 4)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->output_level, 5);
}

TEST(UniversalCompactionPickerTest, FullWithVectorsRewritesOneTopRunThatHasVectors) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  auto has = [](const meta::DataFileMeta& f) { return f.file_name == "f2"; };
  auto u = p.PickFullWithVectors(BuildSortedRuns({File(5, 10, 1), File(5, 10, 2)}), has);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->files.size(), 2u);
  EXPECT_EQ(u->output_level, 5);
  EXPECT_FALSE(p.PickFullWithVectors(BuildSortedRuns({File(5, 10, 1)}), has).has_value());
  u = p.PickFullWithVectors(BuildSortedRuns({File(0, 10, 3), File(5, 10, 1)}), has);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->files.size(), 2u);
}

}  // namespace
}  // namespace tributary::compact
