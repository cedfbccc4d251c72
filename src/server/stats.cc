#include "server/stats.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "common/clock.h"
#include "common/memory_budget.h"
#include "io/file_cache.h"
#include "server/hot_tier.h"
#include "server/jobs.h"

namespace tributary::server {

namespace {
int64_t NowMillis() { return SteadyClockMillis(); }

// Resident set size in bytes (/proc/self/statm's second field), or -1.
int64_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return -1;
  long long size = 0, resident = 0;
  const int got = std::fscanf(f, "%lld %lld", &size, &resident);
  std::fclose(f);
  return got == 2 ? resident * static_cast<int64_t>(::sysconf(_SC_PAGESIZE)) : -1;
}
}  // namespace

ServerStats::ServerStats() : started_millis_(NowMillis()) {}

ServerStats& ServerStats::Get() {
  static ServerStats stats;
  return stats;
}

std::vector<std::pair<std::string, std::string>> ServerStats::Rows() const {
  const double seconds = std::max<int64_t>(1, NowMillis() - started_millis_) / 1000.0;
  auto n = [](const std::atomic<int64_t>& v) { return std::to_string(v.load()); };
  auto rate = [&](const std::atomic<int64_t>& v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f", static_cast<double>(v.load()) / seconds);
    return std::string(text);
  };
  char uptime[32];
  std::snprintf(uptime, sizeof(uptime), "%.1f", seconds);
  const MemoryBudget& budget = MemoryBudget::Instance();
  std::vector<std::pair<std::string, std::string>> rows = {
      {"uptime_seconds", uptime},
      {"connections_open", n(connections_open)},
      {"connections_total", n(connections_total)},
      {"statements", n(statements)},
      {"statements_failed", n(statements_failed)},
      {"statements_cancelled", n(statements_cancelled)},
      {"statements_per_second", rate(statements)},
      {"rows_written", n(rows_written)},
      {"rows_written_per_second", rate(rows_written)},
      {"rows_returned", n(rows_returned)},
      {"subscriptions_open", n(subscriptions_open)},
      {"jobs_running", std::to_string(ServerJobs::Instance().running())},
      {"memory_resident_bytes", std::to_string(ResidentBytes())},
      {"memory_budget_bytes", std::to_string(budget.total())},
      {"memory_write_buffers_bytes", std::to_string(budget.buffered())},
      {"memory_query_operators_bytes", std::to_string(budget.operators())},
      {"memory_file_cache_bytes", std::to_string(io::FileCache::Instance().used())},
  };
  // The hot tier: log entries and rows acknowledged but not in the lake yet, rounds that
  // committed, and the last round's error.
  HotTier::Stats tier;
  if (const HotTier* h = hot.load()) tier = h->stats();
  rows.push_back({"hot_tier_entries_pending", std::to_string(tier.entries_pending)});
  rows.push_back({"hot_tier_rows_pending", std::to_string(tier.rows_pending)});
  rows.push_back({"hot_tier_tierings", std::to_string(tier.tierings)});
  rows.push_back({"tiering", tier.last_error.empty() ? "ok" : "failing: " + tier.last_error});
  return rows;
}

}  // namespace tributary::server
