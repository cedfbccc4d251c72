// ReleaseFreedMemory gives freed memory back to the system once there is enough of it: the
// process's resident memory, as jemalloc counts it, falls by about what was freed (skipped when
// the test does not run on jemalloc: an ASan build, or one without libjemalloc).
#include "common/memory_budget.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace tributary {
namespace {

// jemalloc's count of the bytes of resident pages it holds (stats refreshed first).
size_t Resident() {
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  (void)mallctl("epoch", &epoch, &len, &epoch, len);
  size_t resident = 0;
  len = sizeof(resident);
  if (mallctl("stats.resident", &resident, &len, nullptr, 0) != 0) return 0;
  return resident;
}

// The default budget (512 MiB: a purge past 32 MiB freed), whatever TRIBUTARY_MEMORY_MB says.
class ReleaseFreedMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = MemoryBudget::Instance().total();
    MemoryBudget::Instance().SetTotalForTesting(int64_t{512} << 20);
  }
  void TearDown() override { MemoryBudget::Instance().SetTotalForTesting(saved_); }
  int64_t saved_ = 0;
};

TEST_F(ReleaseFreedMemoryTest, FreedPagesLeaveTheProcess) {
  if (mallctl == nullptr || Resident() == 0) GTEST_SKIP() << "not on jemalloc";
  ReleaseFreedMemory();
  // 64 MiB in blocks of 256 KiB, every page touched, then freed: jemalloc keeps them resident.
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 256; i++) {
    blocks.emplace_back(new char[256 << 10]);
    std::memset(blocks.back().get(), i, 256 << 10);
  }
  blocks.clear();
  const size_t kept = Resident();
  ReleaseFreedMemory();
  const size_t released = Resident();
  EXPECT_LT(released + (size_t{48} << 20), kept)
      << "resident before " << kept << ", after " << released;
}

// A little freed memory (less than a sixteenth of the budget) stays for jemalloc to reuse: a
// purge would make the next job fault its pages in again.
TEST_F(ReleaseFreedMemoryTest, ALittleFreedMemoryStays) {
  if (mallctl == nullptr || Resident() == 0) GTEST_SKIP() << "not on jemalloc";
  ReleaseFreedMemory();
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 32; i++) {  // 8 MiB
    blocks.emplace_back(new char[256 << 10]);
    std::memset(blocks.back().get(), i, 256 << 10);
  }
  blocks.clear();
  const size_t kept = Resident();
  ReleaseFreedMemory();
  EXPECT_GT(Resident() + (size_t{4} << 20), kept);
}

}  // namespace
}  // namespace tributary
