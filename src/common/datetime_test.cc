#include "common/datetime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/check_value.h"

namespace tributary {
namespace {

using ::testing::HasSubstr;

TEST(DateTimeRangeTest, ConstantsAreTheEndsOfYears0000To9999) {
  EXPECT_EQ(kMinDate, DaysFromCivil(0, 1, 1));
  EXPECT_EQ(kMaxDate, DaysFromCivil(9999, 12, 31));
  EXPECT_EQ(FormatDate(kMinDate), "0000-01-01");
  EXPECT_EQ(FormatDate(kMaxDate), "9999-12-31");
  EXPECT_EQ(FormatTimestamp({kMinTimestampMillis, 0}), "0000-01-01 00:00:00");
  EXPECT_EQ(FormatTimestamp({kMaxTimestampMillis, 999999}), "9999-12-31 23:59:59.999999999");
  EXPECT_TRUE(DateInRange(kMinDate) && DateInRange(kMaxDate));
  EXPECT_FALSE(DateInRange(kMinDate - 1) || DateInRange(kMaxDate + 1));
  EXPECT_FALSE(DateInRange(4294967297));  // 1970-01-02 once truncated to 32 bits
  EXPECT_TRUE(TimestampInRange({kMaxTimestampMillis, 999999}));
  EXPECT_FALSE(TimestampInRange({kMaxTimestampMillis + 1, 0}));
  EXPECT_FALSE(TimestampInRange({kMinTimestampMillis - 1, 999999}));
}

TEST(DateTimeRangeTest, ParseDateChecksTheYear) {
  EXPECT_EQ(*ParseDate("0000-01-01"), kMinDate);
  EXPECT_EQ(*ParseDate("9999-12-31"), kMaxDate);
  for (const char* text : {"10000-01-01", "99999999-01-01", "-0001-12-31", "-0000-01-01"}) {
    auto r = ParseDate(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(IsOutOfRange(r.status())) << r.status().message();
    EXPECT_EQ(r.status().message(),
              "date '" + std::string(text) + "' is out of range (0000-01-01 to 9999-12-31)");
  }
  // Malformed text is not a range error.
  for (const char* text : {"abc", "2024-13-01", "999999999999-01-01", "2024-02-30"}) {
    auto r = ParseDate(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_FALSE(IsOutOfRange(r.status())) << r.status().message();
  }
}

TEST(DateTimeRangeTest, ParseTimestampChecksTheYear) {
  EXPECT_EQ(*ParseTimestamp("0000-01-01 00:00:00"), (Timestamp{kMinTimestampMillis, 0}));
  EXPECT_EQ(*ParseTimestamp("9999-12-31T23:59:59.999999999"),
            (Timestamp{kMaxTimestampMillis, 999999}));
  auto r = ParseTimestamp("10000-01-01 00:00:00");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsOutOfRange(r.status()));
  EXPECT_EQ(r.status().message(),
            "timestamp '10000-01-01 00:00:00' is out of range (0000-01-01 00:00:00 to "
            "9999-12-31 23:59:59.999999999)");
  EXPECT_FALSE(IsOutOfRange(ParseTimestamp("2024-01-01 25:00:00").status()));
  EXPECT_FALSE(IsOutOfRange(Status::Invalid("value 5 is out of range for TINYINT")));
}

TEST(DateTimeRangeTest, OutOfRangeErrorsNameTheValue) {
  EXPECT_EQ(DateOutOfRange("DATE 4294967297").message(),
            "DATE 4294967297 is out of range (0000-01-01 to 9999-12-31)");
  EXPECT_TRUE(IsOutOfRange(DateOutOfRange("x")));
  EXPECT_TRUE(IsOutOfRange(TimestampOutOfRange("x")));
}

// CheckValue, the last check before a data file, refuses what a producer missed.
TEST(DateTimeRangeTest, CheckValueRefusesValuesOutsideTheRange) {
  const Field date{0, "dt", DataType::Date(), ""};
  const Field time{1, "tm", DataType::Time(), ""};
  const Field ts{2, "ts", DataType::Timestamp(9), ""};
  const Field ltz{3, "ltz", DataType::TimestampLtz(3), ""};
  EXPECT_TRUE(CheckValue(Value::Int(kMinDate), date).ok());
  EXPECT_TRUE(CheckValue(Value::Int(kMaxDate), date).ok());
  EXPECT_THAT(CheckValue(Value::Int(4294967297), date).message(),
              HasSubstr("column 'dt' (DATE): DATE 4294967297 (days since 1970-01-01) is out of "
                        "range (0000-01-01 to 9999-12-31)"));
  EXPECT_TRUE(CheckValue(Value::Int(86399999), time).ok());
  EXPECT_FALSE(CheckValue(Value::Int(86400000), time).ok());
  EXPECT_FALSE(CheckValue(Value::Int(-1), time).ok());
  EXPECT_TRUE(CheckValue(Value::Ts({kMaxTimestampMillis, 999999}), ts).ok());
  EXPECT_THAT(CheckValue(Value::Ts({kMaxTimestampMillis + 1, 0}), ts).message(),
              HasSubstr("column 'ts' (TIMESTAMP(9)): TIMESTAMP 253402300800000"));
  EXPECT_FALSE(CheckValue(Value::Ts({INT64_MIN, 0}), ltz).ok());
}

}  // namespace
}  // namespace tributary
