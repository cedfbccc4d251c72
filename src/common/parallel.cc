#include "common/parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace tributary {

int DefaultParallelism() {
  static const int n = [] {
    if (const char* env = std::getenv("TRIBUTARY_THREADS")) {
      int v = std::atoi(env);
      return std::max(1, v);
    }
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return n;
}

Status ParallelFor(size_t n, int threads, const std::function<Status(size_t)>& fn) {
  if (n == 0) return Status::OK();
  size_t workers = std::min(n, static_cast<size_t>(std::max(threads, 1)));
  if (workers <= 1) {
    for (size_t i = 0; i < n; i++) TRIB_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  std::vector<Status> results(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&]() {
    while (!failed.load(std::memory_order_relaxed)) {
      size_t i = next.fetch_add(1);
      if (i >= n) return;
      results[i] = fn(i);
      if (!results[i].ok()) failed.store(true);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (size_t t = 0; t + 1 < workers; t++) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  for (auto& st : results) {
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace tributary
