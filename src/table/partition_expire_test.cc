#include "table/partition_expire.h"

#include <gtest/gtest.h>

namespace tributary::table {
namespace {

// Milliseconds of a local date-time, for expectations.
int64_t At(int64_t days, int64_t h = 0, int64_t m = 0, int64_t s = 0) {
  return days * 86400000 + ((h * 60 + m) * 60 + s) * 1000;
}

constexpr int64_t k20230101 = 19358;  // days from 1970-01-01

TEST(PartitionTimeTest, DefaultFormatterReadsDatesAndDateTimes) {
  EXPECT_EQ(ParsePartitionTime("2023-01-01", ""), At(k20230101));
  EXPECT_EQ(ParsePartitionTime("2023-1-1", ""), At(k20230101));
  EXPECT_EQ(ParsePartitionTime("2023-01-01 20:08:08", ""), At(k20230101, 20, 8, 8));
  EXPECT_EQ(ParsePartitionTime("2023-1-1 20:08:08", ""), At(k20230101, 20, 8, 8));
  EXPECT_EQ(ParsePartitionTime("2023-01-01 20:08:08.5", ""), At(k20230101, 20, 8, 8) + 500);
  EXPECT_EQ(ParsePartitionTime("20230101", ""), std::nullopt);
  EXPECT_EQ(ParsePartitionTime("2023-02-30", ""), std::nullopt);
  EXPECT_EQ(ParsePartitionTime("2023-01-01 25:00:00", ""), std::nullopt);
  EXPECT_EQ(ParsePartitionTime("2023-01-01x", ""), std::nullopt);
}

TEST(PartitionTimeTest, FormatterPatterns) {
  EXPECT_EQ(ParsePartitionTime("20230101", "yyyyMMdd"), At(k20230101));
  EXPECT_EQ(ParsePartitionTime("2023010105", "yyyyMMddHH"), At(k20230101, 5));
  EXPECT_EQ(ParsePartitionTime("2023/01/01 05:06", "yyyy/MM/dd HH:mm"), At(k20230101, 5, 6));
  EXPECT_EQ(ParsePartitionTime("2023-01-01T05", "yyyy-MM-dd'T'HH"), At(k20230101, 5));
  EXPECT_EQ(ParsePartitionTime("1.1.2023", "d.M.yyyy"), At(k20230101));
  EXPECT_EQ(ParsePartitionTime("unknown", "yyyyMMdd"), std::nullopt);
  EXPECT_EQ(ParsePartitionTime("202301", "yyyyMMdd"), std::nullopt);
  EXPECT_EQ(ParsePartitionTime("2023-01-01", "yyyyMMdd"), std::nullopt);
  // No day: not a date (Paimon's formatter cannot make a LocalDate of it either).
  EXPECT_EQ(ParsePartitionTime("202301", "yyyyMM"), std::nullopt);
}

TEST(PartitionTimeTest, UnsupportedFormatterLettersAreRefused) {
  EXPECT_TRUE(CheckTimestampFormatter("yyyy-MM-dd HH:mm:ss.SSS").ok());
  EXPECT_TRUE(CheckTimestampFormatter("yyyyMMdd'T'HH").ok());
  Status st = CheckTimestampFormatter("dd MMM yyyy");
  EXPECT_EQ(st.code(), StatusCode::kNotSupported) << st.ToString();
  EXPECT_NE(st.message().find("'MMM'"), std::string::npos) << st.ToString();
  EXPECT_FALSE(CheckTimestampFormatter("yyyy'T").ok());
}

}  // namespace
}  // namespace tributary::table
