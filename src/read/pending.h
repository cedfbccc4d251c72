// Writes a table holds that its latest snapshot does not have yet, which reads of the latest
// snapshot see too: the server's hot tier (server/hot_tier.h), whose shared writer flushes the
// log tail into level-0 data files on request, not committed (tiering commits those same files
// later). A read of the latest snapshot then plans the snapshot the view names plus those files,
// merged as any level-0 files are (the union read of issue 39).
// Thread-safety: a PendingSource may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "meta/manifest.h"
#include "tributary/catalog.h"
#include "tributary/result.h"

namespace tributary::read {

struct PendingView {
  // The lake snapshot the files go on top of (nullopt: the table has none yet).
  std::optional<int64_t> snapshot_id;
  // ADD entries of data files written into the table's bucket directories, not committed.
  std::vector<meta::ManifestEntry> files;
  // The source's Version() when the view was taken.
  uint64_t version = 0;
};

class PendingSource {
 public:
  virtual ~PendingSource() = default;
  // A number that changes whenever what `id` holds pending changes (a write, a tiering); 0 while
  // it holds nothing pending. Cheap: no I/O, no waiting.
  virtual uint64_t Version(const Identifier& id) = 0;
  // The pending files of `id` with the snapshot they go on top of; nullopt when nothing is
  // pending (read the latest snapshot as usual). A table whose reads cannot merge level-0 files
  // (deletion vectors) has its pending writes committed instead, and gets nullopt.
  virtual Result<std::optional<PendingView>> Pending(const Identifier& id) = 0;
  // Commits what `id` holds pending, for a read that sees only committed snapshots (a streaming
  // read, a system table, a snapshot pinned by id).
  virtual Status Settle(const Identifier& id) = 0;
};

// What a reader of one table asks: the source and the table's name (an empty hook: none).
struct PendingHook {
  std::shared_ptr<PendingSource> source;
  Identifier id;
  explicit operator bool() const { return source != nullptr; }
};

}  // namespace tributary::read
