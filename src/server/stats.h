// The server's counters, which `SHOW STATS` (a statement of the server's own) reads back:
// connections, statements, rows in and out, memory, tiering (docs/server.md).
// Thread-safety: counters are atomics, bumped from every connection's thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tributary::server {

class HotTier;

struct ServerStats {
  static ServerStats& Get();

  std::atomic<int64_t> connections_total{0};
  std::atomic<int64_t> connections_open{0};
  std::atomic<int64_t> statements{0};
  std::atomic<int64_t> statements_failed{0};
  std::atomic<int64_t> statements_cancelled{0};
  std::atomic<int64_t> rows_written{0};   // what INSERT, UPDATE, DELETE and COPY FROM reported
  std::atomic<int64_t> rows_returned{0};  // data rows and COPY TO rows sent
  std::atomic<int64_t> subscriptions_open{0};
  // The hot tier whose state the tiering rows show (set once, at the start).
  std::atomic<const HotTier*> hot{nullptr};

  // (name, value) rows, in a fixed order: the counters, rates since the start, the process's
  // memory (resident set, the memory budget and what its write buffers and file cache hold) and
  // the tiering state.
  std::vector<std::pair<std::string, std::string>> Rows() const;

 private:
  ServerStats();
  int64_t started_millis_;
};

}  // namespace tributary::server
