#include "sql/exec/interrupt.h"

#include <algorithm>
#include <atomic>
#include <csignal>

namespace tributary::sql {

namespace {

std::atomic<bool> interrupted{false};
// Scopes nest (the shell's around a statement, a streaming query's inside it): only the
// outermost installs the handler, clears the flag and restores the disposition it found.
int depth = 0;
struct sigaction previous;

void OnInterrupt(int) { interrupted.store(true); }

}  // namespace

InterruptScope::InterruptScope() {
  if (depth++ > 0) return;
  interrupted.store(false);
  struct sigaction sa = {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous);
}

InterruptScope::~InterruptScope() {
  if (--depth > 0) return;
  sigaction(SIGINT, &previous, nullptr);
}

namespace {
thread_local const std::atomic<bool>* t_stop_flag = nullptr;
}  // namespace

bool Interrupted() { return interrupted.load() || (t_stop_flag && t_stop_flag->load()); }

StopFlagScope::StopFlagScope(const std::atomic<bool>* flag) : previous_(t_stop_flag) {
  t_stop_flag = flag;
}
StopFlagScope::~StopFlagScope() { t_stop_flag = previous_; }

void ConsumeInterrupt() { interrupted.store(false); }

namespace {
struct sigaction previous_term;
thread_local std::function<Status()>* t_idle_hook = nullptr;
thread_local StreamIdleHookScope::WakeBy* t_idle_wake = nullptr;
}  // namespace

TerminateScope::TerminateScope() {
  struct sigaction sa = {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, &previous_term);
}

TerminateScope::~TerminateScope() { sigaction(SIGTERM, &previous_term, nullptr); }

StreamIdleHookScope::StreamIdleHookScope(std::function<Status()> hook, WakeBy wake_by)
    : previous_(t_idle_hook),
      previous_wake_(t_idle_wake),
      hook_(std::move(hook)),
      wake_by_(std::move(wake_by)) {
  t_idle_hook = &hook_;
  t_idle_wake = wake_by_ ? &wake_by_ : nullptr;
}
StreamIdleHookScope::~StreamIdleHookScope() {
  t_idle_hook = previous_;
  t_idle_wake = previous_wake_;
}

Status RunStreamIdleHook() { return t_idle_hook ? (*t_idle_hook)() : Status::OK(); }

std::chrono::milliseconds StreamIdleSlice(std::chrono::milliseconds slice) {
  if (!t_idle_wake) return slice;
  const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
      (*t_idle_wake)() - std::chrono::steady_clock::now());
  return std::max(std::chrono::milliseconds(1), std::min(slice, until));
}

namespace {
thread_local bool t_polling = false;
thread_local bool t_poll_found_nothing = false;
}  // namespace

PollScope::PollScope() : previous_(t_polling) {
  t_polling = true;
  t_poll_found_nothing = false;
}
PollScope::~PollScope() { t_polling = previous_; }
bool Polling() { return t_polling; }
void SetPollFoundNothing() { t_poll_found_nothing = true; }
bool PollFoundNothing() { return t_poll_found_nothing; }

}  // namespace tributary::sql
