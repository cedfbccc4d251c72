// Ctrl-C during a streaming query ends the query (its rows so far are printed), not the program,
// as in the Flink SQL client; in the interactive shell it cancels any running statement. While
// an InterruptScope lives, SIGINT sets a flag that streaming sources poll between their waits
// for new changes and batch statements check (script.cc, dml.cc).
// Thread-safety: the flag is an atomic; one scope at a time (the statement being run).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>

#include "tributary/status.h"

namespace tributary::sql {

class InterruptScope {
 public:
  InterruptScope();   // installs the SIGINT handler and clears the flag
  ~InterruptScope();  // restores the previous handler
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// Whether Ctrl-C was pressed since the current InterruptScope began (or the last
// ConsumeInterrupt), or the stop flag of this thread's StopFlagScope is set.
bool Interrupted();

// While alive (on this thread), `flag` set means stop as Ctrl-C does: how a program stops a job
// it runs through the library (SqlJob::Stop), without signals.
class StopFlagScope {
 public:
  explicit StopFlagScope(const std::atomic<bool>* flag);
  ~StopFlagScope();
  StopFlagScope(const StopFlagScope&) = delete;
  StopFlagScope& operator=(const StopFlagScope&) = delete;

 private:
  const std::atomic<bool>* previous_;
};
// Forgets a Ctrl-C that was handled (it ended a streaming query, which is how those end), so
// the statements after it run.
void ConsumeInterrupt();

// While alive, SIGTERM sets the same flag as Ctrl-C (a streaming job stops cleanly: it commits
// what it wrote and exits).
class TerminateScope {
 public:
  TerminateScope();
  ~TerminateScope();
  TerminateScope(const TerminateScope&) = delete;
  TerminateScope& operator=(const TerminateScope&) = delete;
};

// While alive (on this thread), a stream source that waited a slice (at most 200 ms) without a
// change calls `hook` before it waits again: a streaming job commits its sink there, so rows
// written before a pause reach the sink within its commit interval. An error ends the read.
// `wake_by` (optional) says when the hook has work next (a job's next commit): a waiting source
// ends its slice then, not up to 200 ms later.
class StreamIdleHookScope {
 public:
  using WakeBy = std::function<std::chrono::steady_clock::time_point()>;
  explicit StreamIdleHookScope(std::function<Status()> hook, WakeBy wake_by = nullptr);
  ~StreamIdleHookScope();
  StreamIdleHookScope(const StreamIdleHookScope&) = delete;
  StreamIdleHookScope& operator=(const StreamIdleHookScope&) = delete;

 private:
  std::function<Status()>* previous_;
  WakeBy* previous_wake_;
  std::function<Status()> hook_;
  WakeBy wake_by_;
};
Status RunStreamIdleHook();
// How long a waiting stream source may wait before the hook in scope has work: `slice`, or less.
std::chrono::milliseconds StreamIdleSlice(std::chrono::milliseconds slice);

// While alive (on this thread), a stream source with no change waiting returns at once instead
// of waiting: its Next() returns false and PollFoundNothing() says so (not the end of its
// stream). How a streaming UNION ALL takes turns among its inputs.
class PollScope {
 public:
  PollScope();
  ~PollScope();
  PollScope(const PollScope&) = delete;
  PollScope& operator=(const PollScope&) = delete;

 private:
  bool previous_;
};
bool Polling();
// A source returning false because it found nothing in poll mode says so here; PollScope clears it.
void SetPollFoundNothing();
bool PollFoundNothing();

}  // namespace tributary::sql
