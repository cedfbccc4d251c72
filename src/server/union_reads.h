// A connection's union reads (issue 39 part 5, docs/server.md "Union reads"): the pending source
// (read/pending.h) its SQL session reads the server's tables through, answering from the hot
// tier while a query runs (Activate) and nothing otherwise (other statements commit the hot tier
// first: the read barrier). A statement sees each table in one state: the first view of a table
// it takes is kept until the next statement (Reset), so a self-join or a subquery reads the same
// files.
// Thread-safety: one connection's thread; the hot tier it asks is thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "read/pending.h"

namespace tributary {
class Table;
}  // namespace tributary
namespace tributary::sql {
class Session;
}  // namespace tributary::sql

namespace tributary::server {

// Whether statement `text` runs with union reads instead of the read barrier (tokens decide; a
// statement they cannot place gets the barrier):
// - a query: SELECT, WITH or VALUES naming no INSERT, UPDATE, DELETE, MERGE, CALL or INTO;
// - a write the hot tier takes whole, so its rows are logged after the entries it read:
//   `INSERT INTO t SELECT | WITH ...`, `UPDATE t SET ...`, `DELETE FROM t ...`, with no hint,
//   OVERWRITE or column list, into a table of `session`'s default catalog (the server's
//   warehouse) that `takes` accepts; UPDATE and DELETE of primary-key tables only (those of an
//   append table rewrite its files, which must hold every acknowledged row first).
bool ReadsUnion(const std::string& text, const sql::Session& session,
                const std::function<bool(const Table&)>& takes);

// The first case of ReadsUnion: whether `text` is a query (the text alone decides).
bool IsUnionQuery(const std::string& text);

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
