// Ctrl-C during a streaming query ends the query (its rows so far are printed), not the program,
// as in the Flink SQL client; in the interactive shell it cancels any running statement. While
// an InterruptScope lives, SIGINT sets a flag that streaming sources poll between their waits
// for new changes and batch statements check (script.cc, dml.cc).
// Thread-safety: the flag is an atomic; one scope at a time (the statement being run).
#pragma once

namespace tributary::sql {

class InterruptScope {
 public:
  InterruptScope();   // installs the SIGINT handler and clears the flag
  ~InterruptScope();  // restores the previous handler
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// Whether Ctrl-C was pressed since the current InterruptScope began (or the last
// ConsumeInterrupt).
bool Interrupted();
// Forgets a Ctrl-C that was handled (it ended a streaming query, which is how those end), so
// the statements after it run.
void ConsumeInterrupt();

}  // namespace tributary::sql
