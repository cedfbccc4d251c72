#include "common/memory_budget.h"

#include <algorithm>
#include <cstdlib>

// jemalloc's control interface, when the program links jemalloc (the libraries never do):
// declared weak, so that without it the symbol is null.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace tributary {

namespace {
constexpr int64_t kMiB = int64_t{1} << 20;
// The buffers' growth between two trims of the cache.
constexpr int64_t kTrimStep = 4 * kMiB;
}  // namespace

MemoryBudget::MemoryBudget() {
  int64_t mb = 512;
  if (const char* env = std::getenv("TRIBUTARY_MEMORY_MB")) {
    const int64_t v = std::atoll(env);
    if (v > 0) mb = v;
  }
  total_.store(mb * kMiB);
}

MemoryBudget& MemoryBudget::Instance() {
  static MemoryBudget* budget = new MemoryBudget();
  return *budget;
}

int64_t MemoryBudget::cache_floor() const {
  const int64_t t = total();
  return std::min(t, std::max<int64_t>(8 * kMiB, t / 8));
}

int64_t MemoryBudget::CacheCapacity(int64_t own_cap) const {
  const int64_t left = std::max(cache_floor(), total() - buffered() - operators());
  return std::min(own_cap, left);
}

void MemoryBudget::ChargeBuffers(int64_t delta) {
  const int64_t before = buffered_.fetch_add(delta, std::memory_order_relaxed);
  if (delta > 0) {
    int64_t peak = buffered_peak_.load(std::memory_order_relaxed);
    while (before + delta > peak &&
           !buffered_peak_.compare_exchange_weak(peak, before + delta, std::memory_order_relaxed)) {
    }
  }
  if (delta > 0 && (before + delta) / kTrimStep != before / kTrimStep) {
    if (void (*trim)() = trim_.load()) trim();
  }
}

void MemoryBudget::ChargeOperators(int64_t delta) {
  const int64_t before = operators_.fetch_add(delta, std::memory_order_relaxed);
  if (delta > 0 && (before + delta) / kTrimStep != before / kTrimStep) {
    if (void (*trim)() = trim_.load()) trim();
  }
}

void MemoryCharge::Set(int64_t bytes) {
  bytes = std::max<int64_t>(0, bytes);
  if (bytes == charged_) return;
  MemoryBudget::Instance().ChargeOperators(bytes - charged_);
  charged_ = bytes;
}

bool MemoryCharge::Over(int64_t bytes, int64_t own_limit) {
  Set(bytes);
  over_budget_ = false;
  if (bytes > own_limit) return true;
  if (bytes <= kMinGrant) return false;
  over_budget_ = MemoryBudget::Instance().BuffersOverLimit();
  return over_budget_;
}

void MemoryBudget::SetTotalForTesting(int64_t bytes) {
  total_.store(bytes);
  if (void (*trim)() = trim_.load()) trim();
}

void ReleaseFreedMemory() {
  if (mallctl == nullptr) return;
  // Only when the freed pages jemalloc keeps (every arena's: "stats.arenas.<MALLCTL_ARENAS_ALL>")
  // come to a sixteenth of the budget: a purge makes the next job fault its pages in again,
  // which many small compactions (one per bucket per commit) would pay each time.
  uint64_t epoch = 1;
  size_t len = sizeof(epoch);
  (void)mallctl("epoch", &epoch, &len, &epoch, len);
  size_t dirty_pages = 0, page = 0;
  len = sizeof(dirty_pages);
  if (mallctl("stats.arenas.4096.pdirty", &dirty_pages, &len, nullptr, 0) != 0) return;
  len = sizeof(page);
  if (mallctl("arenas.page", &page, &len, nullptr, 0) != 0) return;
  if (static_cast<int64_t>(dirty_pages * page) < MemoryBudget::Instance().total() / 16) return;
  (void)mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
}

}  // namespace tributary
