#include "format/binary_row.h"

#include <gtest/gtest.h>

namespace tributary::format {
namespace {

std::string Hex(const std::string& s) {
  static const char* k = "0123456789abcdef";
  std::string o;
  for (unsigned char c : s) {
    o += k[c >> 4];
    o += k[c & 15];
  }
  return o;
}

TEST(BinaryRowTest, UnpartitionedIsArityZeroPlusHeader) {
  EXPECT_EQ(Hex(SerializeBinaryRow({}, {})), "000000000000000000000000");
}

TEST(BinaryRowTest, TrimmedKeyMatchesJavaBytes) {
  // PAIMON_FORMAT.md 1.5: (f0 = "Alice", f2 = 1).
  std::string s = SerializeBinaryRow({DataType::String(), DataType::Int()},
                                     {Value::String("Alice"), Value::Int(1)});
  EXPECT_EQ(Hex(s),
            "00000002"
            "0000000000000000"
            "416c696365000085"
            "0100000000000000");
}

TEST(BinaryRowTest, InlineStringMark) {
  std::string s = EncodeBinaryRow({DataType::String()}, {Value::String("name-5")});
  EXPECT_EQ(Hex(s.substr(8)), "6e616d652d350086");
}

TEST(BinaryRowTest, RoundTripsEveryType) {
  std::vector<DataType> types = {
      DataType::Boolean(), DataType::TinyInt(),      DataType::SmallInt(),
      DataType::Int(),     DataType::BigInt(),       DataType::Float(),
      DataType::Double(),  DataType::Decimal(10, 2), DataType::Decimal(30, 5),
      DataType::String(),  DataType::Bytes(),        DataType::Date(),
      DataType::Time(),    DataType::Timestamp(3),   DataType::Timestamp(9),
      DataType::String()};
  Row row = {Value::Bool(true),
             Value::Int(-5),
             Value::Int(-300),
             Value::Int(123456),
             Value::Int(-9876543210LL),
             Value::Double(1.5),
             Value::Double(-2.25),
             Value::Dec({12345}),
             Value::Dec({-(static_cast<__int128>(1) << 100)}),
             Value::String("a longer string than seven"),
             Value::String(std::string("\0\1\2", 3)),
             Value::Int(19000),
             Value::Int(3600000),
             Value::Ts({1700000000123LL, 0}),
             Value::Ts({-1000, 999999}),
             Value()};
  auto back = DeserializeBinaryRow(SerializeBinaryRow(types, row), types);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, row);
}

TEST(BinaryRowTest, TruncatedIsCorruption) {
  std::string s = SerializeBinaryRow({DataType::BigInt()}, {Value::Int(1)});
  auto r = DeserializeBinaryRow(s.substr(0, s.size() - 3), {DataType::BigInt()});
  EXPECT_FALSE(r.ok());
}

TEST(BucketTest, MatchesJavaFixedBucketVectors) {
  // FixedBucketRowKeyExtractorTest#testBucket: row (5, 6, 7), 100 buckets.
  auto b = [](std::vector<DataType> t, Row r) { return BucketOf(HashRow(t, r), 100); };
  EXPECT_EQ(b({DataType::Int()}, {Value::Int(5)}), 96);
  EXPECT_EQ(b({DataType::Int(), DataType::Int()}, {Value::Int(5), Value::Int(6)}), 27);
  EXPECT_EQ(b({DataType::Int(), DataType::Int(), DataType::Int()},
              {Value::Int(5), Value::Int(6), Value::Int(7)}),
            40);
  EXPECT_EQ(BucketOf(HashRow({DataType::Int()}, {Value::Int(0)}), 2), 1);
  EXPECT_EQ(BucketOf(HashRow({DataType::Int()}, {Value::Int(1)}), 2), 0);
}

}  // namespace
}  // namespace tributary::format
