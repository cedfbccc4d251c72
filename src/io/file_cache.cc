#include "io/file_cache.h"

#include <cstdlib>
#include <list>
#include <mutex>
#include <unordered_map>

#include "common/memory_budget.h"

namespace tributary::io {

struct FileCache::Impl {
  struct Entry {
    std::shared_ptr<const void> value;
    int64_t size = 0;
    std::list<std::string>::iterator lru;
  };
  std::mutex mu;
  int64_t capacity = 0;
  int64_t used = 0;
  std::list<std::string> lru;  // most recent first
  std::unordered_map<std::string, Entry> map;
};

FileCache::FileCache(int64_t capacity) : impl_(std::make_shared<Impl>()) {
  impl_->capacity = capacity;
}

FileCache& FileCache::Instance() {
  static FileCache* cache = [] {
    int64_t mb = 256;
    if (const char* env = std::getenv("TRIBUTARY_FILE_CACHE_MB")) mb = std::atoll(env);
    auto* c = new FileCache(mb << 20);
    // The writers' buffers and the cache share the process's budget: as the buffers grow, the
    // cache gives way.
    MemoryBudget::Instance().SetTrimHook([] { Instance().Trim(); });
    return c;
  }();
  return *cache;
}

int64_t FileCache::Capacity() const {
  return MemoryBudget::Instance().CacheCapacity(impl_->capacity);
}

void FileCache::Trim() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const int64_t capacity = Capacity();
  while (impl_->used > capacity && !impl_->lru.empty()) {
    auto victim = impl_->map.find(impl_->lru.back());
    impl_->used -= victim->second.size;
    impl_->map.erase(victim);
    impl_->lru.pop_back();
  }
}

int64_t FileCache::used() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->used;
}

std::shared_ptr<const void> FileCache::Lookup(const std::string& key) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->map.find(key);
  if (it == impl_->map.end()) return nullptr;
  impl_->lru.splice(impl_->lru.begin(), impl_->lru, it->second.lru);
  return it->second.value;
}

void FileCache::EraseUnder(const std::string& dir) {
  EraseMatching(dir.empty() || dir.back() == '/' ? dir : dir + "/");
}

void FileCache::EraseFile(const std::string& path) { EraseMatching(path); }

void FileCache::EraseMatching(const std::string& needle) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (auto it = impl_->map.begin(); it != impl_->map.end();) {
    if (it->first.find(needle) == std::string::npos) {
      ++it;
      continue;
    }
    impl_->used -= it->second.size;
    impl_->lru.erase(it->second.lru);
    it = impl_->map.erase(it);
  }
}

void FileCache::AddCharge(const std::string& key, int64_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->map.find(key);
  if (it == impl_->map.end()) return;
  it->second.size += bytes;
  impl_->used += bytes;
  // Evict from the least recently used end, never the entry just charged (its reader is busy).
  const int64_t capacity = Capacity();
  while (impl_->used > capacity && impl_->lru.size() > 1) {
    const std::string& oldest = impl_->lru.back();
    if (oldest == key) break;
    auto victim = impl_->map.find(oldest);
    impl_->used -= victim->second.size;
    impl_->map.erase(victim);
    impl_->lru.pop_back();
  }
}

void FileCache::Insert(const std::string& key, std::shared_ptr<const void> value, int64_t size) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const int64_t capacity = Capacity();
  if (size > capacity) return;  // too big to keep
  auto it = impl_->map.find(key);
  if (it != impl_->map.end()) return;  // another thread loaded it first
  impl_->lru.push_front(key);
  impl_->map[key] = Impl::Entry{std::move(value), size, impl_->lru.begin()};
  impl_->used += size;
  while (impl_->used > capacity && !impl_->lru.empty()) {
    auto victim = impl_->map.find(impl_->lru.back());
    impl_->used -= victim->second.size;
    impl_->map.erase(victim);
    impl_->lru.pop_back();
  }
}

}  // namespace tributary::io
