// Paimon's bloom-filter file index (file_index.h). Expected values come from an independent
// implementation in Python of the rules in docs/research/paimon-file-index.md (Thomas Wang's mix,
// the filter's sizing and bit positions) and from python3-xxhash.
#include "format/file_index.h"

#include <gtest/gtest.h>

#include <random>

namespace tributary::format {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

TEST(FileIndexTest, HashesAsPaimon) {
  EXPECT_EQ(BloomFilterHashInt(0), 0x0u);
  EXPECT_EQ(BloomFilterHashInt(1), 0x5bca7c69b794f8ceu);
  EXPECT_EQ(BloomFilterHashInt(-1), 0x5bca868437950d03u);
  EXPECT_EQ(BloomFilterHashInt(42), 0xf3db82f1e7b6f7au);
  EXPECT_EQ(BloomFilterHashInt(1234567890123), 0x2331ba7f2269f7c6u);
  EXPECT_EQ(BloomFilterHashInt(-9876543210), 0x2e598e78dd3db38eu);
  EXPECT_EQ(BloomFilterHashBytes(""), 0xef46db3751d8e999u);
  EXPECT_EQ(BloomFilterHashBytes("a"), 0xd24ec4f1a98c6e5bu);
  EXPECT_EQ(BloomFilterHashBytes("hello world"), 0x45ab6734b21e6968u);
  // Values of each type hash their integer form, or their bytes.
  EXPECT_EQ(BloomFilterHash(Value::Int(42), DataType::Int()), BloomFilterHashInt(42));
  EXPECT_EQ(BloomFilterHash(Value::String("a"), DataType::String()), BloomFilterHashBytes("a"));
  EXPECT_EQ(BloomFilterHash(Value::Ts(Timestamp{1700000000123, 456000}), DataType::Timestamp(6)),
            BloomFilterHashInt(1700000000123LL * 1000 + 456));
  EXPECT_EQ(BloomFilterHash(Value::Ts(Timestamp{1700000000123, 456000}), DataType::Timestamp(3)),
            BloomFilterHashInt(1700000000123LL));
  EXPECT_FALSE(BloomFilterHash(Value::Null(), DataType::Int()).has_value());
  EXPECT_TRUE(BloomFilterSupports(DataType::String()));
  EXPECT_FALSE(BloomFilterSupports(DataType::Boolean()));
  EXPECT_FALSE(BloomFilterSupports(DataType::Decimal(10, 2)));
}

TEST(FileIndexTest, FiltersAreSizedAndFilledAsPaimon) {
  BloomFilter64 big(1000000, 0.1);
  EXPECT_EQ(big.num_bits(), 4792536);
  EXPECT_EQ(big.num_hash_functions(), 3);
  BloomFilter64 mid(1000, 0.01);
  EXPECT_EQ(mid.num_bits(), 9592);
  EXPECT_EQ(mid.num_hash_functions(), 7);
  BloomFilter64 small(100, 0.1);
  EXPECT_EQ(small.num_bits(), 480);
  for (int64_t v = 1; v <= 5; v++) small.AddHash(BloomFilterHashInt(v));
  small.AddHash(BloomFilterHashBytes("ann"));
  small.AddHash(BloomFilterHashBytes("bob"));
  EXPECT_EQ(Hex(small.Serialize()),
            "00000003000000000000020000400001000000000000880020000001012004000002000000004000000800"
            "000010000000108004000008000000000001204000");
  auto back = BloomFilter64::Parse(small.Serialize());
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->MightContainHash(BloomFilterHashBytes("bob")));
  EXPECT_TRUE(back->MightContainHash(BloomFilterHashInt(3)));
}

TEST(FileIndexTest, NoFalseNegativesAndFewFalsePositives) {
  BloomFilter64 f(10000, 0.01);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; i++) f.AddHash(BloomFilterHashInt(static_cast<int64_t>(i) * 7));
  for (int i = 0; i < 10000; i++) {
    ASSERT_TRUE(f.MightContainHash(BloomFilterHashInt(static_cast<int64_t>(i) * 7))) << i;
  }
  int false_positives = 0;
  for (int i = 0; i < 10000; i++) {
    false_positives += f.MightContainHash(BloomFilterHashInt(static_cast<int64_t>(i) * 7 + 3));
  }
  EXPECT_LT(false_positives, 300);  // about 1% expected
}

TEST(FileIndexTest, ContainerLayoutAndColumnOrderAsPaimon) {
  // Java's HashMap order: "a" (bucket 1), "b" (2), "id" (11), whatever the order given.
  EXPECT_EQ(JavaHashMapOrder({"id", "b", "a"}), (std::vector<std::string>{"a", "b", "id"}));
  const std::string bytes = SerializeFileIndex({{"id", {{"bloom-filter", "XYZ"}}}});
  // magic, version 1, head length 54, 1 column, "id", 1 index, "bloom-filter", start 54,
  // length 3, no redundant bytes, then the body.
  EXPECT_EQ(Hex(bytes),
            "00054e4ed01a35ae"
            "00000001"
            "00000036"
            "00000001"
            "00026964"
            "00000001"
            "000c626c6f6f6d2d66696c746572"
            "00000036"
            "00000003"
            "00000000"
            "58595a");
  auto parsed = ParseFileIndex(
      SerializeFileIndex({{"v", {{"bloom-filter", "12"}}}, {"id", {{"bloom-filter", "XYZ"}}}}),
      "data-1.parquet");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].column, "v");  // 'v' hashes to bucket 6, 'id' to 11: v first
  EXPECT_EQ((*parsed)[1].column, "id");
  ASSERT_EQ((*parsed)[1].indexes.size(), 1u);
  EXPECT_EQ((*parsed)[1].indexes[0].first, "bloom-filter");
  EXPECT_EQ((*parsed)[1].indexes[0].second, "XYZ");
  auto bad = ParseFileIndex(bytes.substr(0, 20), "data-1.parquet");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("data-1.parquet"), std::string::npos);
}

}  // namespace
}  // namespace tributary::format
