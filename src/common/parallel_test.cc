#include "common/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace tributary {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  for (int threads : {1, 2, 4, 16}) {
    std::vector<std::atomic<int>> hits(100);
    ASSERT_TRUE(ParallelFor(hits.size(), threads, [&](size_t i) {
                  hits[i]++;
                  return Status::OK();
                }).ok());
    for (auto& h : hits) EXPECT_EQ(h.load(), 1) << threads << " threads";
  }
}

TEST(ParallelFor, OneThreadRunsInOrderAndStopsAtTheFirstFailure) {
  std::vector<size_t> order;
  Status st = ParallelFor(5, 1, [&](size_t i) {
    order.push_back(i);
    return i == 2 ? Status::Invalid("piece 2") : Status::OK();
  });
  EXPECT_EQ(st.message(), "piece 2");
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2}));
}

TEST(ParallelFor, ReturnsTheLowestFailedIndex) {
  Status st = ParallelFor(8, 4, [&](size_t i) {
    return i == 3 || i == 6 ? Status::Invalid("piece " + std::to_string(i)) : Status::OK();
  });
  ASSERT_FALSE(st.ok());
  // Piece 6 may be skipped once 3 failed, but 3 always runs and is the lowest failure.
  EXPECT_EQ(st.message(), "piece 3");
}

TEST(ParallelFor, NestedCallsFinish) {
  std::atomic<int> total{0};
  ASSERT_TRUE(ParallelFor(6, 4, [&](size_t) {
                return ParallelFor(5, 4, [&](size_t) {
                  total++;
                  return Status::OK();
                });
              }).ok());
  EXPECT_EQ(total.load(), 30);
}

TEST(ParallelFor, NothingToDo) {
  EXPECT_TRUE(ParallelFor(0, 4, [](size_t) { return Status::Invalid("never"); }).ok());
  EXPECT_GE(DefaultParallelism(), 1);
}

}  // namespace
}  // namespace tributary
