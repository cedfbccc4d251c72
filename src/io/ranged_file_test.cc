#include "io/ranged_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <random>

#include "io/file_system.h"

namespace tributary::io {
namespace {

class RangedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = "/tmp/tributary_ranged_test_" + std::to_string(getpid());
    std::mt19937 rng(5);
    bytes_.resize(300000);
    for (char& c : bytes_) c = static_cast<char>(rng());
    ASSERT_TRUE(LocalFs().WriteFile(path_, bytes_).ok());
  }
  void TearDown() override { (void)LocalFs().Remove(path_); }
  std::string path_;
  std::string bytes_;
};

TEST_F(RangedFileTest, FetchesOnlyWhatIsMissing) {
  auto f = RangedFile::Open(path_, 1000);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ((*f)->size(), 300000);
  EXPECT_EQ((*f)->fetched(), 1000);  // the tail, at open
  const std::string_view data = (*f)->data();
  EXPECT_EQ(data.substr(299000), std::string_view(bytes_).substr(299000));
  int64_t charged = 0;
  (*f)->OnFetch([&](int64_t n) { charged += n; });
  ASSERT_TRUE((*f)->Ensure(1000, 5000).ok());
  EXPECT_EQ((*f)->fetched(), 6000);
  ASSERT_TRUE((*f)->Ensure(2000, 1000).ok());  // held already: nothing fetched
  EXPECT_EQ((*f)->fetched(), 6000);
  // Overlapping what is held on both sides: only the gaps come.
  ASSERT_TRUE((*f)->Ensure(0, 10000).ok());
  EXPECT_EQ((*f)->fetched(), 6000 + 1000 + 4000);
  ASSERT_TRUE((*f)->Ensure(298000, 2000).ok());
  EXPECT_EQ((*f)->fetched(), 11000 + 1000);
  EXPECT_EQ(charged, 11000);  // every fetch after OnFetch
  EXPECT_EQ(data.substr(0, 10000), std::string_view(bytes_).substr(0, 10000));
  EXPECT_EQ(data.substr(298000), std::string_view(bytes_).substr(298000));
}

TEST_F(RangedFileTest, ARangeOutsideTheFileIsRefused) {
  auto f = RangedFile::Open(path_, 10);
  ASSERT_TRUE(f.ok());
  Status st = (*f)->Ensure(299990, 11);
  EXPECT_EQ(st.code(), StatusCode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("outside"), std::string::npos) << st.ToString();
  EXPECT_EQ((*f)->Ensure(-1, 2).code(), StatusCode::kCorruption);
}

TEST_F(RangedFileTest, AShortFileIsReadWholeAtOpen) {
  ASSERT_TRUE(LocalFs().WriteFile(path_, "tiny").ok());
  auto f = RangedFile::Open(path_);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->data(), "tiny");
  EXPECT_EQ((*f)->fetched(), 4);
  ASSERT_TRUE((*f)->Ensure(0, 4).ok());
  EXPECT_EQ((*f)->fetched(), 4);
}

}  // namespace
}  // namespace tributary::io
