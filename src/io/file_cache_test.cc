#include "io/file_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace tributary::io {
namespace {

// Loads `key` with `value` unless cached; returns what the cache hands out.
int Get(const std::string& key, int value, int* loads) {
  auto got = FileCache::Instance().GetOrLoad<int>(key, [&]() -> Result<std::pair<int, int64_t>> {
    ++*loads;
    return std::make_pair(value, int64_t{16});
  });
  EXPECT_TRUE(got.ok());
  return **got;
}

TEST(FileCacheTest, EraseFileDropsEveryEntryNamingTheFileAndNoOther) {
  const std::string dir = "/cache-test/t/bucket-0/";
  const std::string a = dir + "data-a.parquet", b = dir + "data-b.parquet";
  const std::vector<std::string> keys_of_a = {"parquet:" + a, "column:" + a + ":0:3",
                                              "data:" + a + "#0", "winners\n" + b + "\n" + a};
  const std::vector<std::string> keys_of_b = {"parquet:" + b, "column:" + b + ":1:2",
                                              "file-index:" + a + ".index",
                                              "column:/cache-test/u/bucket-0/data-a.parquet:0:3"};
  int loads = 0;
  for (const auto& k : keys_of_a) Get(k, 1, &loads);
  for (const auto& k : keys_of_b) Get(k, 2, &loads);
  ASSERT_EQ(loads, 8);

  FileCache::Instance().EraseFile(a);
  // Cached entries of other files (another table's file of the same name among them) are hits.
  for (const auto& k : keys_of_b) EXPECT_EQ(Get(k, 3, &loads), 2) << k;
  EXPECT_EQ(loads, 8);
  // Every entry naming `a` is loaded again.
  for (const auto& k : keys_of_a) EXPECT_EQ(Get(k, 4, &loads), 4) << k;
  EXPECT_EQ(loads, 12);

  // A merge's entry goes with any of its files.
  FileCache::Instance().EraseFile(b);
  EXPECT_EQ(Get("winners\n" + b + "\n" + a, 5, &loads), 5);
  EXPECT_EQ(Get("parquet:" + a, 6, &loads), 4);

  FileCache::Instance().EraseUnder("/cache-test");
  EXPECT_EQ(Get("parquet:" + a, 7, &loads), 7);
  EXPECT_EQ(Get("column:/cache-test/u/bucket-0/data-a.parquet:0:3", 7, &loads), 7);
  FileCache::Instance().EraseUnder("/cache-test");
}

}  // namespace
}  // namespace tributary::io
