// Rollback (Paimon's RollbackHelper, CALL sys.rollback_to): the table goes back to a snapshot, or
// to a tag's snapshot. The LATEST hint is moved first, then every later snapshot is removed,
// newest first (a crash leaves the table at some snapshot between the two, readable), then the
// later long-lived changelogs and the tags of later snapshots. The data files only the removed
// snapshots used are left to CALL sys.remove_orphan_files, as Paimon leaves them. A tag whose
// snapshot expired is written back as that snapshot (then the earliest one).
// Thread-safety: stateless; not safe beside writers of the same table (as in Paimon: stop them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tributary/result.h"

namespace tributary::commit {

struct RollbackResult {
  int64_t previous_snapshot = 0;  // the latest before
  int64_t current_snapshot = 0;   // the latest now
  int64_t snapshots_removed = 0;
  int64_t tags_removed = 0;
};

// Exactly one of `snapshot_id` and `tag` (non-empty) names the target. A snapshot that no
// longer exists is found through a tag of that snapshot, as Paimon does.
Result<RollbackResult> RollbackTo(const std::string& table_path, std::optional<int64_t> snapshot_id,
                                  const std::string& tag);

}  // namespace tributary::commit
