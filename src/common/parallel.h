// Running independent pieces of work (one per bucket, one per split) on the machine's cores.
#pragma once

#include <cstddef>
#include <functional>

#include "tributary/status.h"

namespace tributary {

// How many threads parallel work uses: the TRIBUTARY_THREADS environment variable when set
// (at least 1), else the number of cores (read once); on a thread inside a ScopedParallelism,
// its number.
int DefaultParallelism();
// The same without any ScopedParallelism: TRIBUTARY_THREADS, else the number of cores.
int ProcessParallelism();

// While it lives, DefaultParallelism() on the constructing thread returns `threads` (at least
// 1): work started there (scans reading ahead, writers flushing buckets) uses that many threads
// (a procedure's scan_parallelism / sink_parallelism). Scopes nest.
class ScopedParallelism {
 public:
  explicit ScopedParallelism(int threads);
  ~ScopedParallelism();
  ScopedParallelism(const ScopedParallelism&) = delete;
  ScopedParallelism& operator=(const ScopedParallelism&) = delete;

 private:
  int saved_;
};

// Runs fn(0), ..., fn(n - 1), each exactly once, on up to `threads` threads (the calling thread
// is one of them; threads <= 1 or n <= 1 runs everything in order on the caller). Pieces are
// handed out in index order; once one fails, pieces not yet started are skipped. Returns the
// failure of the lowest failed index, else OK. fn must be safe to call concurrently for
// different indexes.
Status ParallelFor(size_t n, int threads, const std::function<Status(size_t)>& fn);

}  // namespace tributary
