// The write path: rows -> partition and bucket -> per-bucket write buffer (sorted and merged by
// key) -> level-0 files -> compaction -> commit.
#include <algorithm>
#include <thread>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <semaphore>
#include <future>
#include <set>

#include "format/binary_row.h"
#include "datafile/test_hooks.h"
#include "format/parquet/writer.h"
#include "common/parallel.h"
#include "meta/partition_marker.h"
#include "io/file_system.h"
#include "meta/schema_manager.h"
#include "merge/field_aggregator.h"
#include "merge/merge_config.h"
#include "merge/merge_function.h"
#include "meta/paths.h"
#include "meta/snapshot.h"
#include "write/bucket_writer.h"
#include "write/lookup_changelog.h"
#include "write/column_buffer.h"
#include "merge/column_merge.h"
#include "compact/compaction_job.h"
#include "compact/full_changelog.h"
#include "options/core_options.h"
#include "datafile/data_file.h"
#include "datafile/file_format.h"
#include "write/append_compact.h"
#include "write/dynamic_bucket.h"
#include "io/file_cache.h"
#include "commit/file_store_commit.h"
#include "commit/snapshot_expire.h"
#include "common/check_value.h"
#include "write/table_write.h"
#include "options/option_values.h"
#include "meta/snapshot_reader.h"
#include "tributary/table_writer.h"

namespace tributary::write {

using commit::CommitMessage;
using commit::CommitRequest;
using commit::CommitResult;
using commit::FileStoreCommit;
using compact::BuildSortedRuns;
using compact::CompactUnit;
using compact::CompactionResult;
using compact::DryRunMerge;
using compact::RunCompaction;
using compact::UniversalCompactionPicker;
using datafile::DataFileWriter;
using datafile::DecodeKeyRange;
using datafile::FileLayout;
using datafile::GetTestHooks;
using datafile::OptionIsTrue;
using datafile::ReadDataFile;
using io::FileCache;
using merge::ColumnMergeOutput;
using merge::ColumnMergePlan;
using meta::ReadLiveEntries;
using meta::ResolveExternalPath;
using options::CoreOptions;
using options::FileFormatOptions;

namespace {

using merge::KeyValue;

using BucketId = std::pair<std::string, int32_t>;  // (serialized partition, bucket)

class FileStoreWriter : public TableWriter {
 public:
  FileStoreWriter(std::string path, std::shared_ptr<const TableSchema> schema,
                  WriteOptions options, CoreOptions core, WriteContext ctx,
                  std::unique_ptr<merge::MergeFunction> input_merge, TableRowScanner scanner)
      : path_(std::move(path)), schema_(std::move(schema)), options_(std::move(options)),
        core_(std::move(core)), ctx_(std::move(ctx)), layout_(ctx_.layout),
        input_merge_(std::move(input_merge)), scanner_(std::move(scanner)) {
    ctx_.schema = schema_.get();
    if (auto n = schema_->Option("full-compaction.delta-commits")) {
      full_compaction_delta_commits_ = std::max<int64_t>(1, std::atoll(n->c_str()));
      full_compaction_every_ = true;
    }
    if (auto m = schema_->Option("lookup.cache-max-memory-size")) {
      // Checked at CREATE / ALTER: a value that no longer parses keeps the default.
      if (auto bytes = options::ParseMemorySize(*m); bytes.ok()) lookup_cache_budget_ = *bytes;
    }
    for (const auto& k : schema_->partition_keys) {
      int i = schema_->FieldIndex(k);
      partition_idx_.push_back(i);
      partition_types_.push_back(schema_->fields[i].type);
      partition_fields_.push_back(schema_->fields[i]);
    }
    for (const auto& k : schema_->BucketKeys()) {
      int i = schema_->FieldIndex(k);
      if (i < 0) continue;
      bucket_idx_.push_back(i);
      bucket_types_.push_back(schema_->fields[i].type);
    }
    if (options_.commit_user.empty()) options_.commit_user = meta::NewUuid();
    key_types_ = layout_.KeyTypes();
    if (layout_.primary_key && core_.bucket == -1) {
      // As Paimon, where each of the job's parallel assigners opens buckets of its own: without
      // 'dynamic-bucket.initial-buckets' new keys spread over one bucket per writer thread, so
      // flushes and compactions of a dynamic-bucket table run in parallel too.
      int32_t initial = core_.dynamic_bucket_initial_buckets > 0
                            ? core_.dynamic_bucket_initial_buckets
                            : DefaultParallelism();
      dynamic_ = std::make_unique<DynamicBucketAssigner>(
          path_, core_.dynamic_bucket_target_rows, initial, core_.dynamic_bucket_max_buckets);
      cross_partition_ = schema_->TrimmedPrimaryKeys().size() + schema_->partition_keys.size() !=
                         schema_->primary_keys.size();
      // Keys are the trimmed primary key across partitions, as Paimon's global index has them.
      pk_idx_ = layout_.key_columns;
      pk_types_ = layout_.KeyTypes();
    }
  }

  ~FileStoreWriter() override {
    if (!committed_all_) Abort();
    DropCompactionJobs();
    // A background append compaction commits itself: it runs to its end (its error, if any,
    // has no commit left to report it; the next writer's compaction tries again).
    if (append_compaction_.valid()) append_compaction_.wait();
  }

  Status Write(RowKind kind, const Row& row) override { return Write(kind, Row(row)); }

  Status Write(RowKind kind, Row&& row) override {
    if (failed_) return Status::Invalid("the writer failed earlier and must be discarded");
    if (row.size() != schema_->fields.size()) {
      return Status::Invalid("table '" + path_ + "' has " +
                             std::to_string(schema_->fields.size()) + " columns but the row has " +
                             std::to_string(row.size()));
    }
    for (size_t i = 0; i < row.size(); i++) TRIB_RETURN_NOT_OK(CheckValue(row[i], schema_->fields[i]));
    if (!layout_.primary_key && kind != RowKind::kInsert) {
      return Status::Invalid("an append table (no primary key) accepts only INSERT rows, got " +
                             std::string(RowKindShortString(kind)));
    }
    // Refused rows change nothing (not even the dynamic-bucket index).
    if (ctx_.merge_config && IsRetract(kind)) {
      TRIB_RETURN_NOT_OK(CheckRetractAllowed());
      // 'ignore-delete': the writer drops DELETE and UPDATE_BEFORE rows, whatever the merge
      // engine (as Paimon's table writer does).
      if (ctx_.merge_config->ignore_delete) return Status::OK();
    }
    if (cross_partition_) return WriteCrossPartition(kind, std::move(row));
    return Route(kind, std::move(row));
  }

  // Cross-partition updates (a primary key without every partition key, dynamic buckets), as
  // Paimon's global index assigner: each key lives in one partition, known from a scan of the
  // table when the writer starts (under the dynamic-bucket table lock) and kept as rows are
  // written. A row whose key lives in another partition: deduplicate moves the key (a DELETE in
  // the old partition, then the row in its own), partial-update and aggregation update it in
  // the old partition (the row is written there), first-row keeps the first row (the row is
  // dropped). A retraction goes to the partition the key lives in.
  Status WriteCrossPartition(RowKind kind, Row&& row) {
    if (options_.overwrite) {
      return Status::NotSupported("INSERT OVERWRITE of a table with cross-partition updates (a "
                                  "primary key without every partition key) is not supported yet");
    }
    TRIB_RETURN_NOT_OK(LoadCrossIndex());
    Row key(pk_idx_.size());
    for (size_t k = 0; k < pk_idx_.size(); k++) key[k] = row[pk_idx_[k]];
    std::string key_bytes = format::SerializeBinaryRow(pk_types_, key);
    Row partition(partition_idx_.size());
    for (size_t k = 0; k < partition_idx_.size(); k++) partition[k] = row[partition_idx_[k]];
    const uint32_t pid = CrossPartitionId(partition);
    auto in_partition = [&](Row r, uint32_t id) {
      for (size_t k = 0; k < partition_idx_.size(); k++) {
        r[partition_idx_[k]] = cross_partitions_[id][k];
      }
      return r;
    };
    const std::string& engine = ctx_.merge_config->engine;
    auto it = cross_partition_of_.find(key_bytes);
    if (IsRetract(kind)) {
      if (it == cross_partition_of_.end()) return Route(kind, std::move(row));
      const uint32_t old = it->second;
      if (engine == "deduplicate") cross_partition_of_.erase(it);
      return Route(kind, old == pid ? std::move(row) : in_partition(std::move(row), old));
    }
    if (it == cross_partition_of_.end()) {
      cross_partition_of_.emplace(std::move(key_bytes), pid);
      return Route(kind, std::move(row));
    }
    const uint32_t old = it->second;
    if (old == pid) return Route(kind, std::move(row));
    if (engine == "first-row") return Status::OK();
    if (engine == "deduplicate") {
      TRIB_RETURN_NOT_OK(Route(RowKind::kDelete, in_partition(row, old)));
      it->second = pid;
      return Route(kind, std::move(row));
    }
    return Route(kind, in_partition(std::move(row), old));
  }

  uint32_t CrossPartitionId(const Row& partition) {
    std::string bytes = format::SerializeBinaryRow(partition_types_, partition);
    auto [it, added] = cross_partition_id_.try_emplace(std::move(bytes),
                                                      static_cast<uint32_t>(cross_partitions_.size()));
    if (added) cross_partitions_.push_back(partition);
    return it->second;
  }

  // The key -> partition index, read from the table when the writer first writes and again when
  // another writer committed since this one's last commit.
  Status LoadCrossIndex() {
    TRIB_RETURN_NOT_OK(dynamic_->Hold());  // no other writer changes the table meanwhile
    if (cross_loaded_ && !cross_check_) return Status::OK();
    meta::SnapshotManager snapshots(path_);
    TRIB_ASSIGN_OR_RETURN(std::optional<int64_t> latest, snapshots.LatestId());
    cross_check_ = false;
    if (cross_loaded_ && latest == cross_snapshot_) return Status::OK();
    cross_partition_of_.clear();
    cross_partitions_.clear();
    cross_partition_id_.clear();
    cross_loaded_ = false;
    if (latest) {
      if (!scanner_) return Status::Internal("a cross-partition-update writer without a scanner");
      std::vector<int> projection = pk_idx_;
      projection.insert(projection.end(), partition_idx_.begin(), partition_idx_.end());
      const size_t n = pk_idx_.size();
      Row key(n), partition(partition_idx_.size());
      TRIB_RETURN_NOT_OK(scanner_(projection, [&](const Row& r) {
        for (size_t k = 0; k < n; k++) key[k] = r[k];
        for (size_t k = 0; k < partition.size(); k++) partition[k] = r[n + k];
        cross_partition_of_[format::SerializeBinaryRow(pk_types_, key)] =
            CrossPartitionId(partition);
      }));
    }
    cross_snapshot_ = latest;
    cross_loaded_ = true;
    return Status::OK();
  }

  // Routes a row to its partition's bucket and buffers it.
  // `prepared`: the merge's input preparation was applied already (rows routed again).
  Status Route(RowKind kind, Row&& row, bool prepared = false) {
    // Scratch rows reused across calls: no allocation per row for routing.
    auto pick = [&row](const std::vector<int>& idx, Row* out) -> const Row& {
      out->resize(idx.size());
      for (size_t k = 0; k < idx.size(); k++) (*out)[k] = row[idx[k]];
      return *out;
    };
    const Row& partition = pick(partition_idx_, &scratch_partition_);
    if (!partition_idx_.empty() || scratch_pbytes_.empty()) {
      scratch_pbytes_ = format::SerializeBinaryRow(partition_types_, partition);
    }
    const std::string& pbytes = scratch_pbytes_;
    int32_t bucket = 0;
    if (core_.bucket > 0) {
      TRIB_ASSIGN_OR_RETURN(int32_t total, TotalBucketsOf(pbytes));
      bucket = format::BucketOf(format::HashRow(bucket_types_, pick(bucket_idx_, &scratch_key_)),
                                total);
    } else if (dynamic_) {
      TRIB_ASSIGN_OR_RETURN(
          bucket, dynamic_->Assign(pbytes,
                                   format::HashRow(key_types_,
                                                   pick(layout_.key_columns, &scratch_key_)),
                                   options_.overwrite));
    }
    TRIB_ASSIGN_OR_RETURN(BucketWriter * bw, GetBucket(pbytes, partition, bucket));
    KeyValue kv{0, kind, std::move(row), 0, nullptr};
    if (input_merge_ && !prepared) input_merge_->PrepareInput(&kv);
    int64_t before = bw->buffer_bytes();
    bw->Add(std::move(kv));
    buffered_bytes_ += bw->buffer_bytes() - before;
    committed_all_ = false;
    // 'write-buffer-size' bounds the whole writer: when it is full, the largest buffer is
    // flushed to a level-0 file.
    while (buffered_bytes_ >= core_.write_buffer_size) {
      BucketWriter* largest = nullptr;
      for (auto& [id, b] : buckets_) {
        if (!largest || b->buffer_bytes() > largest->buffer_bytes()) largest = b.get();
      }
      if (!largest || largest->buffer_bytes() == 0) break;
      buffered_bytes_ -= largest->buffer_bytes();
      Status st = largest->Flush(core_.target_file_size);
      largest->ReleaseFlushed();
      if (!st.ok()) {
        failed_ = true;
        return st;
      }
    }
    return Status::OK();
  }

  std::vector<std::string> warnings() const override { return warnings_; }

  Result<std::optional<int64_t>> Commit() override {
    if (failed_) return Status::Invalid("the writer failed earlier and must be discarded");
    warnings_.clear();
    auto r = DoCommit();
    if (!r.ok()) {
      failed_ = true;
      Abort();
      RemoveDirsOfDroppedTable();
      return r;
    }
    const bool full_producer = core_.changelog_producer == "full-compaction";
    if ((full_producer || full_compaction_every_) && !options_.overwrite && !core_.write_only) {
      // A full compaction after every 'full-compaction.delta-commits' commits. With the
      // full-compaction producer the changelog comes from them: after every commit when the
      // option is unset, and at the end of an input (a batch INSERT's commit, the end of a
      // bounded ingest: CommitAndWaitForCompaction) whenever a commit since the last one
      // published changes, also when the final commit itself has nothing new.
      if (*r) ++commits_since_full_compaction_;
      const bool due = *r && commits_since_full_compaction_ >= full_compaction_delta_commits_;
      const bool input_ends =
          full_producer && waiting_for_jobs_ && commits_since_full_compaction_ > 0;
      if (due || input_ends) {
        commits_since_full_compaction_ = 0;
        auto compacted = CompactTableFull(path_, schema_);
        // Lost to a concurrent compaction: the changes are emitted by the next full compaction
        // (its changelog is the top level before against after), so nothing is lost.
        if (!compacted.ok() && !compacted.status().IsConflict()) {
          warnings_.push_back("the full compaction that produces the changelog of the last "
                              "commits failed (the next one retries): " +
                              compacted.status().ToString());
        }
      }
    }
    // (The end of an input waits for a background append compaction even when it commits
    // nothing new.)
    const bool append_pending =
        waiting_for_jobs_ && (append_compaction_.valid() || !append_touched_.empty());
    if ((*r || append_pending) && !layout_.primary_key && !core_.write_only &&
        !options_.overwrite) {
      // Append tables compact the small files of the buckets this commit wrote, as Paimon's
      // append writers do (PickAppendCompaction). Lost to another writer's compaction: the next
      // commit tries again. A long-lived writer (async_compaction) compacts in the background,
      // one compaction at a time, committing it itself; the end of its input waits for it and
      // compacts once more.
      for (const auto& [id, bw] : buckets_) {
        append_touched_.insert(id);
        append_written_.insert(id);
      }
      // The end of an input compacts every bucket the writer wrote (a background compaction
      // rewrites one window per bucket; what it left is compacted now).
      if (waiting_for_jobs_) append_touched_.insert(append_written_.begin(), append_written_.end());
      const std::string committed =
          *r ? "snapshot " + std::to_string(**r) + " is committed, but " : std::string();
      if (append_compaction_.valid() &&
          (waiting_for_jobs_ || !options_.async_compaction ||
           append_compaction_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)) {
        Status st = append_compaction_.get();
        if (!st.ok()) {
          warnings_.push_back(committed + "compacting small files in the background failed (the "
                              "next commit retries): " + st.ToString());
        }
      }
      if (options_.async_compaction && !waiting_for_jobs_) {
        if (!append_compaction_.valid()) {
          append_compaction_ = std::async(
              std::launch::async,
              [path = path_, schema = schema_, touched = std::move(append_touched_),
               user = options_.commit_user]() -> Status {
                auto compacted = CompactAppendTable(path, schema, /*full=*/false, &touched, user);
                if (!compacted.ok() && !compacted.status().IsConflict()) {
                  return compacted.status();
                }
                return Status::OK();
              });
          append_touched_.clear();
        }
      } else {
        auto compacted = CompactAppendTable(path_, schema_, /*full=*/false, &append_touched_,
                                            options_.commit_user);
        append_touched_.clear();
        if (!compacted.ok() && !compacted.status().IsConflict()) {
          warnings_.push_back(committed + "compacting its small files failed (the next commit "
                              "retries): " + compacted.status().ToString());
        }
      }
    }
    if (*r && !core_.write_only) {
      // As Paimon's committers: old snapshots expire after each commit. The commit stands
      // whatever happens here; a failure is reported and the next commit tries again.
      Status st = commit::ExpireAfterCommit(path_, *schema_);
      if (!st.ok()) {
        warnings_.push_back("snapshot " + std::to_string(**r) + " is committed, but expiring old "
                            "snapshots failed (the next commit retries): " + st.ToString());
      }
    }
    return r;
  }

  Result<std::optional<int64_t>> CommitAndWaitForCompaction() override {
    waiting_for_jobs_ = true;
    auto r = Commit();
    waiting_for_jobs_ = false;
    return r;
  }

  // After a failed commit: when the table was dropped under this writer, the directories its
  // flushes made again (buckets, partitions, the table's own) are removed where empty, so a
  // dropped table leaves nothing behind.
  void RemoveDirsOfDroppedTable() {
    auto now = meta::TableIncarnation(path_);
    if (now.ok() || !now.status().IsNotFound()) return;
    const std::string stop = io::ParentPath(meta::DataRoot(path_));
    for (const char* lock : {".bucket-layout.lock", ".dynamic-bucket.lock"}) {
      (void)io::LocalFs().Remove(io::JoinPath(path_, lock));  // taken by this failed commit
    }
    std::vector<std::string> dirs = {meta::IndexDir(path_), path_};
    for (const auto& [id, bw] : buckets_) dirs.push_back(bw->dir());
    for (std::string dir : dirs) {
      while (!dir.empty() && dir != stop && dir.size() > stop.size()) {
        auto gone = io::LocalFs().RemoveDirIfEmpty(dir);
        if (!gone.ok() || !*gone) break;
        dir = io::ParentPath(dir);
      }
    }
  }

  void Abort() override {
    cross_loaded_ = false;  // it holds moves that were not committed
    if (dynamic_) dynamic_->Release(/*delete_files=*/true);
    for (auto& [id, bw] : buckets_) bw->DeleteNewFiles();
    for (const auto& [dir, f] : compact_outputs_) datafile::RemoveDataFile(dir, f);
    compact_outputs_.clear();
    DropCompactionJobs();
    committed_all_ = true;
  }

 private:
  // A compaction running in the background (WriteOptions::async_compaction) for one bucket. Its
  // result is committed by a later commit; it has its own file namer (flushes use the bucket's).
  struct CompactionJob {
    std::thread thread;
    std::string dir;
    meta::FileNamer namer{"data-", ""};
    Status status;
    CompactionResult result;
    std::atomic<bool> done{false};
  };

  std::vector<std::string> warnings_;  // of the last Commit()
  std::binary_semaphore compaction_slot_{1};  // held by the running background compaction
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
  void DropCompactionJobs() {
    for (auto& [id, job] : jobs_) {
      if (job->thread.joinable()) job->thread.join();
      for (const auto& f : job->result.changelog) {
        datafile::RemoveDataFile(job->dir, f);
      }
      for (const auto& f : job->result.after) {
        datafile::RemoveDataFile(job->dir, f);
      }
    }
    jobs_.clear();
  }

  // Starts compacting `unit` of bucket `id` in the background.
  void StartCompactionJob(const BucketId& id, BucketWriter* bw, CompactUnit unit,
                          int32_t highest) {
    auto job = std::make_unique<CompactionJob>();
    job->dir = bw->dir();
    CompactionJob* j = job.get();
    j->thread = std::thread([this, j, unit = std::move(unit), highest]() {
      // One background compaction at a time per writer, as Paimon's writers each run one
      // compaction thread, and at most one per core in the process: more would not finish
      // sooner on a busy machine, only hold their inputs and outputs in memory at once (W1
      // ingest's peak RSS falls by a tenth against two at once, at the same speed).
      static std::counting_semaphore<> process_slots(DefaultParallelism());
      compaction_slot_.acquire();
      process_slots.acquire();
      auto r = RunCompaction(path_, *schema_, j->dir, unit, highest, core_.target_file_size,
                             core_.format, &j->namer);
      process_slots.release();
      compaction_slot_.release();
      if (r.ok()) {
        j->result = std::move(*r);
      } else {
        j->status = r.status();
      }
      j->done.store(true);
    });
    jobs_[id] = std::move(job);
  }

  int32_t TotalBuckets() const { return core_.bucket > 0 ? core_.bucket : -1; }

  // The bucket count rows of partition `pbytes` go to: a partition keeps the count its files
  // were written with ('bucket' changed by ALTER TABLE applies to new partitions, and to a
  // partition INSERT OVERWRITE rewrites), as Paimon's _TOTAL_BUCKETS.
  // The same once restored, without state (commits prepare buckets on several threads).
  int32_t KnownTotalBuckets(const std::string& pbytes) const {
    if (options_.overwrite || core_.bucket <= 0) return TotalBuckets();
    auto it = partition_buckets_.find(pbytes);
    return it != partition_buckets_.end() && it->second > 0 ? it->second : core_.bucket;
  }

  Result<int32_t> TotalBucketsOf(const std::string& pbytes) {
    if (options_.overwrite || core_.bucket <= 0) return TotalBuckets();
    if (restored_ && pbytes == recent_total_pbytes_) return recent_total_;
    TRIB_RETURN_NOT_OK(Restore());
    auto it = partition_buckets_.find(pbytes);
    recent_total_pbytes_ = pbytes;
    recent_total_ = it != partition_buckets_.end() && it->second > 0 ? it->second : core_.bucket;
    return recent_total_;
  }

  // Whether merging can fail on valid input: sum/product/count over integers and decimals.
  bool MergeCanFail() const {
    if (!ctx_.merge_config) return false;
    const merge::MergeConfig& c = *ctx_.merge_config;
    for (size_t i = 0; i < c.aggregate.size(); i++) {
      const std::string& f = c.aggregate[i];
      if ((f == "sum" || f == "product" || f == "count") && !schema_->fields[i].type.IsFloating()) {
        return true;
      }
    }
    return false;
  }

  // Whether the column statistics of `files` prove that no aggregate can overflow: every
  // sum/count column's largest magnitude, added up over the files (a key has at most one record
  // per file), stays within the type (products are never proven).
  bool SumsProvablyFit(const std::vector<meta::DataFileMeta>& files) const {
    const merge::MergeConfig& c = *ctx_.merge_config;
    std::vector<DataType> types = layout_.FieldTypes();
    for (size_t i = 0; i < c.aggregate.size(); i++) {
      const std::string& fn = c.aggregate[i];
      if (fn != "sum" && fn != "product" && fn != "count") continue;
      const DataType& t = schema_->fields[i].type;
      if (t.IsFloating()) continue;
      if (fn == "product" || !t.IsInteger()) return false;
      __int128 bound = 0;
      for (const auto& f : files) {
        if (f.schema_id != schema_->id || f.value_stats_cols) return false;
        auto mn = format::DeserializeBinaryRow(f.value_stats.min_values, types);
        auto mx = format::DeserializeBinaryRow(f.value_stats.max_values, types);
        if (!mn.ok() || !mx.ok() || i >= mn->size()) return false;
        const Value& lo = (*mn)[i];
        const Value& hi = (*mx)[i];
        if (lo.is_null() && hi.is_null()) continue;  // only NULLs
        if (!lo.is_int() || !hi.is_int()) return false;
        __int128 a = lo.int_value() < 0 ? -static_cast<__int128>(lo.int_value()) : lo.int_value();
        __int128 b = hi.int_value() < 0 ? -static_cast<__int128>(hi.int_value()) : hi.int_value();
        bound += std::max(a, b);
      }
      int64_t limit = t.id == TypeId::kTinyInt    ? 127
                      : t.id == TypeId::kSmallInt ? 32767
                      : t.id == TypeId::kInt      ? 2147483647LL
                                                  : INT64_MAX;
      if (bound >= limit) return false;
    }
    return true;
  }

  // Whether `f`'s key range overlaps any of `files`' key ranges (unknown ranges overlap).
  bool OverlapsAny(const meta::DataFileMeta& f, const std::vector<meta::DataFileMeta>& files) const {
    auto rf = DecodeKeyRange(f, key_types_);
    if (!rf) return true;
    for (const auto& n : files) {
      auto rn = DecodeKeyRange(n, key_types_);
      if (!rn || rf->Overlaps(*rn)) return true;
    }
    return false;
  }

  // Engines that refuse retractions fail at Write, before anything is buffered.
  Status CheckRetractAllowed() const {
    const merge::MergeConfig& c = *ctx_.merge_config;
    if (c.ignore_delete) return Status::OK();
    if (c.engine == "first-row") {
      return Status::Invalid("a first-row table does not accept DELETE or UPDATE_BEFORE rows; set "
                             "'first-row.ignore-delete' = 'true' to ignore them");
    }
    if (c.engine == "partial-update" && !c.remove_record_on_delete && !c.HasSequenceGroups()) {
      return Status::Invalid(
          "a partial-update table does not accept DELETE or UPDATE_BEFORE rows by default; set "
          "'partial-update.ignore-delete' = 'true' or 'partial-update.remove-record-on-delete' = "
          "'true', or use sequence groups");
    }
    if (c.engine == "aggregation" && !c.remove_record_on_delete) {
      for (size_t i = 0; i < c.aggregate.size(); i++) {
        if (!c.aggregate[i].empty() && !c.ignore_retract[i] &&
            !merge::AggregatorSupportsRetract(c.aggregate[i])) {
          return Status::Invalid("column '" + schema_->fields[i].name + "': aggregate function '" +
                                 c.aggregate[i] + "' does not support retraction (DELETE or "
                                 "UPDATE_BEFORE); set 'fields." + schema_->fields[i].name +
                                 ".ignore-retract' = 'true' to ignore them");
        }
      }
    }
    return Status::OK();
  }

  Status Restore() {
    if (restored_) return Status::OK();
    existing_.clear();
    partition_buckets_.clear();
    recent_total_pbytes_.clear();
    limits_counted_ = false;
    meta::SnapshotManager snapshots(path_);
    TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
    restored_snapshot_ = latest.value_or(0);
    if (latest) {
      TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
      TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntries(path_, *snap));
      for (auto& e : live) {
        partition_buckets_[e.partition] = e.total_buckets;
        existing_[{e.partition, e.bucket}].push_back(std::move(e.file));
      }
    }
    restored_ = true;
    return Status::OK();
  }

  Result<BucketWriter*> GetBucket(const std::string& pbytes, const Row& partition, int32_t bucket) {
    // The last partition's writers by bucket id: no map lookup (string comparisons) per row.
    if (pbytes == recent_partition_ && bucket >= 0 &&
        static_cast<size_t>(bucket) < recent_.size() && recent_[bucket]) {
      return recent_[bucket];
    }
    BucketId id{pbytes, bucket};
    auto it = buckets_.find(id);
    if (it != buckets_.end()) {
      RememberBucket(pbytes, bucket, it->second.get());
      return it->second.get();
    }
    TRIB_RETURN_NOT_OK(Restore());
    TRIB_RETURN_NOT_OK(CheckNewBucket(id, partition));
    int64_t next_seq = 0;
    for (const auto& f : existing_[id]) next_seq = std::max(next_seq, f.max_sequence_number + 1);
    std::string dir = meta::BucketDir(
        path_, meta::PartitionPath(partition_fields_, partition, core_.partition_default_name),
        bucket);
    auto bw = std::make_unique<BucketWriter>(ctx_, dir, next_seq);
    if (ctx_.lookup_changelog_prefix) {
      bw->set_lookup_cache(std::make_unique<LookupValueCache>(&lookup_cache_used_,
                                                              lookup_cache_budget_));
    }
    BucketWriter* raw = bw.get();
    buckets_[id] = std::move(bw);
    RememberBucket(pbytes, bucket, raw);
    return raw;
  }

  // A bucket this writer opens for the first time: a new partition must be allowed
  // ('client.writer.dynamic-create-partition.enabled') and within 'max.partition.num', and the
  // table's buckets (over every partition) within 'max.bucket.num', checked before any row of it
  // is buffered.
  Status CheckNewBucket(const BucketId& id, const Row& partition) {
    if (existing_.count(id) && !existing_[id].empty()) return Status::OK();
    if (!limits_counted_) {
      // The partitions and buckets the table has, counted once per restored snapshot.
      limit_partitions_.clear();
      limit_buckets_ = 0;
      for (const auto& [bid, files] : existing_) {
        if (files.empty()) continue;
        limit_partitions_.insert(bid.first);
        limit_buckets_++;
      }
      for (const auto& [bid, bw] : buckets_) {
        if (!existing_.count(bid) || existing_[bid].empty()) {
          limit_partitions_.insert(bid.first);
          limit_buckets_++;
        }
      }
      // Partitions added by ALTER TABLE ... ADD PARTITION exist too (and count) while empty.
      marked_partitions_.clear();
      if (!partition_idx_.empty()) {
        TRIB_ASSIGN_OR_RETURN(marked_partitions_,
                              meta::ListMarkedPartitions(path_, schema_->partition_keys));
        std::set<std::string> written;
        for (const std::string& pbytes : limit_partitions_) {
          TRIB_ASSIGN_OR_RETURN(Row p, format::DeserializeBinaryRow(pbytes, partition_types_));
          written.insert(meta::PartitionPath(partition_fields_, p));
        }
        marked_only_ = 0;
        for (const auto& m : marked_partitions_) marked_only_ += written.count(m) ? 0 : 1;
      }
      limits_counted_ = true;
    }
    std::set<std::string>& partitions = limit_partitions_;
    const int64_t buckets = limit_buckets_;
    if (!partition_idx_.empty() && !partitions.count(id.first)) {
      const std::string name =
          meta::PartitionPath(partition_fields_, partition, core_.partition_default_name);
      if (options_.check_new_partition) TRIB_RETURN_NOT_OK(options_.check_new_partition(name));
      const std::string marked = meta::PartitionPath(partition_fields_, partition);
      const bool added = marked_partitions_.count(marked) > 0;
      if (!added && !OptionIsTrueOr(*schema_, "client.writer.dynamic-create-partition.enabled",
                                    true)) {
        return Status::Invalid("partition " + name + " does not exist and "
                               "'client.writer.dynamic-create-partition.enabled' is false");
      }
      const int64_t max_partitions = IntOption("max.partition.num", 1000);
      // An added partition written for the first time was counted already (as added).
      const int64_t count = static_cast<int64_t>(partitions.size()) + marked_only_ + (added ? 0 : 1);
      if (count > max_partitions) {
        return Status::Invalid("writing partition " + name + " would give the table " +
                               std::to_string(count) + " partitions, more than "
                               "'max.partition.num' = " + std::to_string(max_partitions));
      }
      if (added && marked_only_ > 0) {
        marked_partitions_.erase(marked);
        marked_only_--;
      }
    }
    const int64_t max_buckets = IntOption("max.bucket.num", 128000);
    if (buckets + 1 > max_buckets) {
      return Status::Invalid("writing bucket " + std::to_string(id.second) + " would give the "
                             "table " + std::to_string(buckets + 1) + " buckets, more than "
                             "'max.bucket.num' = " + std::to_string(max_buckets));
    }
    partitions.insert(id.first);
    limit_buckets_++;
    return Status::OK();
  }
  // CheckNewBucket's counts (valid until the next Restore).
  bool limits_counted_ = false;
  std::set<std::string> limit_partitions_;
  std::set<std::string> marked_partitions_;  // added (ADD PARTITION), not written by this writer
  int64_t marked_only_ = 0;                  // of them, partitions without files
  int64_t limit_buckets_ = 0;

  int64_t IntOption(const char* key, int64_t fallback) const {
    auto v = schema_->Option(key);
    if (!v) return fallback;
    auto n = options::ParseInt64(*v);
    return n.ok() ? *n : fallback;
  }

  static bool OptionIsTrueOr(const TableSchema& schema, const char* key, bool fallback) {
    auto v = schema.Option(key);
    if (!v) return fallback;
    std::string s = *v;
    std::transform(s.begin(), s.end(), s.begin(), ::tolower);
    return s == "true";
  }

  void RememberBucket(const std::string& pbytes, int32_t bucket, BucketWriter* bw) {
    if (bucket < 0 || bucket > 4096) return;
    if (pbytes != recent_partition_) {
      recent_partition_ = pbytes;
      recent_.clear();
    }
    if (static_cast<size_t>(bucket) >= recent_.size()) recent_.resize(bucket + 1, nullptr);
    recent_[bucket] = bw;
  }

  // This commit's work in one bucket: flushes its buffer, checks that aggregates still merge and
  // compacts when the picker says so. Different buckets run on different threads: touches only
  // `bw`, *m and *outputs (and reads existing_, restored before).
  // With asynchronous compaction: `job` is the bucket's running compaction (if any); a finished
  // one is taken into this commit (*job_finished), and a new one is not run here but returned in
  // *next_unit to be started once this commit is published.
  Status PrepareBucket(const BucketId& id, BucketWriter* bw,
                       const UniversalCompactionPicker& picker, CommitMessage* m,
                       std::vector<std::pair<std::string, std::string>>* outputs,
                       CompactionJob* job, bool* job_finished,
                       std::optional<std::pair<CompactUnit, int32_t>>* next_unit) const {
    if (layout_.primary_key) {
      auto live = existing_.find(id);
      if (live != existing_.end() && !live->second.empty()) {
        int64_t live_max = INT64_MIN;
        for (const auto& f : live->second) live_max = std::max(live_max, f.max_sequence_number);
        bw->MoveBufferAbove(live_max);
      }
    }
    TRIB_RETURN_NOT_OK(bw->Flush(core_.target_file_size,
                                 /*keep_columns=*/ctx_.lookup_changelog_prefix.has_value()));
    struct Release {
      BucketWriter* bw;
      ~Release() { bw->ReleaseFlushColumns(); }
    } release{bw};
    m->partition = id.first;
    m->bucket = id.second;
    m->total_buckets = KnownTotalBuckets(id.first);
    m->new_files = bw->new_files();
    if (ctx_.lookup_changelog_prefix && !m->new_files.empty()) {
      // The exact changes of this commit's keys against the latest snapshot's values.
      static const std::vector<meta::DataFileMeta> kNoFiles;
      auto committed = existing_.find(id);
      LookupChangelogInput in;
      in.table_path = path_;
      in.schema = schema_.get();
      in.layout = &layout_;
      in.merge_config = ctx_.merge_config;
      in.format = &ctx_.changelog_format;
      in.bucket_dir = bw->dir();
      in.committed = committed == existing_.end() ? &kNoFiles : &committed->second;
      in.new_files = &m->new_files;
      in.row_deduplicate = ctx_.row_deduplicate;
      in.ignore_fields = ctx_.row_deduplicate_ignore;
      in.target_file_size = core_.target_file_size;
      in.cache = bw->lookup_cache();
      if (auto flushed = bw->flushed_columns()) {
        in.flushed_columns = flushed->columns;
        in.flushed_merge = flushed->merged;
      }
      TRIB_ASSIGN_OR_RETURN(auto files,
                            WriteLookupChangelog(in, bw->changelog_namer(*ctx_.lookup_changelog_prefix)));
      for (auto& f : files) bw->new_changelog_files().push_back(std::move(f));
    }
    m->changelog_files = bw->new_changelog_files();
    // A bucket without new files still hands in a finished background compaction.
    const bool job_ready = job && (job->done.load() || waiting_for_jobs_);
    if (!layout_.primary_key || (m->new_files.empty() && !job_ready)) {
      return Status::OK();
    }
    static const std::vector<meta::DataFileMeta> kNone;
    auto it = existing_.find(id);
    const std::vector<meta::DataFileMeta>& existing = it == existing_.end() ? kNone : it->second;
    if (MergeCanFail() && !m->new_files.empty()) {
      // Aggregates that can overflow: merge the new files with the older files they overlap
      // now, so the statement fails instead of leaving keys that no longer merge.
      std::vector<meta::DataFileMeta> files = m->new_files;
      for (const auto& f : existing) {
        if (OverlapsAny(f, m->new_files)) files.push_back(f);
      }
      if (!SumsProvablyFit(files)) {
        TRIB_RETURN_NOT_OK(DryRunMerge(path_, *schema_, bw->dir(), files));
      }
    }
    if (options_.overwrite || core_.write_only) return Status::OK();
    std::vector<meta::DataFileMeta> files = existing;
    for (const auto& f : m->new_files) files.push_back(f);
    if (job) {
      // A background compaction of this bucket: wait for it only at the stop trigger.
      bool stop = waiting_for_jobs_ || BuildSortedRuns(files).size() >=
                                           static_cast<size_t>(core_.sorted_run_stop_trigger);
      if (!job->done.load() && !stop) return Status::OK();
      if (job->thread.joinable()) job->thread.join();
      *job_finished = true;
      // A failed background compaction (its inputs gone, say) is dropped, not this commit: the
      // next commits pick again.
      if (!job->status.ok()) return Status::OK();
      for (const auto& f : job->result.after) outputs->push_back({job->dir, f.file_name});
      for (const auto& f : job->result.changelog) outputs->push_back({job->dir, f.file_name});
      m->compact_changelog_files = job->result.changelog;
      m->compact_before = job->result.before;
      m->compact_after = job->result.after;
      // Pick the next compaction on the files this commit leaves.
      std::set<std::string> gone;
      for (const auto& f : m->compact_before) gone.insert(f.file_name);
      std::erase_if(files, [&](const auto& f) { return gone.count(f.file_name) > 0; });
      for (const auto& f : m->compact_after) files.push_back(f);
    }
    auto runs = BuildSortedRuns(files);
    auto unit = picker.Pick(runs);
    // Partial-column files are merged only into the top level, where what a record did not
    // write is known to be NULL.
    bool partial = std::any_of(files.begin(), files.end(),
                               [](const auto& f) { return f.write_cols.has_value(); });
    if (unit && partial) unit = picker.PickFull(runs);
    if (!unit) return Status::OK();
    int32_t highest = 0;
    for (const auto& f : files) highest = std::max(highest, f.level);
    if (options_.async_compaction && !waiting_for_jobs_) {
      if (!job) next_unit->emplace(std::move(*unit), highest);  // one job per bucket at a time
      return Status::OK();
    }
    // Compacting now: every commit of a writer without background compaction, and the commit
    // that ends the input of one with it (as Paimon's prepareCommit(waitCompaction): after the
    // running compaction is taken in, the next one is picked and waited for).
    TRIB_ASSIGN_OR_RETURN(auto result,
                          RunCompaction(path_, *schema_, bw->dir(), *unit, highest,
                                        core_.target_file_size, core_.format, bw->namer()));
    for (const auto& f : result.after) outputs->push_back({bw->dir(), f.file_name});
    for (const auto& f : result.changelog) outputs->push_back({bw->dir(), f.file_name});
    for (auto& f : result.changelog) m->compact_changelog_files.push_back(std::move(f));
    io::CrashPoint("compact.after-rewrite");
    // As Paimon does: the APPEND snapshot publishes the new files, then the COMPACT snapshot
    // replaces the compacted files (new ones included) by the output. Outputs of the background
    // compaction taken in above that were compacted again were never published: they go.
    for (auto& f : result.before) {
      auto again = std::find_if(m->compact_after.begin(), m->compact_after.end(),
                                [&](const auto& a) { return a.file_name == f.file_name; });
      if (again == m->compact_after.end()) {
        m->compact_before.push_back(std::move(f));
        continue;
      }
      m->compact_after.erase(again);
      FileCache::Instance().EraseFile(io::JoinPath(bw->dir(), f.file_name));
      datafile::RemoveDataFile(bw->dir(), f);
    }
    for (auto& f : result.after) m->compact_after.push_back(std::move(f));
    return Status::OK();
  }

  // A partition that another process rewrote into another bucket count (CALL sys.rescale, INSERT
  // OVERWRITE) since this writer routed rows to it: its pending rows are routed again to the
  // buckets of the new count, so the commit lands in the partition's new layout instead of
  // failing. Rows this transaction already flushed to files of the old layout cannot be moved:
  // then the commit fails, saying so, and nothing is committed.
  Status RebucketRescaledPartitions() {
    if (core_.bucket <= 0 || options_.overwrite || !restored_ || buckets_.empty()) return Status::OK();
    meta::SnapshotManager snapshots(path_);
    TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
    if (!latest || *latest == restored_snapshot_) return Status::OK();
    TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
    TRIB_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntriesShared(path_, *snap));
    std::map<std::string, int32_t> now;
    for (const auto& e : *live) now[e.partition] = e.total_buckets;
    std::set<std::string> moved;
    for (const auto& [id, bw] : buckets_) {
      auto it = now.find(id.first);
      if (it != now.end() && it->second > 0 && it->second != KnownTotalBuckets(id.first)) {
        moved.insert(id.first);
      }
    }
    if (moved.empty()) return Status::OK();
    std::vector<std::pair<RowKind, Row>> pending;
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      if (!moved.count(it->first.first)) {
        ++it;
        continue;
      }
      if (!it->second->new_files().empty()) {
        return Status::Conflict("a partition was rewritten into " +
                                std::to_string(now[it->first.first]) + " buckets while this "
                                "writer had flushed rows to its old layout; nothing was "
                                "committed: write them again");
      }
      auto job = jobs_.find(it->first);
      if (job != jobs_.end()) {  // a compaction of the old layout: its result is void
        if (job->second->thread.joinable()) job->second->thread.join();
        for (const auto& f : job->second->result.changelog) {
          datafile::RemoveDataFile(job->second->dir, f);
        }
        for (const auto& f : job->second->result.after) {
          datafile::RemoveDataFile(job->second->dir, f);
        }
        jobs_.erase(job);
      }
      buffered_bytes_ -= it->second->buffer_bytes();
      it->second->TakePending(&pending);
      it = buckets_.erase(it);
    }
    recent_partition_.clear();
    recent_.clear();
    restored_ = false;  // the next Restore reads the partitions' new layout and files
    for (auto& [kind, row] : pending) {
      TRIB_RETURN_NOT_OK(Route(kind, std::move(row), /*prepared=*/true));
    }
    return Status::OK();
  }

  Result<std::optional<int64_t>> DoCommit() {
    // Fixed buckets: no rescale commits between the layout check and this commit (a rescale
    // itself holds the lock exclusively).
    std::unique_ptr<BucketLayoutLock> layout_lock;
    if (core_.bucket > 0 && (!options_.overwrite || options_.overwrite_buckets)) {
      TRIB_ASSIGN_OR_RETURN(layout_lock, BucketLayoutLock::Take(
                                             path_, options_.overwrite_buckets.has_value()));
    }
    TRIB_RETURN_NOT_OK(RebucketRescaledPartitions());
    CommitRequest req;
    req.overwrite = options_.overwrite;
    UniversalCompactionPicker picker(core_.max_size_amp_percent, core_.size_ratio,
                                     core_.sorted_run_trigger, core_.num_levels - 1);
    buffered_bytes_ = 0;
    if (layout_.primary_key) TRIB_RETURN_NOT_OK(Restore());
    // The lookup producer's caches hold what this writer's last commit left: right only if no
    // other commit came after it. Until this commit is in, they are not to be trusted again.
    const bool caches_valid = lookup_cache_snapshot_ == restored_snapshot_;
    lookup_cache_snapshot_ = -1;
    if (!caches_valid) {
      for (auto& [id, bw] : buckets_) {
        if (bw->lookup_cache()) bw->lookup_cache()->Clear();
      }
    }
    // Buckets are independent until the commit: flush and compact them in parallel.
    std::vector<std::pair<BucketId, BucketWriter*>> work;
    for (auto& [id, bw] : buckets_) work.push_back({id, bw.get()});
    std::vector<CommitMessage> messages(work.size());
    std::vector<std::vector<std::pair<std::string, std::string>>> outputs(work.size());
    std::vector<CompactionJob*> jobs(work.size(), nullptr);
    std::vector<char> job_finished(work.size(), 0);
    std::vector<std::optional<std::pair<CompactUnit, int32_t>>> next_units(work.size());
    for (size_t i = 0; i < work.size(); i++) {
      auto it = jobs_.find(work[i].first);
      if (it != jobs_.end()) jobs[i] = it->second.get();
    }
    Status st = ParallelFor(work.size(), DefaultParallelism(), [&](size_t i) {
      bool finished = false;
      Status s = PrepareBucket(work[i].first, work[i].second, picker, &messages[i], &outputs[i],
                               jobs[i], &finished, &next_units[i]);
      job_finished[i] = finished;
      return s;
    });
    for (size_t i = 0; i < work.size(); i++) {
      // A finished job's outputs are now in compact_outputs_ (deleted if the commit fails).
      if (job_finished[i]) jobs_.erase(work[i].first);
    }
    for (auto& [id, bw] : work) bw->ReleaseFlushed();
    for (auto& o : outputs) {
      for (auto& f : o) compact_outputs_.push_back(std::move(f));
    }
    TRIB_RETURN_NOT_OK(st);
    // The new files each bucket's next compaction was picked from (see below).
    std::vector<std::vector<std::string>> picked_from(work.size());
    for (size_t i = 0; i < work.size(); i++) {
      for (const auto& f : messages[i].new_files) picked_from[i].push_back(f.file_name);
    }
    // Files this commit's compactions replace: once it is published only older snapshots
    // read them, so they leave the file cache (and their mappings go).
    std::vector<std::string> replaced;
    for (size_t i = 0; i < work.size(); i++) {
      for (const auto& f : messages[i].compact_before) {
        replaced.push_back(f.external_path ? ResolveExternalPath(path_, *f.external_path)
                                           : io::JoinPath(work[i].second->dir(), f.file_name));
      }
    }
    for (auto& m : messages) {
      if (!m.new_files.empty() || !m.compact_after.empty() || !m.compact_before.empty()) {
        req.messages.push_back(std::move(m));
      }
    }
    if (options_.overwrite) {
      std::vector<std::map<std::string, std::string>> specs = options_.overwrite_partitions;
      if (options_.overwrite_partition) specs.push_back(*options_.overwrite_partition);
      if (!specs.empty()) {
        std::vector<Field> pf = partition_fields_;
        std::vector<DataType> pt = partition_types_;
        req.overwrite_filter = [specs, pf, pt](const std::string& p) {
          auto row = format::DeserializeBinaryRow(p, pt);
          if (!row.ok()) return false;
          for (const auto& spec : specs) {
            bool match = true;
            for (size_t i = 0; match && i < pf.size(); i++) {
              auto it = spec.find(pf[i].name);
              if (it == spec.end()) continue;
              match = meta::PartitionValueString((*row)[i], pf[i].type) == it->second;
            }
            if (match) return true;
          }
          return false;
        };
      } else if (!partition_idx_.empty()) {
        std::set<std::string> written;
        for (const auto& m : req.messages) written.insert(m.partition);
        req.overwrite_filter = [written](const std::string& p) { return written.count(p) > 0; };
      }
    }
    if (options_.overwrite && options_.overwrite_base_snapshot) {
      // The partitions replaced must hold the files they held in the snapshot the rows came
      // from: a write committed since is not lost but makes this commit fail.
      meta::SnapshotManager snapshots(path_);
      TRIB_ASSIGN_OR_RETURN(auto base, snapshots.Read(*options_.overwrite_base_snapshot));
      TRIB_ASSIGN_OR_RETURN(auto base_live, ReadLiveEntries(path_, *base));
      auto filter = req.overwrite_filter;
      auto names = [filter](const std::vector<meta::ManifestEntry>& live) {
        std::set<std::string> out;
        for (const auto& e : live) {
          if (!filter || filter(e.partition)) out.insert(e.file.file_name);
        }
        return out;
      };
      req.precondition = [names, expected = names(base_live),
                          id = *options_.overwrite_base_snapshot](
                             const std::vector<meta::ManifestEntry>& live) -> Status {
        if (names(live) == expected) return Status::OK();
        return Status::Conflict("the rewritten partitions changed since snapshot " +
                                std::to_string(id) + " (a concurrent write); nothing was "
                                "committed: run it again");
      };
    }
    if (layout_.primary_key) {
      req.renumber = [this](const CommitMessage& m, int64_t shift)
          -> Result<std::vector<meta::DataFileMeta>> {
        auto it = buckets_.find({m.partition, m.bucket});
        if (it == buckets_.end()) return Status::Internal("renumbering an unknown bucket");
        return it->second->Renumber(shift, core_.target_file_size);
      };
    }
    if (dynamic_) {
      TRIB_ASSIGN_OR_RETURN(req.index_changes, dynamic_->Flush());
    }
    FileStoreCommit commit(path_, schema_, options_.commit_user);
    commit.RequireIncarnation(ctx_.table_incarnation);
    TRIB_ASSIGN_OR_RETURN(CommitResult result, commit.Commit(req));
    // The caches hold this commit's values: valid while the latest snapshot is its last one,
    // if nothing else was committed since the snapshot this commit started from.
    if (result.first_snapshot && *result.first_snapshot == restored_snapshot_ + 1 &&
        *result.last_snapshot == *result.first_snapshot + result.snapshots - 1) {
      lookup_cache_snapshot_ = *result.last_snapshot;
    }
    if (cross_loaded_) {
      // The key index is this commit's snapshot now if the commit followed the snapshot it was
      // read at (a commit without the table lock, such as DROP PARTITION or partition
      // expiration, may have come between); the next write checks that no other writer
      // committed after it.
      if (result.first_snapshot && cross_snapshot_ &&
          *result.first_snapshot == *cross_snapshot_ + 1 &&
          *result.last_snapshot == *result.first_snapshot + result.snapshots - 1) {
        cross_snapshot_ = *result.last_snapshot;
      } else if (result.first_snapshot || !cross_snapshot_) {
        cross_loaded_ = false;
      }
      cross_check_ = true;
    }
    if (dynamic_) {
      // Keep the key -> bucket index in memory for the next commit (checked then against the
      // index manifest the latest snapshot lists).
      if (result.last_snapshot) {
        dynamic_->Retain(result.index_manifest);
      } else {
        dynamic_->Release(/*delete_files=*/false);
      }
    }
    if (result.compaction_dropped) {
      for (const auto& [dir, f] : compact_outputs_) datafile::RemoveDataFile(dir, f);
    } else {
      std::set<std::string> dropped(result.dropped_compact_files.begin(),
                                    result.dropped_compact_files.end());
      for (const auto& [dir, f] : compact_outputs_) {
        if (dropped.count(f)) datafile::RemoveDataFile(dir, f);
      }
    }
    // Files replaced by a compaction in this same commit were published by the APPEND snapshot
    // and deleted by the COMPACT one; nothing else refers to them... except older snapshots,
    // which keep them until snapshot expiration, so they stay on disk.
    compact_outputs_.clear();
    if (!result.compaction_dropped) {
      for (const auto& f : replaced) FileCache::Instance().EraseFile(f);
    }
    // Buckets whose new files were renumbered (a concurrent commit) published other files than
    // the ones their next compaction was picked from: they pick again at the next commit.
    std::vector<char> renumbered(work.size(), 0);
    for (size_t i = 0; i < work.size(); i++) {
      const auto& published = work[i].second->new_files();
      const auto& picked = picked_from[i];
      renumbered[i] = published.size() != picked.size() ||
                      !std::equal(published.begin(), published.end(), picked.begin(),
                                  [](const auto& a, const std::string& b) {
                                    return a.file_name == b;
                                  });
    }
    for (auto& [id, bw] : buckets_) {
      bw->new_files().clear();
      bw->new_changelog_files().clear();
    }
    restored_ = false;  // the next commit restores the (new) latest state
    committed_all_ = true;
    // Background compactions of what this commit published.
    for (size_t i = 0; i < work.size(); i++) {
      if (next_units[i] && !renumbered[i] && !jobs_.count(work[i].first)) {
        StartCompactionJob(work[i].first, work[i].second, std::move(next_units[i]->first),
                           next_units[i]->second);
      }
    }
    return result.last_snapshot;
  }

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
  std::vector<int> pk_idx_;             // the trimmed primary key (no partition column)
  std::vector<DataType> pk_types_;
  bool cross_loaded_ = false;
  bool cross_check_ = false;            // check the latest snapshot at the next write
  std::optional<int64_t> cross_snapshot_;
  absl::flat_hash_map<std::string, uint32_t> cross_partition_of_;  // key -> partition id
  std::vector<Row> cross_partitions_;                             // partition id -> values
  absl::flat_hash_map<std::string, uint32_t> cross_partition_id_;  // BinaryRow -> id
  std::vector<DataType> key_types_;
  std::vector<int> partition_idx_, bucket_idx_;
  std::vector<DataType> partition_types_, bucket_types_;
  std::vector<Field> partition_fields_;
  Row scratch_partition_, scratch_key_;  // reused by Write
  std::string scratch_pbytes_;
  std::map<BucketId, std::unique_ptr<BucketWriter>> buckets_;
  std::string recent_partition_;        // GetBucket's last partition and its writers by bucket
  std::vector<BucketWriter*> recent_;
  std::map<BucketId, std::vector<meta::DataFileMeta>> existing_;
  std::map<std::string, int32_t> partition_buckets_;  // partition -> its files' bucket count
  std::string recent_total_pbytes_;                   // TotalBucketsOf's last partition
  int32_t recent_total_ = 0;
  std::vector<std::pair<std::string, std::string>> compact_outputs_;
  std::map<BucketId, std::unique_ptr<CompactionJob>> jobs_;  // background compactions
  bool waiting_for_jobs_ = false;  // CommitAndWaitForCompaction in progress
  bool restored_ = false;
  bool failed_ = false;
  int64_t buffered_bytes_ = 0;  // across every bucket's write buffer
  bool committed_all_ = true;
};

}  // namespace

Result<std::unique_ptr<TableWriter>> NewFileStoreWriter(const std::string& path,
                                                        std::shared_ptr<const TableSchema> schema,
                                                        const WriteOptions& options,
                                                        TableRowScanner scanner) {
  TRIB_ASSIGN_OR_RETURN(schema, options::WithDynamicOptions(std::move(schema),
                                                            options.dynamic_options));
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  if (OptionIsTrue(*schema, "deletion-vectors.enabled")) {
    return Status::NotSupported("writing a table with 'deletion-vectors.enabled' is not supported "
                                "yet (Tributary reads such tables but cannot maintain their "
                                "deletion vectors)");
  }
  if (core.bucket < -1 || core.bucket == 0) {
    return Status::NotSupported("writing a table with 'bucket' = '" + std::to_string(core.bucket) +
                                "' is not supported");
  }
  const bool cross_partition =
      schema->HasPrimaryKey() && core.bucket == -1 &&
      schema->TrimmedPrimaryKeys().size() + schema->partition_keys.size() !=
          schema->primary_keys.size();
  if (options.overwrite_buckets) {
    if (!options.overwrite || core.bucket <= 0 || *options.overwrite_buckets <= 0) {
      return Status::Invalid("a bucket count for an overwrite needs an OVERWRITE of a "
                             "fixed-bucket table and a positive count");
    }
    auto rescaled = std::make_shared<TableSchema>(*schema);
    rescaled->options["bucket"] = std::to_string(*options.overwrite_buckets);
    schema = std::move(rescaled);
    core.bucket = *options.overwrite_buckets;
  }
  if (cross_partition && schema->HasPrimaryKey()) {
    TRIB_ASSIGN_OR_RETURN(auto config, merge::MergeConfig::Make(*schema));
    if (config->ignore_delete && config->engine == "deduplicate") {
      // A moved key's DELETE in its old partition would be ignored: the key would live twice.
      return Status::NotSupported("cross-partition updates with 'ignore-delete' are not "
                                  "supported yet");
    }
  }
  if (cross_partition && options.write_columns) {
    return Status::NotSupported("a partial-column write to a table with cross-partition updates "
                                "(a primary key without every partition key) is not supported "
                                "yet");
  }
  WriteContext ctx;
  TRIB_ASSIGN_OR_RETURN(ctx.table_incarnation, meta::TableIncarnation(path));
  ctx.format = core.format;
  ctx.layout = FileLayout::Of(*schema);
  std::unique_ptr<merge::MergeFunction> input_merge;
  if (schema->HasPrimaryKey()) {
    TRIB_ASSIGN_OR_RETURN(ctx.merge_config, merge::MergeConfig::Make(*schema));
    TRIB_ASSIGN_OR_RETURN(input_merge, merge::MakeEngineMergeFunction(ctx.merge_config, *schema));
  }
  if (options.write_columns) {
    if (!schema->HasPrimaryKey()) {
      return Status::NotSupported("a column list in INSERT writes only the listed columns, which "
                                  "needs a primary-key table");
    }
    const std::string& engine = ctx.merge_config->engine;
    if (engine != "deduplicate" && engine != "partial-update") {
      return Status::NotSupported("partial-column writes need merge engine 'deduplicate' or "
                                  "'partial-update', not '" + engine + "'");
    }
    auto mask = std::make_shared<std::vector<bool>>(schema->fields.size(), false);
    for (const auto& c : *options.write_columns) {
      int i = schema->FieldIndex(c);
      if (i < 0) return Status::Invalid("unknown column '" + c + "' in the written columns");
      (*mask)[i] = true;
    }
    for (const auto& k : schema->primary_keys) {
      if (!(*mask)[schema->FieldIndex(k)]) {
        return Status::Invalid("a partial-column write must include primary key column '" + k +
                               "'");
      }
    }
    std::vector<std::string> cols;
    for (size_t i = 0; i < schema->fields.size(); i++) {
      if ((*mask)[i]) {
        cols.push_back(schema->fields[i].name);
      } else if (!schema->fields[i].type.nullable) {
        return Status::Invalid("column '" + schema->fields[i].name + "' is NOT NULL, so a "
                               "partial-column write must include it");
      }
    }
    if (cols.size() < schema->fields.size()) {
      ctx.write_cols = std::move(cols);
      ctx.write_mask = std::move(mask);
    }
  }
  // An overwrite commits no changelog (as Paimon: "Overwrite mode currently does not commit any
  // changelog"), so its writer writes none.
  ctx.changelog_format = core.changelog_format;
  if (ctx.merge_config && core.changelog_producer == "input" && !options.overwrite) {
    ctx.input_changelog_prefix = core.changelog_file_prefix;
  }
  if (ctx.merge_config && core.changelog_producer == "lookup" && !options.overwrite) {
    ctx.lookup_changelog_prefix = core.changelog_file_prefix;
    ctx.row_deduplicate = OptionIsTrue(*schema, "changelog-producer.row-deduplicate");
    ctx.row_deduplicate_ignore = compact::ParseFieldList(
        schema->Option("changelog-producer.row-deduplicate-ignore-fields").value_or(""));
  }
  if (ctx.merge_config) {
    const merge::MergeConfig& c = *ctx.merge_config;
    ctx.column_buffer = (c.IsPlainDeduplicate() || c.IsPlainPartialUpdate() ||
                         c.IsPlainAggregation() || c.IsPlainFirstRow()) &&
                        !ctx.write_mask &&
                        datafile::FindFileFormat(ctx.format.FormatForLevel(0)) &&
                        datafile::FindFileFormat(ctx.format.FormatForLevel(0))->WritesColumns() &&
                        ColumnWriteBuffer::Supports(ctx.layout.fields) &&
                        !GetTestHooks().row_write_buffer;
  }
  return std::unique_ptr<TableWriter>(new FileStoreWriter(path, std::move(schema), options,
                                                          std::move(core), std::move(ctx),
                                                          std::move(input_merge),
                                                          std::move(scanner)));
}

Result<std::optional<int64_t>> CompactTableFull(
    const std::string& path, std::shared_ptr<const TableSchema> schema,
    const std::function<void(int64_t, int64_t)>& progress,
    const std::vector<std::map<std::string, std::string>>& partitions,
    std::vector<std::string>* warnings) {
  // Old snapshots expire after the compaction commits, also for 'write-only' tables: this is
  // the dedicated compaction job Paimon's write-only writers leave that work to. The compaction
  // stands whatever happens there; a failure is a warning when the caller takes them.
  auto expire_after = [&](int64_t committed) -> Status {
    Status st = commit::ExpireAfterCommit(path, *schema);
    if (st.ok()) return st;
    const std::string what = "snapshot " + std::to_string(committed) +
                             " is committed, but expiring old snapshots failed";
    if (warnings == nullptr) return st.WithContext(what);
    warnings->push_back(what + " (the next commit retries): " + st.ToString());
    return Status::OK();
  };
  std::vector<Field> pf;
  std::vector<DataType> pt;
  for (const auto& k : schema->partition_keys) {
    pf.push_back(schema->fields[schema->FieldIndex(k)]);
    pt.push_back(pf.back().type);
  }
  for (const auto& spec : partitions) {
    for (const auto& [k, v] : spec) {
      if (std::find(schema->partition_keys.begin(), schema->partition_keys.end(), k) ==
          schema->partition_keys.end()) {
        return Status::Invalid("'" + k + "' is not a partition column of the table");
      }
    }
  }
  TRIB_ASSIGN_OR_RETURN(CoreOptions core, CoreOptions::From(*schema));
  // Whether the partition (its BinaryRow bytes) is one `partitions` asks for.
  auto wanted = [&](const std::string& pbytes) -> Result<bool> {
    if (partitions.empty()) return true;
    TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(pbytes, pt));
    const std::string dir = meta::PartitionPath(pf, part, core.partition_default_name);
    for (const auto& spec : partitions) {
      bool all = true;
      for (const auto& [k, v] : spec) {
        const std::string piece = k + "=" + v;
        bool found = false;
        for (size_t b = 0; b <= dir.size();) {
          size_t e = dir.find('/', b);
          if (e == std::string::npos) e = dir.size();
          found = found || dir.compare(b, e - b, piece) == 0;
          b = e + 1;
        }
        all = all && found;
      }
      if (all) return true;
    }
    return false;
  };
  if (!schema->HasPrimaryKey()) {
    std::set<std::pair<std::string, int32_t>> only;
    if (!partitions.empty()) {
      meta::SnapshotManager snapshots(path);
      TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
      if (!latest) return std::optional<int64_t>();
      TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
      TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntries(path, *snap));
      for (const auto& e : live) {
        TRIB_ASSIGN_OR_RETURN(bool w, wanted(e.partition));
        if (w) only.insert({e.partition, e.bucket});
      }
      if (only.empty()) return std::optional<int64_t>();
    }
    auto r = CompactAppendTable(path, schema, /*full=*/true, partitions.empty() ? nullptr : &only,
                                "", progress);
    if (r.ok() && *r) TRIB_RETURN_NOT_OK(expire_after(**r));
    return r;
  }
  if (OptionIsTrue(*schema, "deletion-vectors.enabled")) {
    return Status::NotSupported("compacting a table with 'deletion-vectors.enabled' is not "
                                "supported yet");
  }
  meta::SnapshotManager snapshots(path);
  TRIB_ASSIGN_OR_RETURN(auto latest, snapshots.LatestId());
  if (!latest) return std::optional<int64_t>();
  TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Read(*latest));
  TRIB_ASSIGN_OR_RETURN(auto live, ReadLiveEntries(path, *snap));
  std::map<BucketId, std::vector<meta::ManifestEntry>> by_bucket;
  for (auto& e : live) {
    TRIB_ASSIGN_OR_RETURN(bool w, wanted(e.partition));
    if (w) by_bucket[{e.partition, e.bucket}].push_back(std::move(e));
  }
  UniversalCompactionPicker picker(core.max_size_amp_percent, core.size_ratio,
                                   core.sorted_run_trigger, core.num_levels - 1);
  // Buckets are compacted in parallel; each has its own file namer.
  std::vector<std::pair<BucketId, std::vector<meta::ManifestEntry>*>> work;
  for (auto& [id, entries] : by_bucket) work.push_back({id, &entries});
  std::vector<std::optional<CommitMessage>> messages(work.size());
  std::vector<std::vector<std::string>> outputs(work.size());
  std::mutex progress_mu;
  int64_t done = 0;
  if (progress) progress(0, static_cast<int64_t>(work.size()));
  Status st = ParallelFor(work.size(), DefaultParallelism(), [&](size_t i) -> Status {
    const BucketId& id = work[i].first;
    const std::vector<meta::ManifestEntry>& entries = *work[i].second;
    std::vector<meta::DataFileMeta> files;
    for (const auto& e : entries) files.push_back(e.file);
    auto unit = picker.PickFull(BuildSortedRuns(files));
    if (unit) {
      TRIB_ASSIGN_OR_RETURN(Row part, format::DeserializeBinaryRow(id.first, pt));
      std::string dir = meta::BucketDir(
          path, meta::PartitionPath(pf, part, core.partition_default_name), id.second);
      meta::FileNamer namer("data-", "");
      TRIB_ASSIGN_OR_RETURN(auto result,
                            RunCompaction(path, *schema, dir, *unit, unit->output_level,
                                          core.target_file_size, core.format, &namer));
      CommitMessage m;
      m.partition = id.first;
      m.bucket = id.second;
      m.total_buckets = entries.front().total_buckets;
      for (const auto& f : result.after) outputs[i].push_back(io::JoinPath(dir, f.file_name));
      m.compact_changelog_files = std::move(result.changelog);
      for (const auto& f : m.compact_changelog_files) {
        outputs[i].push_back(io::JoinPath(dir, f.file_name));
      }
      m.compact_before = std::move(result.before);
      m.compact_after = std::move(result.after);
      io::CrashPoint("compact.after-rewrite");
      messages[i] = std::move(m);
    }
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      progress(++done, static_cast<int64_t>(work.size()));
    }
    return Status::OK();
  });
  TRIB_ASSIGN_OR_RETURN(auto committed,
                        CommitCompactions(path, schema, "", st, std::move(messages), outputs,
                                          "full compaction"));
  if (committed) TRIB_RETURN_NOT_OK(expire_after(*committed));
  return committed;
}

}  // namespace tributary::write
