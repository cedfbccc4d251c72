// Table: one Paimon table in a warehouse, opened at its latest schema.
// Thread-safety: a Table may be shared by threads for NewScan/NewWriter; each writer and scan is
// used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tributary/catalog.h"
#include "tributary/result.h"
#include "tributary/schema.h"
#include "tributary/value.h"

namespace tributary {

class TableWriter;
class TableScan;
class StreamScan;
struct StreamOptions;

// Point lookups by primary key on a pinned snapshot: the latest when created or refreshed.
// Each data file a lookup touches is decoded once into a process-wide cache of immutable files
// and binary-searched. Thread-safety: one thread at a time (GetAll runs its own threads).
class TableLookup {
 public:
  virtual ~TableLookup() = default;
  // The row whose primary key is `key` (values of the primary-key columns, in the order of
  // TableSchema::primary_keys), or nullopt.
  virtual Result<std::optional<Row>> Get(const Row& key) = 0;
  // The rows of many keys at once, in the order of `keys` (each what Get gives it, from the same
  // pinned snapshot). Keys in different buckets are looked up by up to `threads` threads at once
  // (1: the calling thread alone). The first bad key's error fails the whole call.
  virtual Result<std::vector<std::optional<Row>>> GetAll(const std::vector<Row>& keys,
                                                         int threads = 1) = 0;
  // Pins the latest snapshot, so later Get calls see newer commits.
  virtual Status Refresh() = 0;
};

struct WriteOptions {
  // Identifies the writer in snapshots (`commitUser`); a fresh UUID when empty.
  std::string commit_user;
  // Options that override the table's for this write only (from /*+ OPTIONS(...) */ hints).
  std::map<std::string, std::string> dynamic_options;
  // INSERT OVERWRITE: replace the partitions written to (or, with `overwrite_partition`, exactly
  // that static partition; an empty map means the whole table).
  bool overwrite = false;
  std::optional<std::map<std::string, std::string>> overwrite_partition;
  // An OVERWRITE of several static partitions at once (with `overwrite_partition`, if set), in
  // one commit: dropping several partitions (DROP PARTITION, partition expiration) is atomic.
  std::vector<std::map<std::string, std::string>> overwrite_partitions;
  // An OVERWRITE into this many buckets instead of the table's 'bucket' (a rescale of a
  // fixed-bucket table; the partitions it rewrites keep that count, later writes go to it).
  std::optional<int32_t> overwrite_buckets;
  // An OVERWRITE that rewrites rows read from this snapshot: it commits only if the partitions
  // it replaces still hold exactly the files they held there, else fails with Conflict (so a
  // write committed in between is never lost; read again and retry).
  std::optional<int64_t> overwrite_base_snapshot;
  // Static partial-column write (primary-key tables with the deduplicate or partial-update
  // engine): rows still carry every column, but only these columns are written; every other
  // column keeps its stored value (NULL for a new key). Must list the whole primary key; the
  // other columns must be nullable.
  std::optional<std::vector<std::string>> write_columns;
  // Long-lived writers (streaming ingestion): compaction runs in the background, as in Paimon's
  // writers, and its result is committed by a later Commit() instead of delaying this one; a
  // commit waits for it only when a bucket has 'num-sorted-run.stop-trigger' sorted runs.
  // Compactions still running when the writer is destroyed are abandoned (their files removed).
  // Off: every Commit() compacts before it returns (what one-shot statements want).
  bool async_compaction = false;
  // Called before the first row goes into a partition the table does not have yet, with the
  // partition's path ("dt=20261204"); an error refuses the row (the writer's Write returns it).
  // Table::NewWriter sets it for tables with automatic partitions: a row for a partition past
  // the retention, which the next maintenance would drop, is refused.
  std::function<Status(const std::string& partition_path)> check_new_partition;
  // Local directories where a writer with 'write-buffer-spillable' spills its buffers (the SQL
  // session's 'io.tmp.dirs'); empty: $TMPDIR, else /tmp.
  std::vector<std::string> spill_dirs;
};

// One conjunct of a scan filter, on a column of the table schema. Scans use filters to skip
// partitions, files and rows; a scan returns only rows that satisfy every filter.
struct Predicate {
  enum class Op { kEq, kNe, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull, kIn };
  int column = 0;  // index in the table schema
  Op op = Op::kEq;
  std::vector<Value> literals;  // one for comparisons, several for kIn, none for null tests
  // kIn: `literals` are ascending, without NULLs or duplicates (set by the scans, which sort
  // every IN list once so that a row is checked by binary search).
  bool sorted = false;
};

struct ScanOptions {
  // Table-schema column indexes to return, in this order; all columns when unset.
  std::optional<std::vector<int>> projection;
  std::vector<Predicate> filters;
  // Time travel: read this snapshot instead of the latest.
  std::optional<int64_t> snapshot_id;
  // Stop after this many rows (a sample: which rows is unspecified).
  std::optional<int64_t> limit;
  std::map<std::string, std::string> dynamic_options;
  // Session time zone ('Asia/Shanghai', '+08:00', 'default' for the machine's) for casts of
  // evolved columns between TIMESTAMP_LTZ and wall-clock types; empty: UTC.
  std::string time_zone;
  // Append tables with 'row-tracking.enabled': each row also returns its `_ROW_ID` and
  // `_SEQUENCE_NUMBER` after the table columns (projection indexes n and n + 1).
  bool row_tracking = false;
  // The most rows one batch (Next or NextColumns) holds; 0: no bound. With a bound, files that
  // need no merge are read a slice at a time and splits one after another, so the scan holds one
  // slice (for results streamed to an output) instead of whole splits read ahead in parallel
  // (for aggregates); a bucket whose files are merged is still read whole.
  size_t max_batch_rows = 0;
  // Local directories where a merge of more sorted runs than 'sort-spill-threshold' spills (the
  // SQL session's 'io.tmp.dirs'); empty: $TMPDIR, else /tmp.
  std::vector<std::string> spill_dirs;
};

// A batch of rows of one scan, with their row kinds (always +I for a batch read).
struct RowBatch {
  std::vector<Row> rows;
  std::vector<RowKind> kinds;
  void Clear() {
    rows.clear();
    kinds.clear();
  }
};

class Table {
 public:
  virtual ~Table() = default;

  virtual const Identifier& identifier() const = 0;
  virtual const std::string& path() const = 0;
  virtual std::shared_ptr<const TableSchema> schema() const = 0;

  // REQUIRES: no system_table in identifier().
  virtual Result<std::unique_ptr<TableWriter>> NewWriter(const WriteOptions& options) = 0;
  virtual Result<std::unique_ptr<TableScan>> NewScan(const ScanOptions& options) = 0;
  // A streaming read of the table's changes (tributary/stream_scan.h).
  virtual Result<std::unique_ptr<StreamScan>> NewStreamScan(const StreamOptions& options) = 0;
  // REQUIRES: a primary-key table.
  virtual Result<std::unique_ptr<TableLookup>> NewLookup() = 0;

  // COUNT(*) of a snapshot (the latest when unset) answered from file metadata alone, when the
  // metadata determines it exactly (append tables; primary-key buckets holding one file without
  // retractions); nullopt when rows must be read and merged.
  virtual Result<std::optional<int64_t>> CountFromMetadata(std::optional<int64_t> snapshot_id) = 0;

  // Full compaction of every partition and bucket (CALL sys.compact); commits a COMPACT snapshot.
  // Returns the new snapshot id, or nullopt when there was nothing to compact. `progress`, when
  // set, is told (buckets done, buckets to compact) after each bucket. With `partitions`, only
  // the partitions matching one of the specs (partition column -> value as in the partition's
  // directory name, every column given or some) are compacted. Old snapshots expire afterwards
  // (also for 'write-only' tables: this is their compaction job); when that fails the
  // compaction stands, and the failure goes to `warnings` when set (else it is the error).
  // Merges past 'sort-spill-threshold' spill to `spill_dirs` (empty: $TMPDIR, else /tmp).
  virtual Result<std::optional<int64_t>> CompactFull(
      const std::function<void(int64_t done, int64_t total)>& progress = {},
      const std::vector<std::map<std::string, std::string>>& partitions = {},
      std::vector<std::string>* warnings = nullptr,
      const std::vector<std::string>& spill_dirs = {}) = 0;

  // Id of the latest snapshot, or nullopt for an empty table.
  virtual Result<std::optional<int64_t>> LatestSnapshotId() const = 0;
};

}  // namespace tributary
