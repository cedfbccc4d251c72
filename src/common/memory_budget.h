// MemoryBudget: the process's one memory total (issue 38, docs/memory.md), shared the way
// RocksDB's write buffer manager shares one budget with its block cache: the writers' buffers
// (every writer of every table in the process) and the file cache draw from it.
// - The total is TRIBUTARY_MEMORY_MB (default 512 MiB), read once.
// - Writers charge what their buffers hold (ChargeBuffers). Past their share (the total less the
//   cache's floor) the writer that adds a row flushes its largest buffer to a level-0 file, as
//   'write-buffer-size' makes one writer do on its own.
// - The file cache holds at most the total less what the buffers hold (never less than its
//   floor, never more than its own cap, TRIBUTARY_FILE_CACHE_MB): as buffers grow it evicts, as
//   they are flushed it may grow back.
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
  // What the writers' buffers may hold together: the total less the cache's floor.
  int64_t buffer_limit() const { return total() - cache_floor(); }
  int64_t buffered() const { return buffered_.load(std::memory_order_relaxed); }
  bool BuffersOverLimit() const { return buffered() > buffer_limit(); }
  // The cache's capacity now, given its own cap.
  int64_t CacheCapacity(int64_t own_cap) const;

  // Adds `delta` (negative: released) to what the buffers hold. When they grow past a multiple of
  // the trim step, the trim hook runs (the cache evicts down to its capacity).
  void ChargeBuffers(int64_t delta);

  // Installed by the file cache: evicts down to CacheCapacity.
  void SetTrimHook(void (*hook)()) { trim_.store(hook); }
  // Tests: another total (the buffers' charges stay).
  void SetTotalForTesting(int64_t bytes);

 private:
  MemoryBudget();
  std::atomic<int64_t> total_;
  std::atomic<int64_t> buffered_{0};
  std::atomic<void (*)()> trim_{nullptr};
};

}  // namespace tributary
