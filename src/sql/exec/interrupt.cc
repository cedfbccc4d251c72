#include "sql/exec/interrupt.h"

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

bool Interrupted() { return interrupted.load(); }

void ConsumeInterrupt() { interrupted.store(false); }

}  // namespace tributary::sql
