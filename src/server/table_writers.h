// The server's long-lived table writers, one per table, shared by every connection (issue 39
// part 1: the server owns each table's writers). A COPY FROM into a table takes the table's
// writer, waiting while another connection's statement holds it, writes its rows and commits
// through it: commits of many connections into one table do not race each other, and what the
// writer keeps between commits (its lookup caches and bucket layout, as `tributary ingest`
// keeps them) serves the next statement. Each statement's commit ends its input as a
// statement's does (compactions run in it), so an idle writer holds nothing pending.
// Thread-safety: every member may be called from any thread; a Lease is its holder's alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "tributary/result.h"

namespace tributary {
class Catalog;
class Table;
class TableWriter;
struct Identifier;
}  // namespace tributary

namespace tributary::server {

class TableWriters {
 public:
  struct Entry;

  // A table's writer, held until the lease goes.
  class Lease {
   public:
    Lease(Lease&&) noexcept;
    ~Lease();
    Table& table();
    TableWriter& writer();
    // After a failed statement: the writer is aborted (nothing of the statement is committed)
    // and dropped; the table's next statement opens a new one.
    void Discard();
    // A new writer for the table (after Discard), held by this lease.
    Status Reopen();
    // Which writer the table has: a number that changes whenever a new one is opened (after
    // Discard, or when its schema or incarnation changed), so a holder of state in it (the hot
    // tier) knows when that state is gone.
    uint64_t generation() const;

   private:
    friend class TableWriters;
    Lease(Entry* entry, std::unique_lock<std::timed_mutex> lock);
    Entry* entry_;
    std::unique_lock<std::timed_mutex> lock_;
  };

  static TableWriters& Instance();

  // The writer of table `id` of `catalog`, opened (or opened again: the table's schema changed,
  // or it was dropped and created again) as needed; none when another statement has held it
  // for `wait` (a slow COPY's client, say): the caller then writes with a writer of its own,
  // so no statement waits long on another.
  Result<std::optional<Lease>> Acquire(Catalog& catalog, const Identifier& id,
                                       std::chrono::milliseconds wait);
  // The same for `table`, opened by the caller (who need not hold its catalog while waiting).
  Result<std::optional<Lease>> Acquire(std::unique_ptr<Table> table,
                                       std::chrono::milliseconds wait);
  // How long a statement waits for a table's writer before it opens its own.
  static constexpr std::chrono::milliseconds kWait{1000};

  // At a clean stop: the writers no statement holds go.
  void CloseAll();

  // The commit user of the writers opened from now on (Paimon's commitUser: the hot tier's
  // snapshots are found by it, server/hot_tier.h); empty, a fresh one per writer.
  void set_commit_user(std::string user);
};

}  // namespace tributary::server
