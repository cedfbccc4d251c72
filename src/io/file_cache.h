// FileCache: a process-wide cache of decoded immutable files (manifests, manifest lists, data
// files decoded for point lookups, opened Parquet files with their parsed footers, decoded
// column chunks of integers, floating-point numbers and strings for column scans), bounded by
// an approximate byte size with LRU eviction.
// Every file Tributary reads through it is immutable once written (new data gets new names), so
// an entry never goes stale. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "tributary/result.h"

namespace tributary::io {

class FileCache {
 public:
  // The shared instance (capacity from TRIBUTARY_FILE_CACHE_MB, default 256 MiB, and never more
  // than the process's memory budget leaves it: common/memory_budget.h).
  static FileCache& Instance();

  // What it may hold now: its own cap, or less while writers' buffers take the budget.
  int64_t Capacity() const;
  // What its entries are charged.
  int64_t used() const;
  // Evicts the least recently used entries down to Capacity().
  void Trim();

  // Returns the cached value for `key` or builds it with `load` (charging `size` bytes).
  // T must be the same type for a given key.
  // Drops every entry of files under directory `dir` (a dropped table or database): mapped data
  // files are unmapped once no reader holds them, so their disk space is freed.
  void EraseUnder(const std::string& dir);
  // Drops every entry of the file at `path` (a data file deleted while the process runs).
  void EraseFile(const std::string& path);
  // Charges `bytes` more to the entry `key` (a file whose bytes are fetched after it was cached),
  // evicting others if the cache is over its capacity now. Nothing when `key` is not cached.
  void AddCharge(const std::string& key, int64_t bytes);

  template <typename T>
  Result<std::shared_ptr<const T>> GetOrLoad(
      const std::string& key, const std::function<Result<std::pair<T, int64_t>>()>& load) {
    if (auto hit = Lookup(key)) return std::static_pointer_cast<const T>(hit);
    TRIB_ASSIGN_OR_RETURN(auto loaded, load());
    auto value = std::make_shared<const T>(std::move(loaded.first));
    Insert(key, value, loaded.second);
    return value;
  }
  // The cached value for `key`, or null (nothing is loaded).
  template <typename T>
  std::shared_ptr<const T> Peek(const std::string& key) {
    return std::static_pointer_cast<const T>(Lookup(key));
  }

 private:
  explicit FileCache(int64_t capacity);
  std::shared_ptr<const void> Lookup(const std::string& key);
  void EraseMatching(const std::string& needle);  // entries whose key contains `needle`
  void Insert(const std::string& key, std::shared_ptr<const void> value, int64_t size);
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace tributary::io
