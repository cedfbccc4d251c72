#include "table/auto_partition.h"

#include <gtest/gtest.h>

namespace tributary::table {
namespace {

// 2026-12-31 23:30:00 UTC.
constexpr int64_t kNow = 1798759800000;

std::string Value(const std::string& unit, int64_t offset, const std::string& zone = "UTC") {
  AutoPartitionRule r;
  r.unit = unit;
  r.time_zone = zone;
  auto v = AutoPartitionValue(r, kNow, offset);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? *v : "";
}

TEST(AutoPartitionTest, ValuesOfEachUnitAcrossTheYearEnd) {
  EXPECT_EQ(Value("HOUR", 0), "2026123123");
  EXPECT_EQ(Value("HOUR", 1), "2027010100");
  EXPECT_EQ(Value("HOUR", -24), "2026123023");
  EXPECT_EQ(Value("DAY", 0), "20261231");
  EXPECT_EQ(Value("DAY", 1), "20270101");
  EXPECT_EQ(Value("DAY", -365), "20251231");
  EXPECT_EQ(Value("MONTH", 0), "202612");
  EXPECT_EQ(Value("MONTH", 1), "202701");
  EXPECT_EQ(Value("MONTH", -12), "202512");
  EXPECT_EQ(Value("QUARTER", 0), "20264");
  EXPECT_EQ(Value("QUARTER", 1), "20271");
  EXPECT_EQ(Value("QUARTER", -4), "20254");
  EXPECT_EQ(Value("YEAR", 0), "2026");
  EXPECT_EQ(Value("YEAR", 1), "2027");
}

TEST(AutoPartitionTest, TheTimeZoneDecidesTheCurrentUnit) {
  // 23:30 UTC is already 07:30 on January 1st in Shanghai.
  EXPECT_EQ(Value("DAY", 0, "Asia/Shanghai"), "20270101");
  EXPECT_EQ(Value("HOUR", 0, "Asia/Shanghai"), "2027010107");
  EXPECT_EQ(Value("YEAR", 0, "America/New_York"), "2026");
}

}  // namespace
}  // namespace tributary::table
