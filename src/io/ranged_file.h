// RangedFile: the bytes of a file on object storage, fetched by range as a reader needs them,
// into a region reserved for the whole file (an anonymous mapping: pages never fetched cost no
// memory). Opening costs one request (the file's size and its last bytes, which hold a
// Parquet footer and, for a small file, all of it); each later Ensure fetches only the ranges
// not yet held. Data files are immutable, so fetched bytes never go stale.
// Thread-safety: thread-safe; bytes are readable through data() once Ensure returned OK for them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::io {

class RangedFile {
 public:
  // Opens `path` (through LocalFs(), which routes it to its store), fetching its last `tail`
  // bytes.
  static Result<std::shared_ptr<RangedFile>> Open(const std::string& path,
                                                  int64_t tail = int64_t{64} << 10);
  ~RangedFile();
  RangedFile(const RangedFile&) = delete;
  RangedFile& operator=(const RangedFile&) = delete;

  // The whole file's extent; only the bytes Ensure made readable may be read.
  std::string_view data() const { return {static_cast<const char*>(addr_), size_}; }
  int64_t size() const { return static_cast<int64_t>(size_); }
  // Makes bytes [offset, offset + length) readable, fetching the parts not yet held (one
  // request per missing run). A range outside the file is an error.
  Status Ensure(int64_t offset, int64_t length) const;
  // Bytes fetched so far.
  int64_t fetched() const;
  // Called with the size of every fetch after this (a cache charging the bytes it holds).
  void OnFetch(std::function<void(int64_t)> f) const;

 private:
  RangedFile() = default;
  std::string path_;
  void* addr_ = nullptr;
  size_t size_ = 0;
  mutable std::mutex mu_;
  mutable std::map<int64_t, int64_t> held_;  // start -> end of each run held, disjoint
  mutable int64_t fetched_ = 0;
  mutable std::function<void(int64_t)> on_fetch_;
};

}  // namespace tributary::io
