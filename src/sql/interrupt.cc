#include "sql/interrupt.h"

#include <atomic>
#include <csignal>

namespace tributary::sql {

namespace {

std::atomic<bool> interrupted{false};
struct sigaction previous;

void OnInterrupt(int) { interrupted.store(true); }

}  // namespace

InterruptScope::InterruptScope() {
  interrupted.store(false);
  struct sigaction sa = {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous);
}

InterruptScope::~InterruptScope() { sigaction(SIGINT, &previous, nullptr); }

bool Interrupted() { return interrupted.load(); }

void ConsumeInterrupt() { interrupted.store(false); }

}  // namespace tributary::sql
