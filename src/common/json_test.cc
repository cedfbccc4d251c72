#include "common/json.h"

#include <gtest/gtest.h>

namespace tributary {
namespace {

TEST(JsonTest, DepthIsBounded) {
  EXPECT_TRUE(CheckJsonDepth(Json::parse("[[1], {\"a\": [2]}]"), 3).ok());
  EXPECT_FALSE(CheckJsonDepth(Json::parse("[[1], {\"a\": [2]}]"), 2).ok());
  EXPECT_TRUE(CheckJsonDepth(Json::parse("7"), 1).ok());
  // A document nested far deeper than any metadata: refused without recursing over it.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto parsed = ParseJson(deep, "schema-0");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("schema-0"), std::string::npos);
  EXPECT_NE(parsed.status().message().find("nested"), std::string::npos);
}

}  // namespace
}  // namespace tributary
