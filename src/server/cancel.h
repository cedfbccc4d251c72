// Cancel requests of the PostgreSQL protocol: each connection gets a key (the BackendKeyData its
// client keeps: a process id, here a number of the connection's own, and a random secret); a
// CancelRequest that brings a live connection's key back sets that connection's flag, which its
// running statement polls (sql::StopFlagScope), as Ctrl-C stops a statement in the shell.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace tributary::server {

class CancelKeys {
 public:
  static CancelKeys& Instance();

  // A new key (process id, secret) for the connection whose statements poll `flag`, until
  // Release(process id).
  std::pair<int32_t, int32_t> Register(std::atomic<bool>* flag);
  void Release(int32_t pid);
  // Sets the flag of the live connection with this key; false when none has it (a wrong secret
  // cancels nothing, as in PostgreSQL).
  bool Cancel(int32_t pid, int32_t secret);
};

}  // namespace tributary::server
