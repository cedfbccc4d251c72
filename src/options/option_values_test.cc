#include "options/option_values.h"

#include <gtest/gtest.h>

namespace tributary::options {
namespace {

TEST(OptionValuesTest, MemorySize) {
  EXPECT_EQ(*ParseMemorySize("128 mb"), 128LL << 20);
  EXPECT_EQ(*ParseMemorySize("256MB"), 256LL << 20);
  EXPECT_EQ(*ParseMemorySize("1 gb"), 1LL << 30);
  EXPECT_EQ(*ParseMemorySize("64kb"), 64LL << 10);
  EXPECT_EQ(*ParseMemorySize("500 B"), 500);
  EXPECT_EQ(*ParseMemorySize("100"), 100);
  EXPECT_EQ(*ParseMemorySize(" 2 t "), 2LL << 40);
  EXPECT_EQ(*ParseMemorySize("3 mebibytes"), 3LL << 20);
  EXPECT_FALSE(ParseMemorySize("").ok());
  EXPECT_FALSE(ParseMemorySize("mb").ok());
  EXPECT_FALSE(ParseMemorySize("12 zb").ok());
  EXPECT_FALSE(ParseMemorySize("-1 mb").ok());
  EXPECT_FALSE(ParseMemorySize("99999999999999 tb").ok());
  EXPECT_NE(ParseMemorySize("12 zb").status().message().find("unknown unit 'zb'"),
            std::string::npos);
}

TEST(OptionValuesTest, Duration) {
  EXPECT_EQ(*ParseDurationMillis("1 h"), 3600000);
  EXPECT_EQ(*ParseDurationMillis("30 s"), 30000);
  EXPECT_EQ(*ParseDurationMillis("10 s"), 10000);
  EXPECT_EQ(*ParseDurationMillis("100ms"), 100);
  EXPECT_EQ(*ParseDurationMillis("60s"), 60000);
  EXPECT_EQ(*ParseDurationMillis("10 min"), 600000);
  EXPECT_EQ(*ParseDurationMillis("2 d"), 172800000);
  EXPECT_EQ(*ParseDurationMillis("2 DAYS"), 172800000);
  EXPECT_EQ(*ParseDurationMillis("1 hours"), 3600000);
  EXPECT_EQ(*ParseDurationMillis("500"), 500);
  EXPECT_EQ(*ParseDurationMillis("1500 us"), 1);
  EXPECT_EQ(*ParseDurationMillis("5 m"), 300000);
  EXPECT_FALSE(ParseDurationMillis("").ok());
  EXPECT_FALSE(ParseDurationMillis("fast").ok());
  EXPECT_FALSE(ParseDurationMillis("10 fortnights").ok());
  EXPECT_FALSE(ParseDurationMillis("1.5 h").ok());
}

TEST(OptionValuesTest, Bool) {
  bool b = false;
  EXPECT_TRUE(ParseBool("true", &b));
  EXPECT_TRUE(b);
  EXPECT_TRUE(ParseBool("FALSE", &b));
  EXPECT_FALSE(b);
  EXPECT_TRUE(ParseBool(" True ", &b));
  EXPECT_TRUE(b);
  EXPECT_FALSE(ParseBool("yes", &b));
  EXPECT_FALSE(ParseBool("1", &b));
  EXPECT_FALSE(ParseBool("", &b));
}

TEST(OptionValuesTest, Int64) {
  EXPECT_EQ(*ParseInt64("42"), 42);
  EXPECT_EQ(*ParseInt64("-1"), -1);
  EXPECT_EQ(*ParseInt64(" +7 "), 7);
  EXPECT_FALSE(ParseInt64("").ok());
  EXPECT_FALSE(ParseInt64("4x").ok());
  EXPECT_FALSE(ParseInt64("99999999999999999999").ok());
}

TEST(OptionValuesTest, EditDistance) {
  EXPECT_EQ(EditDistance("changelog-produce", "changelog-producer"), 1);
  EXPECT_EQ(EditDistance("fileds", "fields"), 1);  // one transposition
  EXPECT_EQ(EditDistance("BUCKET", "bucket"), 0);
  EXPECT_EQ(EditDistance("", "abc"), 3);
  EXPECT_EQ(EditDistance("aggregation-function", "aggregate-function"), 3);
}

TEST(OptionValuesTest, DidYouMean) {
  std::vector<std::string> keys = {"bucket", "bucket-key", "changelog-producer", "merge-engine"};
  EXPECT_EQ(DidYouMean("changelog-produce", keys), "changelog-producer");
  EXPECT_EQ(DidYouMean("merge-engin", keys), "merge-engine");
  EXPECT_EQ(DidYouMean("buckets", keys), "bucket");
  EXPECT_EQ(DidYouMean("bucket_key", keys), "bucket-key");
  EXPECT_EQ(DidYouMean("completely-different", keys), "");
  EXPECT_EQ(DidYouMean("zz", keys), "");
  EXPECT_EQ(DidYouMean("x", {}), "");
  EXPECT_EQ(DidYouMean("x", {"k"}), "");
  EXPECT_EQ(DidYouMean("stream", {"batch", "streaming"}), "streaming");
  EXPECT_EQ(DidYouMean("maximum", {"min", "max"}), "max");
}

}  // namespace
}  // namespace tributary::options
