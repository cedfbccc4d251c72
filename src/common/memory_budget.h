// MemoryBudget: the process's one memory total (issue 38, docs/memory.md), shared the way
// RocksDB's write buffer manager shares one budget with its block cache: the writers' buffers
// (every writer of every table in the process) and the file cache draw from it.
// - The total is TRIBUTARY_MEMORY_MB (default 512 MiB), read once.
// - Writers charge what their buffers hold (ChargeBuffers). Past their share (the total less the
//   cache's floor) the writer that adds a row flushes its largest buffer to a level-0 file, as
//   'write-buffer-size' makes one writer do on its own.
// - Query operators that hold their input (ORDER BY, GROUP BY, DISTINCT, set operations,
//   windows, a hash join's build side) charge what they hold (MemoryCharge). The buffers and the
//   operators share the total less the cache's floor: past it, an operator holding more than its
//   minimum grant spills as at its own limit, and a writer flushes as above.
// - The file cache holds at most the total less what the buffers and operators hold (never less
//   than its floor, never more than its own cap, TRIBUTARY_FILE_CACHE_MB): as they grow it
//   evicts, as they are released it may grow back.
// Thread-safety: thread-safe (an atomic count; the trim hook runs on the charging thread).
#pragma once

#include <atomic>
#include <cstdint>

namespace tributary {

class MemoryBudget {
 public:
  static MemoryBudget& Instance();

  int64_t total() const { return total_.load(std::memory_order_relaxed); }
  // The cache's floor: what the buffers leave it at least (an eighth of the total, at least
  // 8 MiB, at most the total).
  int64_t cache_floor() const;
  // What the writers' buffers and the query operators may hold together: the total less the
  // cache's floor.
  int64_t buffer_limit() const { return total() - cache_floor(); }
  int64_t buffered() const { return buffered_.load(std::memory_order_relaxed); }
  int64_t operators() const { return operators_.load(std::memory_order_relaxed); }
  bool BuffersOverLimit() const { return buffered() + operators() > buffer_limit(); }
  // The cache's capacity now, given its own cap.
  int64_t CacheCapacity(int64_t own_cap) const;

  // Adds `delta` (negative: released) to what the buffers hold. When they grow past a multiple of
  // the trim step, the trim hook runs (the cache evicts down to its capacity).
  void ChargeBuffers(int64_t delta);
  // The same for what query operators hold (MemoryCharge does it for one operator).
  void ChargeOperators(int64_t delta);

  // Installed by the file cache: evicts down to CacheCapacity.
  void SetTrimHook(void (*hook)()) { trim_.store(hook); }
  // Tests: another total (the buffers' charges stay).
  void SetTotalForTesting(int64_t bytes);
  // The most buffered() was since the last ResetBufferedPeak (tests and diagnostics: what the
  // writers' buffers held at their fullest, even within one call that then flushed them).
  int64_t buffered_peak() const { return buffered_peak_.load(std::memory_order_relaxed); }
  void ResetBufferedPeak() { buffered_peak_.store(buffered(), std::memory_order_relaxed); }

 private:
  MemoryBudget();
  std::atomic<int64_t> total_;
  std::atomic<int64_t> buffered_{0};
  std::atomic<int64_t> buffered_peak_{0};
  std::atomic<int64_t> operators_{0};
  std::atomic<void (*)()> trim_{nullptr};
};

// Gives the memory that jobs have freed back to the system, where the program allocates with
// jemalloc (docs/memory.md), once it comes to a sixteenth of the budget: jemalloc keeps freed
// pages for about 10 s to reuse them, so the transient memory of a large job (a compaction's
// merge and output) stayed resident beside what the next job took (in another CPU's arena, or of
// other sizes). Called after a compaction. Without jemalloc, nothing.
void ReleaseFreedMemory();

// What one query operator holds, charged to the process's budget while the charge lives.
// Thread-safety: one operator's (one thread); the budget it charges is shared.
class MemoryCharge {
 public:
  // What an operator may hold whatever the process's budget says (so that an operator under
  // pressure still spills runs of a useful size).
  static constexpr int64_t kMinGrant = int64_t{4} << 20;

  MemoryCharge() = default;
  ~MemoryCharge() { Set(0); }
  MemoryCharge(const MemoryCharge&) = delete;
  MemoryCharge& operator=(const MemoryCharge&) = delete;

  // Charges `bytes`, what the operator holds now, in place of its previous charge, and says
  // whether the operator is past its limits: more than `own_limit`, or more than kMinGrant while
  // the writers' buffers and the operators of the process together are past their share.
  bool Over(int64_t bytes, int64_t own_limit);
  // Charges `bytes` without asking (what the operator holds after spilling, say).
  void Set(int64_t bytes);
  int64_t bytes() const { return charged_; }
  // Whether the last Over was true because of the process's budget, not the own limit.
  bool over_budget() const { return over_budget_; }

 private:
  int64_t charged_ = 0;
  bool over_budget_ = false;
};

}  // namespace tributary
