#include "io/ranged_file.h"

#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "io/file_system.h"

namespace tributary::io {

Result<std::shared_ptr<RangedFile>> RangedFile::Open(const std::string& path, int64_t tail) {
  TRIB_ASSIGN_OR_RETURN(auto got, LocalFs().ReadTail(path, tail));
  auto& [size, bytes] = got;
  if (size < static_cast<int64_t>(bytes.size())) {
    return Status::IOError("'" + path + "': " + std::to_string(bytes.size()) +
                           " bytes read from its end, but its size is " + std::to_string(size));
  }
  std::shared_ptr<RangedFile> f(new RangedFile());
  f->path_ = path;
  f->size_ = static_cast<size_t>(size);
  if (f->size_ > 0) {
    void* addr = ::mmap(nullptr, f->size_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (addr == MAP_FAILED) {
      return Status::IOError("cannot reserve " + std::to_string(size) + " bytes for '" + path +
                             "': " + std::strerror(errno));
    }
    f->addr_ = addr;
  }
  if (!bytes.empty()) {
    const int64_t start = size - static_cast<int64_t>(bytes.size());
    std::memcpy(static_cast<char*>(f->addr_) + start, bytes.data(), bytes.size());
    f->held_[start] = size;
    f->fetched_ = static_cast<int64_t>(bytes.size());
  }
  return f;
}

RangedFile::~RangedFile() {
  if (addr_ != nullptr) ::munmap(addr_, size_);
}

Status RangedFile::Ensure(int64_t offset, int64_t length) const {
  const int64_t size = static_cast<int64_t>(size_);
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Status::Corruption("the range [" + std::to_string(offset) + ", +" +
                              std::to_string(length) + ") lies outside '" + path_ + "' (" +
                              std::to_string(size) + " bytes)");
  }
  if (length == 0) return Status::OK();
  const int64_t end = offset + length;
  std::lock_guard<std::mutex> lock(mu_);
  // The runs of [offset, end) not held yet.
  std::vector<std::pair<int64_t, int64_t>> missing;
  int64_t at = offset;
  auto it = held_.upper_bound(offset);
  if (it != held_.begin()) {
    auto prev = std::prev(it);
    if (prev->second > at) at = prev->second;
  }
  for (; at < end; ++it) {
    if (it == held_.end() || it->first >= end) {
      missing.emplace_back(at, end);
      break;
    }
    if (it->first > at) missing.emplace_back(at, it->first);
    at = std::max(at, it->second);
  }
  for (const auto& [from, to] : missing) {
    TRIB_ASSIGN_OR_RETURN(std::string bytes, LocalFs().ReadRange(path_, from, to - from));
    if (static_cast<int64_t>(bytes.size()) != to - from) {
      return Status::IOError("'" + path_ + "' changed while read: " + std::to_string(bytes.size()) +
                             " bytes at " + std::to_string(from) + " instead of " +
                             std::to_string(to - from));
    }
    std::memcpy(static_cast<char*>(addr_) + from, bytes.data(), bytes.size());
    // Held now: merge with the runs it touches.
    int64_t start = from, stop = to;
    auto next = held_.lower_bound(start);
    if (next != held_.begin()) {
      auto prev = std::prev(next);
      if (prev->second >= start) {
        start = prev->first;
        stop = std::max(stop, prev->second);
        next = held_.erase(prev);
      }
    }
    while (next != held_.end() && next->first <= stop) {
      stop = std::max(stop, next->second);
      next = held_.erase(next);
    }
    held_[start] = stop;
    fetched_ += to - from;
    if (on_fetch_) on_fetch_(to - from);
  }
  return Status::OK();
}

int64_t RangedFile::fetched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fetched_;
}

void RangedFile::OnFetch(std::function<void(int64_t)> f) const {
  std::lock_guard<std::mutex> lock(mu_);
  on_fetch_ = std::move(f);
}

}  // namespace tributary::io
