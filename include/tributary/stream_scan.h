// StreamScan: follows a table as it is committed to, returning its changes (rows with their row
// kinds: +I, -U, +U, -D) in commit order, as a Flink or Fluss streaming source does.
//
// Where the changes come from depends on the table's 'changelog-producer':
// - 'input' (and the other producers): the changelog files each snapshot lists.
// - 'none': the new files of each APPEND snapshot, then normalised against the last row seen for
//   each key (Flink's ChangelogNormalize): an update becomes -U(before) +U(after), a repeated
//   row is dropped, a delete of a key never seen is dropped. The reader keeps one row per key in
//   memory for this.
//   With StreamOptions::upserts the new files' rows come as written instead.
// - Append tables: the rows of each APPEND snapshot, +I, in write order within a bucket.
//
// Start-up ('scan.startup.mode'): `full` reads the latest snapshot as +I rows, then every later
// change, with nothing lost or doubled at the seam; `latest` only changes committed after the
// scan opened; `earliest` every retained change from the first snapshot; `from-snapshot` the
// changes of `startup_snapshot_id` on; `timestamp` the changes of snapshots committed at or after
// `startup_timestamp_millis`.
// Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tributary/column_batch.h"
#include "tributary/result.h"
#include "tributary/table.h"

namespace tributary {

struct StreamOptions {
  // Table-schema column indexes to return, in this order; all columns when unset.
  std::optional<std::vector<int>> projection;
  // Changes whose row fails a filter are dropped (after normalisation, so an update that moves
  // a row out of the filter still retracts it).
  std::vector<Predicate> filters;
  // full | latest | earliest | from-snapshot | timestamp.
  std::string startup_mode = "full";
  std::optional<int64_t> startup_snapshot_id;       // from-snapshot
  std::optional<int64_t> startup_timestamp_millis;  // timestamp
  // Session time zone for casts of evolved columns (as ScanOptions::time_zone).
  std::string time_zone;
  // Each row also returns where its change sits in the table's log, in three columns after the
  // projected ones: `_log_offset` BIGINT (snapshot id × 2^32 + the change's position among that
  // snapshot's changes of its bucket: strictly increasing per bucket and the same in every read,
  // not dense; NULL for the rows of a `full` start-up's snapshot), `_commit_timestamp`
  // TIMESTAMP_LTZ(3) (when its snapshot was committed) and `_bucket` INT (NULL for the rows of a
  // `full` start-up's snapshot). Without a changelog producer the changes are derived by the
  // reader (normalised), so their offsets are the same only for readers that started alike.
  bool with_change_metadata = false;
  // 'consumer-id': the reader's position is stored with the table when the reader opens and at
  // each Checkpoint() / CheckpointPartial(): Paimon's consumer/consumer-<id> (the next snapshot
  // whose changes are to be delivered, which expiration keeps) and, beside it,
  // consumer/offset-<id> (how many of that snapshot's changes were delivered). A reader opened
  // with the same id resumes exactly there, whatever the start-up mode: no change lost, none
  // repeated, also when the last reader stopped inside a snapshot. Changes handed out after the
  // last checkpoint (a reader killed before it) are handed out again: at least once then.
  // The offset counts the changes this reader returns, after its projection and filters: a
  // consumer id belongs to one query.
  std::string consumer_id;
  // 'consumer.ignore-progress': a consumer starts by the start-up mode, not from its stored
  // position (which it then overwrites).
  bool consumer_ignore_progress = false;
  // A primary-key table without a changelog producer: its changes as written (each +I/+U an
  // upsert of its key's whole row, each -U/-D a removal of its key), not normalised. No row per
  // key is held, nothing is read to seed it, and an unchanged row or a removal of a key never
  // seen comes out too: right for a consumer that applies upserts by the same key (a streaming
  // job into a deduplicate sink keyed alike), wrong for one that needs each update's old row.
  // No effect on other tables.
  bool upserts = false;
  // How often a waiting reader looks for a new snapshot ('continuous.discovery-interval');
  // unset: the table's option, else 50 ms.
  std::optional<std::chrono::milliseconds> discovery_interval;
};

// Changes column by column: row i of `columns` (output_fields()) is a change of kind kinds[i].
struct ChangeColumns {
  std::vector<RowKind> kinds;
  ColumnBatch columns;
  size_t size() const { return kinds.size(); }
  void Clear() {
    kinds.clear();
    columns.Clear();
  }
};

class StreamScan {
 public:
  virtual ~StreamScan() = default;
  // Fields of the rows returned (the projection of the table schema).
  virtual const std::vector<Field>& output_fields() const = 0;
  // Replaces `batch` with the next changes and returns true as soon as any are committed, or
  // returns false when none arrived within `timeout` (the stream stays open: call again). A new
  // snapshot is noticed within 50 ms.
  virtual Result<bool> Next(RowBatch* batch, std::chrono::milliseconds timeout) = 0;
  // The same changes column by column (for consumers that work on columns: a streaming job, a
  // query): Next's batch converted, unless the reader reads columns itself (a table's stream
  // that needs no normalisation). Calls of Next and NextColumns may alternate.
  virtual Result<bool> NextColumns(ChangeColumns* batch, std::chrono::milliseconds timeout);
  // The snapshot whose changes come next (the reader's position in the table's log).
  virtual int64_t next_snapshot_id() const = 0;
  // Says that every change Next() returned so far has been delivered (printed, written on):
  // a consumer's stored position moves past them. Without it a consumer resumes where it last
  // checkpointed. A start-up that reads a snapshot whole ('full') stores its first position
  // when that read has been delivered. No-op without a consumer id.
  virtual Status Checkpoint() = 0;
  // Where Checkpoint() would put the reader now: (the snapshot whose changes come next, how
  // many of its changes were delivered already); nullopt while a start-up's whole snapshot is
  // still being read (no position resumes inside it). A streaming job records it with its sink
  // commit and resumes there (the consumer id's position, set before the reader opens).
  virtual std::optional<std::pair<int64_t, int64_t>> position() const = 0;
  // The same, but of the last batch Next() returned only the first `delivered` rows were
  // delivered (a LIMIT that ended inside it): the position is the next of its rows.
  virtual Status CheckpointPartial(size_t delivered) = 0;
};

}  // namespace tributary
