#include "server/cancel.h"

#include <map>
#include <mutex>
#include <random>

namespace tributary::server {

namespace {
struct Entry {
  int32_t secret = 0;
  std::atomic<bool>* flag = nullptr;
};
std::mutex mu;
std::map<int32_t, Entry> live;  // by process id
int32_t next_pid = 1;
}  // namespace

CancelKeys& CancelKeys::Instance() {
  static CancelKeys keys;
  return keys;
}

std::pair<int32_t, int32_t> CancelKeys::Register(std::atomic<bool>* flag) {
  static thread_local std::mt19937 rng(std::random_device{}());
  std::lock_guard<std::mutex> lock(mu);
  int32_t pid = next_pid;
  while (live.count(pid)) pid = pid == INT32_MAX ? 1 : pid + 1;
  next_pid = pid == INT32_MAX ? 1 : pid + 1;
  const auto secret = static_cast<int32_t>(rng());
  live[pid] = Entry{secret, flag};
  return {pid, secret};
}

void CancelKeys::Release(int32_t pid) {
  std::lock_guard<std::mutex> lock(mu);
  live.erase(pid);
}

bool CancelKeys::Cancel(int32_t pid, int32_t secret) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = live.find(pid);
  if (it == live.end() || it->second.secret != secret) return false;
  it->second.flag->store(true);
  return true;
}

}  // namespace tributary::server
