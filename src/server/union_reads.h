// A connection's union reads (issue 39 part 5, docs/server.md "Union reads"): the pending source
// (read/pending.h) its SQL session reads the server's tables through, answering from the hot
// tier while a query runs (Activate) and nothing otherwise (other statements commit the hot tier
// first: the read barrier). A statement sees each table in one state: the first view of a table
// it takes is kept until the next statement (Reset), so a self-join or a subquery reads the same
// files.
// Thread-safety: one connection's thread; the hot tier it asks is thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "read/pending.h"

namespace tributary::server {

class HotTier;

class UnionReads : public read::PendingSource {
 public:
  explicit UnionReads(HotTier* tier) : tier_(tier) {}

  void Activate() { active_ = true; }
  void Reset() {
    active_ = false;
    views_.clear();
  }

  uint64_t Version(const Identifier& id) override;
  Result<std::optional<read::PendingView>> Pending(const Identifier& id) override;
  Status Settle(const Identifier& id) override;

 private:
  static std::string Key(const Identifier& id);
  HotTier* tier_;
  bool active_ = false;
  std::map<std::string, std::optional<read::PendingView>> views_;  // this statement's
};

}  // namespace tributary::server
