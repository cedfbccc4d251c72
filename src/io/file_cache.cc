#include "io/file_cache.h"

#include <cstdlib>
#include <list>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/memory_budget.h"

namespace tributary::io {

// The file names a key refers to: the last path segment of each of its lines that holds a path,
// up to a '#', '@' or ':' after it ("column:/t/bucket-0/data-x.parquet:0:3" -> "data-x.parquet"; a
// merge's "winners" key names one file a line).
template <typename F>
void ForEachName(std::string_view key, F&& f) {
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('\n', start);
    if (end == std::string_view::npos) end = key.size();
    std::string_view line = key.substr(start, end - start);
    const size_t slash = line.rfind('/');
    if (slash != std::string_view::npos) {
      std::string_view name = line.substr(slash + 1);
      name = name.substr(0, name.find_first_of("#@:"));
      if (!name.empty()) f(name);
    }
    start = end + 1;
  }
}

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
  // File name -> the keys naming it (ForEachName), so that dropping a deleted file's entries
  // looks at those keys only, not at every entry.
  std::unordered_map<std::string, std::unordered_set<const std::string*>> by_name;

  void Index(const std::string& key) {
    ForEachName(key, [&](std::string_view name) { by_name[std::string(name)].insert(&key); });
  }
  // Drops the entry `it` from the map, the LRU list and the name index.
  void Remove(std::unordered_map<std::string, Entry>::iterator it) {
    const std::string* key = &it->first;
    ForEachName(*key, [&](std::string_view name) {
      auto n = by_name.find(std::string(name));
      if (n == by_name.end()) return;
      n->second.erase(key);
      if (n->second.empty()) by_name.erase(n);
    });
    used -= it->second.size;
    lru.erase(it->second.lru);
    map.erase(it);
  }
  void EvictTo(int64_t capacity, const std::string* keep) {
    while (used > capacity && !lru.empty()) {
      if (keep != nullptr && lru.back() == *keep) break;
      Remove(map.find(lru.back()));
    }
  }
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
  impl_->EvictTo(Capacity(), nullptr);
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

void FileCache::EraseFile(const std::string& path) {
  std::string name;
  ForEachName(path, [&](std::string_view n) { name = n; });
  if (name.empty() || path.find('\n') != std::string::npos) return EraseMatching(path);
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto n = impl_->by_name.find(name);
  if (n == impl_->by_name.end()) return;
  std::vector<std::string> matching;
  for (const std::string* key : n->second) {
    if (key->find(path) != std::string::npos) matching.push_back(*key);
  }
  for (const std::string& key : matching) {
    auto it = impl_->map.find(key);
    if (it != impl_->map.end()) impl_->Remove(it);
  }
}

void FileCache::EraseMatching(const std::string& needle) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (auto it = impl_->map.begin(); it != impl_->map.end();) {
    auto next = std::next(it);
    if (it->first.find(needle) != std::string::npos) impl_->Remove(it);
    it = next;
  }
}

void FileCache::AddCharge(const std::string& key, int64_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->map.find(key);
  if (it == impl_->map.end()) return;
  it->second.size += bytes;
  impl_->used += bytes;
  // Evict from the least recently used end, never the entry just charged (its reader is busy).
  impl_->EvictTo(Capacity(), &it->first);
}

void FileCache::Insert(const std::string& key, std::shared_ptr<const void> value, int64_t size) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const int64_t capacity = Capacity();
  if (size > capacity) return;  // too big to keep
  auto it = impl_->map.find(key);
  if (it != impl_->map.end()) return;  // another thread loaded it first
  impl_->lru.push_front(key);
  auto [entry, added] =
      impl_->map.emplace(key, Impl::Entry{std::move(value), size, impl_->lru.begin()});
  (void)added;
  impl_->Index(entry->first);
  impl_->used += size;
  impl_->EvictTo(capacity, nullptr);
}

}  // namespace tributary::io
