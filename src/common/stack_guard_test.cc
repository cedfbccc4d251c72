#include "common/stack_guard.h"

#include <gtest/gtest.h>

#include <thread>

namespace tributary {
namespace {

// Recurses until the guard refuses: the guard must fire before the stack runs out (a crash
// would end the test binary), whatever the frame size.
int Recurse(int depth, int* refused_at) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  if (!CheckStackDepth("test recursion").ok()) {
    *refused_at = depth;
    return frame[0];
  }
  return Recurse(depth + 1, refused_at) + frame[0];
}

TEST(StackGuardTest, RefusesBeforeTheStackRunsOut) {
  int refused_at = -1;
  Recurse(0, &refused_at);
  EXPECT_GT(refused_at, 100);  // an 8 MiB main stack holds far more than 100 such frames
}

TEST(StackGuardTest, WorksOnOtherThreads) {
  int refused_at = -1;
  std::thread t([&] { Recurse(0, &refused_at); });
  t.join();
  EXPECT_GT(refused_at, 10);
  EXPECT_TRUE(CheckStackDepth("shallow").ok());
}

}  // namespace
}  // namespace tributary
