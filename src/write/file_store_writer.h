// FileStoreWriter: the TableWriter of a table in the Paimon format (write/table_write.h makes
// one): rows -> partition and bucket -> per-bucket write buffer (sorted and merged by key) ->
// level-0 files -> compaction -> commit. Its code is split by path: routing, buckets and the
// write buffer in file_store_writer.cc, background compaction in
// file_store_writer_compaction.cc, the commit in file_store_writer_commit.cc.
// Internal to write/. Thread-safety: one thread writes; background compactions run on their own.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <semaphore>
#include <set>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "commit/file_store_commit.h"
#include "commit/snapshot_expire.h"
#include "common/check_value.h"
#include "common/parallel.h"
#include "compact/compaction_job.h"
#include "compact/deletion_vectors.h"
#include "compact/full_changelog.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "datafile/spill_file.h"
#include "datafile/test_hooks.h"
#include "format/binary_row.h"
#include "format/parquet/writer.h"
#include "io/file_cache.h"
#include "io/file_system.h"
#include "merge/column_merge.h"
#include "merge/field_aggregator.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "meta/external_paths.h"
#include "meta/partition_marker.h"
#include "meta/paths.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_reader.h"
#include "options/core_options.h"
#include "options/option_values.h"
#include "tributary/table_writer.h"
#include "write/append_compact.h"
#include "write/bucket_writer.h"
#include "write/column_buffer.h"
#include "write/dynamic_bucket.h"
#include "write/lookup_changelog.h"
#include "write/table_write.h"

namespace tributary::write {

using commit::CommitMessage;
using commit::CommitRequest;
using commit::CommitResult;
using commit::FileStoreCommit;
using compact::BuildSortedRuns;
using compact::CompactionResult;
using compact::CompactUnit;
using compact::DryRunMerge;
using compact::RunCompaction;
using compact::UniversalCompactionPicker;
using datafile::DataFileWriter;
using datafile::DecodeKeyRange;
using datafile::FileLayout;
using datafile::GetTestHooks;
using datafile::ReadDataFile;
using io::FileCache;
using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;
using meta::ReadLiveEntries;
using meta::ResolveExternalPath;
using options::CoreOptions;
using options::FileFormatOptions;

using merge::KeyValue;

using BucketId = std::pair<std::string, int32_t>;  // (serialized partition, bucket)

class FileStoreWriter : public TableWriter {
 public:
  FileStoreWriter(std::string path, std::shared_ptr<const TableSchema> schema, WriteOptions options,
                  CoreOptions core, WriteContext ctx,
                  std::unique_ptr<merge::MergeFunction> input_merge, TableRowScanner scanner);

  ~FileStoreWriter() override;

  Status Write(RowKind kind, const Row& row) override { return Write(kind, Row(row)); }

  Status Write(RowKind kind, Row&& row) override;

  // Cross-partition updates (a primary key without every partition key, dynamic buckets), as
  // Paimon's global index assigner: each key lives in one partition, known from a scan of the
  // table when the writer starts (under the dynamic-bucket table lock) and kept as rows are
  // written. A row whose key lives in another partition: deduplicate moves the key (a DELETE in
  // the old partition, then the row in its own), partial-update and aggregation update it in
  // the old partition (the row is written there), first-row keeps the first row (the row is
  // dropped). A retraction goes to the partition the key lives in.
  Status WriteCrossPartition(RowKind kind, Row&& row);

  uint32_t CrossPartitionId(const Row& partition);

  // The key -> partition index, read from the table when the writer first writes and again when
  // another writer committed since this one's last commit.
  Status LoadCrossIndex();

  // Routes a row to its partition's bucket and buffers it.
  // `prepared`: the merge's input preparation was applied already (rows routed again).
  Status Route(RowKind kind, Row&& row, bool prepared = false);

  std::vector<std::string> warnings() const override { return warnings_; }

  Result<std::optional<int64_t>> Commit() override;

  Result<std::optional<int64_t>> CommitAndWaitForCompaction() override;

  // After a failed commit: when the table was dropped under this writer, the directories its
  // flushes made again (buckets, partitions, the table's own) are removed where empty, so a
  // dropped table leaves nothing behind.
  void RemoveDirsOfDroppedTable();

  void Abort() override;
  // The bucket writers open now (CloseIdleBuckets closes those a commit brought nothing to).
  size_t open_buckets() const { return buckets_.size(); }
  Status FlushPending(std::vector<meta::ManifestEntry>* files) override;
  void SetNextCommitInfo(int64_t identifier,
                         std::map<std::string, std::string> properties) override {
    next_commit_info_ = std::make_pair(identifier, std::move(properties));
  }

 private:
  // A compaction running in the background (WriteOptions::async_compaction) for one bucket. Its
  // result is committed by a later commit; it has its own file namer (flushes use the bucket's).
  struct CompactionJob {
    std::string dir;
    meta::FileNamer namer{"data-", ""};
    Status status;
    CompactionResult result;
    std::atomic<bool> done{false};
    std::atomic<bool> cancelled{false};  // dropped before it ran: it does not run
    // A deletion-vector table's job ('lookup-wait' = 'false'): the vectors its compaction
    // marked, written to an index file when it changed any, and what it started from.
    std::optional<meta::IndexManifestEntry> vectors;
    std::optional<CommitMessage::CompactBase> base;
    std::mutex mu;
    std::condition_variable finished;
    // Blocks until the job has run (or was skipped, cancelled).
    void Wait() {
      std::unique_lock<std::mutex> lock(mu);
      finished.wait(lock, [this] { return done.load(); });
    }
    void Finish() {
      std::lock_guard<std::mutex> lock(mu);
      done.store(true);
      finished.notify_all();
    }
  };
  // The writer's background compactions run one at a time, in the order they were started, on
  // one thread of the writer's (started with the first): a thread per job would start one per
  // bucket at once across thousands of buckets.
  std::thread compactor_;
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  void StopCompactor();

  std::vector<std::string> warnings_;  // of the last Commit()
  // SetNextCommitInfo's, for the next commit.
  std::optional<std::pair<int64_t, std::map<std::string, std::string>>> next_commit_info_;
  // Append tables: the background small-file compaction (async_compaction), and the buckets
  // written since a compaction last looked at them.
  std::future<Status> append_compaction_;
  std::set<BucketId> append_touched_;
  std::set<BucketId> append_written_;  // every bucket this writer wrote
  // 'changelog-producer' = 'lookup': the buckets' value caches share this budget
  // ('lookup.cache-max-memory-size'); they hold the state of snapshot lookup_cache_snapshot_
  // (-1: none), and are used when the commit starts from that snapshot (restored_snapshot_).
  std::atomic<int64_t> lookup_cache_used_{0};
  int64_t lookup_cache_budget_ = 256LL << 20;
  int64_t lookup_cache_snapshot_ = -1;
  int64_t restored_snapshot_ = 0;
  // 'changelog-producer' = 'full-compaction': commits since the last full compaction, and how
  // many make one ('full-compaction.delta-commits'; 1 when unset).
  int64_t commits_since_full_compaction_ = 0;
  int64_t full_compaction_delta_commits_ = 1;
  bool full_compaction_every_ = false;  // 'full-compaction.delta-commits' is set

  // Waits for every background compaction and deletes what it wrote (never committed).
  void DropCompactionJobs();

  // Starts compacting `unit` of bucket `id` in the background.
  void StartCompactionJob(const BucketId& id, BucketWriter* bw, CompactUnit unit, int32_t highest);

  // What a deletion-vector bucket's next background compaction starts from ('lookup-wait' =
  // 'false'): the bucket's files and live vectors once the commit that picks it is published.
  struct VectorsJobSeed {
    std::vector<meta::DataFileMeta> files;
    std::optional<meta::IndexManifestEntry> vectors;
  };
  // Starts pushing the level-0 files of `seed` up in the background (Paimon's lookup compaction,
  // as CompactWithVectors), its vectors written; a later commit takes the result in.
  void StartVectorsJob(const BucketId& id, BucketWriter* bw, VectorsJobSeed seed);
  // An index file written into the data file directory of an external bucket directory
  // ('index-file-in-data-file-dir' with 'data-file.external-paths') records its full path, as
  // Paimon 1.3 writes it.
  void RecordIndexPath(const meta::FileNamer& namer, meta::IndexManifestEntry* entry) const {
    if (index_in_data_dir_ && namer.external_dir()) {
      entry->external_path = *namer.external_dir() + "/" + entry->file_name;
    }
  }
  // Queues `run` (`job`'s work) on the writer's compaction thread, `job` the bucket's.
  void Enqueue(const BucketId& id, std::unique_ptr<CompactionJob> job, std::function<void()> run);
  // Deletion-vector tables with 'lookup-wait' = 'false' in a long-lived writer: commits publish
  // level-0 files without waiting for their compaction (batch reads see them once a later
  // commit takes it in); the end of the input waits.
  bool VectorsAsync() const {
    return deletion_vectors_ && !lookup_wait_ && options_.async_compaction && !options_.overwrite &&
           !core_.write_only;
  }

  int32_t TotalBuckets() const { return core_.bucket > 0 ? core_.bucket : -1; }

  // The bucket count rows of partition `pbytes` go to: a partition keeps the count its files
  // were written with ('bucket' changed by ALTER TABLE applies to new partitions, and to a
  // partition INSERT OVERWRITE rewrites), as Paimon's _TOTAL_BUCKETS.
  // The same once restored, without state (commits prepare buckets on several threads).
  int32_t KnownTotalBuckets(const std::string& pbytes) const;

  Result<int32_t> TotalBucketsOf(const std::string& pbytes);

  // Whether merging can fail on valid input: sum/product/count over integers and decimals.
  bool MergeCanFail() const;

  // Whether the column statistics of `files` prove that no aggregate can overflow: every
  // sum/count column's largest magnitude, added up over the files (a key has at most one record
  // per file), stays within the type (products are never proven).
  bool SumsProvablyFit(const std::vector<meta::DataFileMeta>& files) const;

  // Whether `f`'s key range overlaps any of `files`' key ranges (unknown ranges overlap).
  bool OverlapsAny(const meta::DataFileMeta& f, const std::vector<meta::DataFileMeta>& files) const;

  // Engines that refuse retractions fail at Write, before anything is buffered.
  Status CheckRetractAllowed() const;

  // Picks the latest snapshot as the one this writer builds on: existing_ and
  // partition_buckets_ then hold the live files of the partitions it holds buckets of (read
  // from that snapshot's manifests, unless they are already that snapshot's: live_at_), other
  // partitions are read when first written (RestorePartition); existing_vectors_ is read whole.
  Status Restore();
  // existing_ and partition_buckets_ of partition `pbytes` as the restored snapshot has them
  // (Restore first). A writer over thousands of partitions reads only those it writes (issue
  // 38), one at a time up to kPartitionsRestoredOneByOne, then every partition at once.
  Status RestorePartition(const std::string& pbytes);
  Status RestorePartitions(const std::set<std::string>& partitions);  // (not restored yet)
  Status RestoreAllPartitions();
  // After a commit: the writers of buckets it brought no new rows to (not `active`), with
  // nothing buffered, spilled or compacting, are closed, as Paimon's writers close one whose
  // last change is committed: a long-lived writer over hourly or daily partitions keeps the
  // buckets it writes, not every one it ever wrote (issue 38). A later row reopens the bucket
  // from the restored snapshot's files. A partition left with no open bucket is no longer
  // restored (its live files are read again when it is written again).
  void CloseIdleBuckets(const std::set<BucketId>& active);
  static constexpr size_t kPartitionsRestoredOneByOne = 16;
  // After this writer's commit of `req` (`result`): when the snapshots it published directly
  // follow the restored one (no other commit in between) and nothing of it was dropped or
  // renumbered, the commit is applied to existing_ and partition_buckets_, which are then the
  // latest snapshot's (live_at_): the next Restore reads no manifest while nothing else commits
  // (a writer over thousands of buckets would read every live entry at each commit).
  void AdvanceRestored(const CommitRequest& req, const CommitResult& result, bool renumbered);

  Result<BucketWriter*> GetBucket(const std::string& pbytes, const Row& partition, int32_t bucket);

  // A bucket this writer opens for the first time: a new partition must be allowed
  // ('client.writer.dynamic-create-partition.enabled') and within 'max.partition.num', and the
  // table's buckets (over every partition) within 'max.bucket.num', checked before any row of it
  // is buffered.
  Status CheckNewBucket(const BucketId& id, const Row& partition);
  // CheckNewBucket's counts (valid until a Restore of another writer's snapshot; carried over
  // this writer's own commits, when limits_fresh_ is false).
  Status CountLimits();
  bool limits_counted_ = false;
  bool limits_fresh_ = false;
  std::set<std::string> limit_partitions_;
  std::set<std::string> marked_partitions_;  // added (ADD PARTITION), not written by this writer
  int64_t marked_only_ = 0;                  // of them, partitions without files
  int64_t limit_buckets_ = 0;

  void RememberBucket(const std::string& pbytes, int32_t bucket, BucketWriter* bw);

  // This commit's work in one bucket: flushes its buffer, checks that aggregates still merge and
  // compacts when the picker says so. Different buckets run on different threads: touches only
  // `bw`, *m and *outputs (and reads existing_, restored before).
  // With asynchronous compaction: `job` is the bucket's running compaction (if any); a finished
  // one is taken into this commit (*job_finished), and a new one is not run here but returned in
  // *next to be started once this commit is published.
  // PrepareBucket's compaction of a deletion-vector table: every level-0 file goes up (Paimon's
  // lookup compaction, forced), the replaced rows marked in the bucket's vectors (`vectors`,
  // loaded from the restored snapshot), and the new vectors handed in with the compaction.
  // `only_new`: an overwrite's, which compacts only its own files (the others are replaced).
  // The compaction a deletion-vector bucket of `files` calls for (every level-0 file goes up),
  // and the base it starts from (`vectors`: the bucket's live index entry).
  struct VectorsCompaction {
    CompactUnit unit;
    int32_t highest = 0;
    CommitMessage::CompactBase base;
  };
  static std::optional<VectorsCompaction> PickVectorsCompaction(
      const std::vector<meta::DataFileMeta>& files, const UniversalCompactionPicker& picker,
      const std::optional<meta::IndexManifestEntry>& vectors);
  Status CompactWithVectors(const BucketId& id, BucketWriter* bw,
                            const UniversalCompactionPicker& picker,
                            compact::BucketDeletionVectors vectors, bool only_new, CommitMessage* m,
                            std::vector<std::pair<std::string, std::string>>* outputs) const;

  // What PrepareBucket leaves for after the commit: a background compaction to start, or
  // level-0 files to compact before the commit returns (the end of an input).
  struct NextCompaction {
    std::optional<std::pair<CompactUnit, int32_t>> unit;
    std::optional<VectorsJobSeed> seed;
    bool level0_left = false;
  };
  Status PrepareBucket(const BucketId& id, BucketWriter* bw,
                       const UniversalCompactionPicker& picker, CommitMessage* m,
                       std::vector<std::pair<std::string, std::string>>* outputs,
                       CompactionJob* job, bool* job_finished, NextCompaction* next) const;
  // PrepareBucket's part for a deletion-vector table whose commits do not wait (VectorsAsync).
  void PrepareVectorsAsync(const BucketId& id, CommitMessage* m,
                           std::vector<std::pair<std::string, std::string>>* outputs,
                           CompactionJob* job, bool* job_finished, NextCompaction* next) const;

  // A partition that another process rewrote into another bucket count (CALL sys.rescale, INSERT
  // OVERWRITE) since this writer routed rows to it: its pending rows are routed again to the
  // buckets of the new count, so the commit lands in the partition's new layout instead of
  // failing. Rows this transaction already flushed to files of the old layout cannot be moved:
  // then the commit fails, saying so, and nothing is committed.
  Status RebucketRescaledPartitions();

  // A deletion-vector table whose commit's compaction lost a race with another writer's (so
  // its rows wait in level 0, invisible to batch reads): compacts the level-0 files of
  // `buckets` at the latest snapshot in COMPACT snapshots of their own, retried while other
  // writers keep winning ('commit.max-retries'), so a statement's rows are visible when it
  // returns, as with one writer.
  Status CompactLeftLevel0(const std::set<BucketId>& buckets);
  std::set<BucketId> level0_left_;  // DoCommit's buckets whose compaction was dropped

  // DoCommit's part for OVERWRITE (file_store_writer_commit.cc).
  Status SetOverwrite(CommitRequest* req);
  Result<std::optional<int64_t>> DoCommit();

  std::string path_;
  std::shared_ptr<const TableSchema> schema_;
  WriteOptions options_;
  CoreOptions core_;
  WriteContext ctx_;
  const FileLayout& layout_;
  std::unique_ptr<merge::MergeFunction> input_merge_;  // PrepareInput only
  std::unique_ptr<DynamicBucketAssigner> dynamic_;     // 'bucket' = '-1' primary-key tables
  // Cross-partition updates (WriteCrossPartition): each key's partition.
  TableRowScanner scanner_;
  bool cross_partition_ = false;
  std::vector<int> pk_idx_;  // the trimmed primary key (no partition column)
  std::vector<DataType> pk_types_;
  bool cross_loaded_ = false;
  bool cross_check_ = false;  // check the latest snapshot at the next write
  std::optional<int64_t> cross_snapshot_;
  absl::flat_hash_map<std::string, uint32_t> cross_partition_of_;  // key -> partition id
  std::vector<Row> cross_partitions_;                              // partition id -> values
  absl::flat_hash_map<std::string, uint32_t> cross_partition_id_;  // BinaryRow -> id
  std::vector<DataType> key_types_;
  std::vector<int> partition_idx_, bucket_idx_;
  std::vector<DataType> partition_types_, bucket_types_;
  std::vector<Field> partition_fields_;
  Row scratch_partition_, scratch_key_;  // reused by Write
  std::string scratch_pbytes_;
  std::map<BucketId, std::unique_ptr<BucketWriter>> buckets_;
  // Route's memory of each partition written: its bucket count (TotalBucketsOf) and its writers
  // by bucket (GetBucket), one hash lookup a row however many partitions the rows alternate
  // between. Entries of an older generation (a Restore, a rescale since) are stale.
  struct PartitionRoute {
    uint64_t generation = 0;
    int32_t total = 0;  // 0: not known yet
    std::vector<BucketWriter*> writers;
  };
  absl::flat_hash_map<std::string, PartitionRoute> routes_;
  uint64_t route_generation_ = 1;
  PartitionRoute& RouteOf(const std::string& pbytes);
  std::map<BucketId, std::vector<meta::DataFileMeta>> existing_;
  // 'deletion-vectors.enabled': each bucket's live deletion-vector index entry in the restored
  // snapshot; 'deletion-vectors.bitmap64'.
  bool deletion_vectors_ = false;
  bool bitmap64_ = false;
  bool lookup_wait_ = true;                            // 'lookup-wait'
  bool index_in_data_dir_ = false;                     // 'index-file-in-data-file-dir'
  std::optional<meta::ExternalPaths> external_paths_;  // 'data-file.external-paths'
  std::map<BucketId, meta::IndexManifestEntry> existing_vectors_;
  std::map<std::string, int32_t> partition_buckets_;  // partition -> its files' bucket count
  std::vector<std::pair<std::string, std::string>> compact_outputs_;
  std::map<BucketId, std::unique_ptr<CompactionJob>> jobs_;  // background compactions
  bool waiting_for_jobs_ = false;  // CommitAndWaitForCompaction in progress
  bool restored_ = false;
  // The snapshot restored (null: the table has none), and which of its partitions existing_ and
  // partition_buckets_ hold (restored_all_: every one).
  std::shared_ptr<const meta::Snapshot> restored_snap_;
  std::set<std::string> restored_partitions_;
  bool restored_all_ = false;
  // The snapshot existing_ and partition_buckets_ hold the live files of while restored_ is false
  // (AdvanceRestored): its id and delta manifest list; nullopt: unknown, the next Restore reads
  // the latest snapshot's.
  std::optional<std::pair<int64_t, std::string>> live_at_;
  std::string restored_delta_;  // restored_snapshot_'s delta manifest list
  bool failed_ = false;
  // 'write-buffer-spillable': full buffers go to spill_file_ (made at the first spill, dropped
  // once a commit has merged every run) instead of level-0 files.
  bool spillable_ = false;
  std::unique_ptr<datafile::SpillFile> spill_file_;
  // A full buffer: spilled (spillable_, within 'write-buffer-spill.max-disk-size') or flushed.
  Status SpillOrFlush(BucketWriter* bw);
  bool WouldSpill(BucketWriter* bw) const;
  int64_t buffered_bytes_ = 0;  // across every bucket's write buffer
  // What buffered_bytes_ stood at when last charged to the process's MemoryBudget.
  int64_t charged_bytes_ = 0;
  // Charges the change of buffered_bytes_ to the process's budget: at once when `force` or when
  // it shrank, else once it grew by 64 KiB (one atomic add per 64 KiB of rows, not per row).
  void ChargeBuffered(bool force);
  bool committed_all_ = true;
  int64_t commits_ = 0;  // DoCommit's commits attempted (FileStoreCommit::KeepLiveFilesWhole)
};

}  // namespace tributary::write
