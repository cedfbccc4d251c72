#include "common/evolution_cast.h"

#include <gtest/gtest.h>

#include "common/timezone.h"

namespace tributary {
namespace {

Value Ts(int64_t millis, int32_t nanos = 0) { return Value::Ts({millis, nanos}); }

TEST(EvolutionCastTest, TimestampsThroughTheSessionZone) {
  auto sh = TimeZone::Load("Asia/Shanghai");
  ASSERT_TRUE(sh.ok());
  const TimeZone* tz = &*sh;
  const DataType ts0 = DataType::Timestamp(0), ltz6 = DataType::TimestampLtz(6);
  // Wall clock 00:00:01 in Shanghai is 1969-12-31 16:00:01 UTC.
  EXPECT_EQ(*CastEvolvedValue(Ts(1000), ts0, DataType::Int(), tz), Value::Int(-28799));
  EXPECT_EQ(*CastEvolvedValue(Ts(1000), ts0, ltz6, tz), Ts(1000 - 28800000));
  // An instant: integers are its epoch seconds, wall-clock types render it in the zone.
  EXPECT_EQ(*CastEvolvedValue(Ts(2000), ltz6, DataType::BigInt(), tz), Value::Int(2));
  EXPECT_EQ(*CastEvolvedValue(Ts(2000), ltz6, DataType::Timestamp(6), tz), Ts(2000 + 28800000));
  EXPECT_EQ(*CastEvolvedValue(Ts(2), ltz6, DataType::String(), tz),
            Value::String("1970-01-01 08:00:00.002"));
  EXPECT_EQ(*CastEvolvedValue(Ts(-1000), ltz6, DataType::Date(), tz), Value::Int(0));
  EXPECT_EQ(*CastEvolvedValue(Value::Int(-1), DataType::Int(), ts0, tz), Ts(-1000 + 28800000));
  EXPECT_EQ(*CastEvolvedValue(Value::Int(-1), DataType::Int(), ltz6, tz), Ts(-1000));
  EXPECT_EQ(*CastEvolvedValue(Value::String("1970-01-01 08:00:00"), DataType::String(), ltz6, tz),
            Ts(0));
  // Without a zone: UTC.
  EXPECT_EQ(*CastEvolvedValue(Ts(1000), ts0, DataType::Int()), Value::Int(1));
  EXPECT_EQ(*CastEvolvedValue(Value::Null(), ts0, DataType::Int(), tz), Value::Null());
}

TEST(EvolutionCastTest, PrecisionChangesKeepTheInstant) {
  auto ny = TimeZone::Load("America/New_York");
  ASSERT_TRUE(ny.ok());
  // 2024-11-03 06:30 UTC is 01:30 EST, a wall-clock time New York sees twice: a precision change
  // of an LTZ column must not move it to the first 01:30 (EDT, 05:30 UTC).
  const int64_t instant = (20030 * 86400LL + 6 * 3600 + 1800) * 1000 + 123;
  auto v = CastEvolvedValue(Ts(instant, 456), DataType::TimestampLtz(9), DataType::TimestampLtz(3),
                            &*ny);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, Ts(instant));
}

}  // namespace
}  // namespace tributary

namespace tributary {
namespace {

DataType T(const std::string& text) { return *DataType::Parse(text); }

// What a data file stores must fit what its schema declares (hostile or hand-edited schemas).
TEST(StoredTypeFitsTest, SameKindNoWider) {
  EXPECT_TRUE(StoredTypeFits(T("INT"), T("INT")));
  EXPECT_TRUE(StoredTypeFits(T("SMALLINT"), T("BIGINT")));
  EXPECT_FALSE(StoredTypeFits(T("BIGINT"), T("INT")));  // values may not fit
  EXPECT_FALSE(StoredTypeFits(T("STRING"), T("DOUBLE")));
  EXPECT_FALSE(StoredTypeFits(T("DOUBLE"), T("STRING")));
  EXPECT_FALSE(StoredTypeFits(T("INT"), T("DATE")));
  EXPECT_TRUE(StoredTypeFits(T("FLOAT"), T("DOUBLE")));
  EXPECT_FALSE(StoredTypeFits(T("DOUBLE"), T("FLOAT")));
  EXPECT_TRUE(StoredTypeFits(T("STRING"), T("VARCHAR(10)")));
  EXPECT_TRUE(StoredTypeFits(T("BYTES"), T("BINARY(4)")));
  EXPECT_TRUE(StoredTypeFits(T("TIMESTAMP(6)"), T("TIMESTAMP_LTZ(3)")));
  EXPECT_TRUE(StoredTypeFits(T("DECIMAL(5, 2)"), T("DECIMAL(10, 2)")));
  EXPECT_FALSE(StoredTypeFits(T("DECIMAL(10, 2)"), T("DECIMAL(5, 2)")));
  EXPECT_FALSE(StoredTypeFits(T("DECIMAL(10, 4)"), T("DECIMAL(10, 2)")));
}

TEST(StoredTypeFitsTest, NestedAtEveryLevel) {
  EXPECT_TRUE(StoredTypeFits(T("ARRAY<INT>"), T("ARRAY<BIGINT>")));
  EXPECT_FALSE(StoredTypeFits(T("ARRAY<STRING>"), T("ARRAY<INT>")));
  EXPECT_FALSE(StoredTypeFits(T("INT"), T("ARRAY<INT>")));
  EXPECT_TRUE(StoredTypeFits(T("MAP<STRING, INT>"), T("MULTISET<STRING>")));
  EXPECT_FALSE(StoredTypeFits(T("MAP<STRING, ARRAY<INT>>"), T("MAP<STRING, ARRAY<STRING>>")));
  EXPECT_TRUE(StoredTypeFits(T("ROW<a INT, b STRING>"), T("ROW<x INT, y STRING>")));
  EXPECT_FALSE(StoredTypeFits(T("ROW<a INT>"), T("ROW<a INT, b STRING>")));
}

}  // namespace
}  // namespace tributary
