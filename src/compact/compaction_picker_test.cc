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

TEST(UniversalCompactionPickerTest, FullCompactionIsNoOpOnOneTopRun) {
  UniversalCompactionPicker p(200, 1, 5, 5);
  EXPECT_FALSE(p.PickFull(BuildSortedRuns({File(5, 10, 1)})).has_value());
  auto u = p.PickFull(BuildSortedRuns({File(0, 10, 2), File(5, 10, 1)}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->files.size(), 2u);
}

}  // namespace
}  // namespace tributary::compact
