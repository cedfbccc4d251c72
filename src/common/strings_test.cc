#include "common/strings.h"

#include <gtest/gtest.h>

namespace tributary {
namespace {

TEST(Utf8Test, WellFormedSequences) {
  EXPECT_EQ(FindInvalidUtf8("plain ascii"), std::string_view::npos);
  EXPECT_EQ(FindInvalidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), std::string_view::npos);
  EXPECT_EQ(Utf8SequenceAt("\xe2\x82\xac", 0), 3u);
  EXPECT_EQ(Utf8SequenceAt("\xf4\x8f\xbf\xbf", 0), 4u);  // U+10FFFF
}

TEST(Utf8Test, IllFormedSequences) {
  EXPECT_EQ(FindInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(FindInvalidUtf8("\x80"), 0u);              // stray continuation byte
  EXPECT_EQ(FindInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("\xe0\x80\xaf"), 0u);      // overlong, three bytes
  EXPECT_EQ(FindInvalidUtf8("\xed\xa0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(FindInvalidUtf8("x\xe2\x82"), 1u);         // truncated
  EXPECT_EQ(FindInvalidUtf8("\xc3\xa9\xc3"), 2u);
}

}  // namespace
}  // namespace tributary
