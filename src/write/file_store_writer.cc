// FileStoreWriter's write path: routing rows to partitions and buckets (the cross-partition
// index, dynamic buckets), the bucket writers and their checks, restoring the table's state.
#include "write/file_store_writer.h"

#include "common/memory_budget.h"
#include "options/option_keys.h"

namespace tributary::write {

namespace {
// Rows of a segment of a spilled write buffer (a run is read back a segment at a time).
// Small enough that a commit's merge of a bucket's runs (at most kMaxSpilledRuns) holds little.
constexpr size_t kSpillSegmentRows = 1024;
}  // namespace

FileStoreWriter::FileStoreWriter(std::string path, std::shared_ptr<const TableSchema> schema,
                                 WriteOptions options, CoreOptions core, WriteContext ctx,
                                 std::unique_ptr<merge::MergeFunction> input_merge,
                                 TableRowScanner scanner)
    : path_(std::move(path)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      core_(std::move(core)),
      ctx_(std::move(ctx)),
      layout_(ctx_.layout),
      input_merge_(std::move(input_merge)),
      scanner_(std::move(scanner)) {
  ctx_.schema = schema_.get();
  if (options::IsSet(*schema_, options::kFullCompactionDeltaCommits)) {
    full_compaction_delta_commits_ = std::max<int64_t>(
        1, options::Get(*schema_, options::kFullCompactionDeltaCommits).ValueOr(1));
    full_compaction_every_ = true;
  }
  lookup_cache_budget_ = options::GetOrDefault(*schema_, options::kLookupCacheMaxMemorySize);
  deletion_vectors_ = options::GetOrDefault(*schema_, options::kDeletionVectorsEnabled);
  bitmap64_ = options::GetOrDefault(*schema_, options::kDeletionVectorsBitmap64);
  lookup_wait_ = options::GetOrDefault(*schema_, options::kLookupWait);
  index_in_data_dir_ = options::GetOrDefault(*schema_, options::kIndexFileInDataFileDir);
  // (NewFileStoreWriter checked the options: CheckWritable.)
  external_paths_ = meta::ExternalPaths::Of(*schema_).ValueOr(std::nullopt);
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
  // Paimon's default: spill on object storage, where a level-0 file costs requests.
  spillable_ = core_.write_buffer_spillable.value_or(io::IsObjectStoreUri(path_));
  key_types_ = layout_.KeyTypes();
  if (layout_.primary_key && core_.bucket == -1) {
    // As Paimon, where each of the job's parallel assigners opens buckets of its own: without
    // 'dynamic-bucket.initial-buckets' new keys spread over one bucket per writer thread, so
    // flushes and compactions of a dynamic-bucket table run in parallel too.
    int32_t initial = core_.dynamic_bucket_initial_buckets > 0
                          ? core_.dynamic_bucket_initial_buckets
                          : DefaultParallelism();
    dynamic_ = std::make_unique<DynamicBucketAssigner>(path_, core_.dynamic_bucket_target_rows,
                                                       initial, core_.dynamic_bucket_max_buckets);
    cross_partition_ = schema_->TrimmedPrimaryKeys().size() + schema_->partition_keys.size() !=
                       schema_->primary_keys.size();
    // Keys are the trimmed primary key across partitions, as Paimon's global index has them.
    pk_idx_ = layout_.key_columns;
    pk_types_ = layout_.KeyTypes();
  }
}

FileStoreWriter::~FileStoreWriter() {
  if (!committed_all_) Abort();
  MemoryBudget::Instance().ChargeBuffers(-charged_bytes_);  // the buffers go with the writer
  DropCompactionJobs();
  StopCompactor();
  // A background append compaction commits itself: it runs to its end (its error, if any,
  // has no commit left to report it; the next writer's compaction tries again).
  if (append_compaction_.valid()) append_compaction_.wait();
}

Status FileStoreWriter::Write(RowKind kind, Row&& row) {
  if (failed_) return Status::Invalid("the writer failed earlier and must be discarded");
  if (row.size() != schema_->fields.size()) {
    return Status::Invalid("table '" + path_ + "' has " + std::to_string(schema_->fields.size()) +
                           " columns but the row has " + std::to_string(row.size()));
  }
  for (size_t i = 0; i < row.size(); i++)
    TRIB_RETURN_NOT_OK(CheckValue(row[i], schema_->fields[i]));
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

Status FileStoreWriter::WriteCrossPartition(RowKind kind, Row&& row) {
  if (options_.overwrite) {
    return Status::NotSupported(
        "INSERT OVERWRITE of a table with cross-partition updates (a "
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

uint32_t FileStoreWriter::CrossPartitionId(const Row& partition) {
  std::string bytes = format::SerializeBinaryRow(partition_types_, partition);
  auto [it, added] = cross_partition_id_.try_emplace(
      std::move(bytes), static_cast<uint32_t>(cross_partitions_.size()));
  if (added) cross_partitions_.push_back(partition);
  return it->second;
}

Status FileStoreWriter::LoadCrossIndex() {
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
      cross_partition_of_[format::SerializeBinaryRow(pk_types_, key)] = CrossPartitionId(partition);
    }));
  }
  cross_snapshot_ = latest;
  cross_loaded_ = true;
  return Status::OK();
}

Status FileStoreWriter::Route(RowKind kind, Row&& row, bool prepared) {
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
    bucket =
        format::BucketOf(format::HashRow(bucket_types_, pick(bucket_idx_, &scratch_key_)), total);
  } else if (dynamic_) {
    TRIB_ASSIGN_OR_RETURN(
        bucket, dynamic_->Assign(
                    pbytes, format::HashRow(key_types_, pick(layout_.key_columns, &scratch_key_)),
                    options_.overwrite));
  }
  TRIB_ASSIGN_OR_RETURN(BucketWriter * bw, GetBucket(pbytes, partition, bucket));
  KeyValue kv{0, kind, std::move(row), 0, nullptr};
  if (input_merge_ && !prepared) input_merge_->PrepareInput(&kv);
  // Flushes (or spills) `b`'s buffer and gives its memory back.
  auto flush = [&](BucketWriter* b) -> Status {
    buffered_bytes_ -= b->buffer_bytes();
    Status st = SpillOrFlush(b);
    b->ReleaseFlushed();
    b->ReleaseBufferMemory();
    ChargeBuffered(true);
    if (!st.ok()) failed_ = true;
    return st;
  };
  auto largest_bucket = [&]() {
    BucketWriter* largest = nullptr;
    for (auto& [id, b] : buckets_) {
      if (!largest || b->buffer_bytes() > largest->buffer_bytes()) largest = b.get();
    }
    return largest;
  };
  // A record that would double a vector of a buffer of 1 MiB or more past 'write-buffer-size'
  // (ColumnWriteBuffer::GrowthOf) first has the largest buffers flushed, as the limit would
  // have them after it, until the doubling fits (or the buffer itself is flushed): flushed
  // after the record, the doubled vector would hold nothing more before the flush, its copy and
  // its memory twice for nothing. A doubling adds at most what the buffer holds, so only a
  // writer within that of its limit asks.
  if (buffered_bytes_ + bw->buffer_bytes() > core_.write_buffer_size &&
      bw->buffer_bytes() >= (int64_t{1} << 20)) {
    const int64_t growth = bw->GrowthOf(kv);
    while (growth > 0 && buffered_bytes_ + growth > core_.write_buffer_size) {
      BucketWriter* largest = largest_bucket();
      if (largest->buffer_bytes() < (int64_t{1} << 20)) break;
      TRIB_RETURN_NOT_OK(flush(largest));
      if (largest == bw) break;  // emptied: its growth is no longer the doubling
    }
  }
  int64_t before = bw->buffer_bytes();
  bw->Add(std::move(kv));
  buffered_bytes_ += bw->buffer_bytes() - before;
  ChargeBuffered(false);
  committed_all_ = false;
  // 'write-buffer-size' bounds the whole writer: when it is full, the largest buffer is
  // flushed to a level-0 file (or spilled: SpillOrFlush). The process's budget bounds every
  // writer's buffers together: past it, the writer adding a row flushes its largest buffers
  // until all the buffers hold at most nine tenths of their limit (so one flush is not followed
  // by another at the next row), each of them only if it holds 1 MiB or more. Smaller buffers
  // stay: flushing them would write a file of a few rows each time (a writer over thousands of
  // buckets would write tens of thousands of files and hold their metadata instead). A
  // buffer that would be spilled (WouldSpill) goes at 16 KiB: a run costs a segment of a local
  // file, merged at the commit (docs/memory.md).
  auto min_budget_flush = [&](BucketWriter* b) {
    return WouldSpill(b) ? int64_t{16} << 10 : int64_t{1} << 20;
  };
  MemoryBudget& budget = MemoryBudget::Instance();
  bool over_budget = budget.BuffersOverLimit();
  while (buffered_bytes_ >= core_.write_buffer_size || over_budget) {
    BucketWriter* largest = largest_bucket();
    if (!largest || largest->buffer_bytes() == 0) break;
    if (buffered_bytes_ < core_.write_buffer_size &&
        largest->buffer_bytes() < min_budget_flush(largest)) {
      break;
    }
    TRIB_RETURN_NOT_OK(flush(largest));
    over_budget =
        over_budget && budget.buffered() + budget.operators() > budget.buffer_limit() / 10 * 9;
  }
  return Status::OK();
}

Status FileStoreWriter::FlushPending(std::vector<meta::ManifestEntry>* files) {
  if (failed_) return Status::Invalid("the writer failed earlier: nothing of it can be read");
  if (!options_.write_columns && !options_.overwrite) {
    for (auto& [id, bw] : buckets_) {
      buffered_bytes_ -= bw->buffer_bytes();
      Status st = bw->Flush(core_.target_file_size);  // (nothing buffered: nothing written)
      bw->ReleaseFlushed();
      bw->ReleaseBufferMemory();
      if (!st.ok()) {
        failed_ = true;
        ChargeBuffered(true);
        return st;
      }
      for (const auto& f : bw->new_files()) {
        meta::ManifestEntry e;
        e.kind = meta::FileKind::kAdd;
        e.partition = id.first;
        e.bucket = id.second;
        e.total_buckets = KnownTotalBuckets(id.first);
        e.file = f;
        files->push_back(std::move(e));
      }
    }
    ChargeBuffered(true);
    spill_file_.reset();  // every bucket's spilled runs were merged by its flush above
    return Status::OK();
  }
  return Status::NotSupported(
      "a partial-column or overwriting write cannot be read before it is committed");
}

bool FileStoreWriter::WouldSpill(BucketWriter* bw) const {
  return spillable_ && bw->CanSpill() &&
         (!spill_file_ || spill_file_->bytes() < core_.write_buffer_spill_max_disk);
}

Status FileStoreWriter::SpillOrFlush(BucketWriter* bw) {
  if (!WouldSpill(bw)) return bw->Flush(core_.target_file_size);
  if (!spill_file_) {
    TRIB_ASSIGN_OR_RETURN(const format::CompressionCodec spill_codec,
                          format::CompressionCodecFromName(core_.spill_compression));
    TRIB_ASSIGN_OR_RETURN(spill_file_, datafile::SpillFile::Create(
                                           BucketWriter::SpillFields(layout_),
                                           datafile::SpillOptions{options_.spill_dirs, spill_codec},
                                           kSpillSegmentRows));
  }
  return bw->Spill(spill_file_.get());
}

void FileStoreWriter::ChargeBuffered(bool force) {
  const int64_t delta = buffered_bytes_ - charged_bytes_;
  if (delta == 0 || (!force && delta > 0 && delta < (int64_t{64} << 10))) return;
  MemoryBudget::Instance().ChargeBuffers(delta);
  charged_bytes_ = buffered_bytes_;
}

void FileStoreWriter::Abort() {
  cross_loaded_ = false;  // it holds moves that were not committed
  if (dynamic_) dynamic_->Release(/*delete_files=*/true);
  for (auto& [id, bw] : buckets_) bw->DeleteNewFiles();
  spill_file_.reset();
  for (const auto& [dir, f] : compact_outputs_) datafile::RemoveDataFile(dir, f);
  compact_outputs_.clear();
  DropCompactionJobs();
  committed_all_ = true;
}

int32_t FileStoreWriter::KnownTotalBuckets(const std::string& pbytes) const {
  if (options_.overwrite || core_.bucket <= 0) return TotalBuckets();
  auto it = partition_buckets_.find(pbytes);
  return it != partition_buckets_.end() && it->second > 0 ? it->second : core_.bucket;
}

FileStoreWriter::PartitionRoute& FileStoreWriter::RouteOf(const std::string& pbytes) {
  PartitionRoute& r = routes_.try_emplace(pbytes).first->second;
  if (r.generation != route_generation_) {
    r.generation = route_generation_;
    r.total = 0;
    r.writers.clear();
  }
  return r;
}

Result<int32_t> FileStoreWriter::TotalBucketsOf(const std::string& pbytes) {
  if (options_.overwrite || core_.bucket <= 0) return TotalBuckets();
  if (restored_) {
    if (const int32_t known = RouteOf(pbytes).total; known > 0) return known;
  }
  TRIB_RETURN_NOT_OK(RestorePartition(pbytes));
  auto it = partition_buckets_.find(pbytes);
  const int32_t total =
      it != partition_buckets_.end() && it->second > 0 ? it->second : core_.bucket;
  RouteOf(pbytes).total = total;
  return total;
}

bool FileStoreWriter::MergeCanFail() const {
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

bool FileStoreWriter::SumsProvablyFit(const std::vector<meta::DataFileMeta>& files) const {
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

bool FileStoreWriter::OverlapsAny(const meta::DataFileMeta& f,
                                  const std::vector<meta::DataFileMeta>& files) const {
  auto rf = DecodeKeyRange(f, key_types_);
  if (!rf) return true;
  for (const auto& n : files) {
    auto rn = DecodeKeyRange(n, key_types_);
    if (!rn || rf->Overlaps(*rn)) return true;
  }
  return false;
}

Status FileStoreWriter::CheckRetractAllowed() const {
  const merge::MergeConfig& c = *ctx_.merge_config;
  if (c.ignore_delete) return Status::OK();
  if (c.engine == "first-row") {
    return Status::Invalid(
        "a first-row table does not accept DELETE or UPDATE_BEFORE rows; set "
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
        return Status::Invalid(
            "column '" + schema_->fields[i].name + "': aggregate function '" + c.aggregate[i] +
            "' does not support retraction (DELETE or "
            "UPDATE_BEFORE); set 'fields." +
            schema_->fields[i].name + ".ignore-retract' = 'true' to ignore them");
      }
    }
  }
  return Status::OK();
}

Status FileStoreWriter::Restore() {
  if (restored_) return Status::OK();
  meta::SnapshotManager snapshots(path_);
  TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Latest());
  const auto live_at = std::exchange(live_at_, std::nullopt);
  if (live_at && live_at->first == (snap ? snap->id : 0) &&
      live_at->second == (snap ? snap->delta_manifest_list : "")) {  // this writer's commit
    restored_snapshot_ = live_at->first;                             // was the last
    restored_delta_ = live_at->second;
    restored_snap_ = snap;
    restored_ = true;
    // The limits' counts stay (they counted what this writer added); partitions another
    // process added by ALTER TABLE ... ADD PARTITION since are counted again before a refusal.
    limits_fresh_ = false;
    return Status::OK();
  }
  limits_counted_ = false;
  existing_.clear();
  partition_buckets_.clear();
  restored_partitions_.clear();
  restored_all_ = false;
  route_generation_++;
  restored_snapshot_ = snap ? snap->id : 0;
  restored_delta_ = snap ? snap->delta_manifest_list : "";
  restored_snap_ = snap;
  existing_vectors_.clear();
  if (snap && deletion_vectors_) {
    TRIB_ASSIGN_OR_RETURN(auto entries,
                          meta::ReadLiveIndexEntries(path_, *snap, "DELETION_VECTORS"));
    for (auto& e : entries) existing_vectors_[{e.partition, e.bucket}] = std::move(e);
  }
  restored_ = true;
  // The partitions this writer holds buckets of: its commits build on their files.
  std::set<std::string> held;
  for (const auto& [id, bw] : buckets_) held.insert(id.first);
  Status st =
      held.size() > kPartitionsRestoredOneByOne ? RestoreAllPartitions() : RestorePartitions(held);
  if (!st.ok()) {  // nothing half-restored: the next call reads again
    restored_ = false;
    existing_.clear();
    partition_buckets_.clear();
    restored_partitions_.clear();
    restored_all_ = false;
  }
  return st;
}

Status FileStoreWriter::RestorePartition(const std::string& pbytes) {
  TRIB_RETURN_NOT_OK(Restore());
  if (restored_all_ || restored_partitions_.count(pbytes)) return Status::OK();
  auto read = [&] {
    return restored_snap_ && restored_partitions_.size() >= kPartitionsRestoredOneByOne
               ? RestoreAllPartitions()
               : RestorePartitions({pbytes});
  };
  Status st = read();
  if (st.IsNotFound() && restored_snap_) {
    // The restored snapshot expired since it was restored (its manifests removed by another
    // process): restore the latest instead, once.
    restored_ = false;
    live_at_.reset();
    TRIB_RETURN_NOT_OK(Restore());
    if (restored_all_ || restored_partitions_.count(pbytes)) return Status::OK();
    return read();
  }
  return st;
}

Status FileStoreWriter::RestorePartitions(const std::set<std::string>& partitions) {
  if (restored_snap_ && !partitions.empty()) {  // (an empty table has no files to restore)
    TRIB_ASSIGN_OR_RETURN(auto entries, meta::ReadLivePartitionEntries(
                                            path_, *restored_snap_, partitions, &partition_types_));
    for (auto& e : entries) {
      partition_buckets_[e.partition] = e.total_buckets;
      existing_[{e.partition, e.bucket}].push_back(std::move(e.file));
    }
  }
  restored_partitions_.insert(partitions.begin(), partitions.end());
  return Status::OK();
}

Status FileStoreWriter::RestoreAllPartitions() {
  TRIB_RETURN_NOT_OK(Restore());
  if (restored_all_) return Status::OK();
  if (restored_snap_) {
    TRIB_ASSIGN_OR_RETURN(auto live, meta::ReadLiveEntriesShared(path_, *restored_snap_));
    for (const auto& e : *live) {
      if (restored_partitions_.count(e.partition)) continue;  // held already
      partition_buckets_[e.partition] = e.total_buckets;
      existing_[{e.partition, e.bucket}].push_back(e.file);
    }
  }
  restored_partitions_.clear();
  restored_all_ = true;
  return Status::OK();
}

Result<BucketWriter*> FileStoreWriter::GetBucket(const std::string& pbytes, const Row& partition,
                                                 int32_t bucket) {
  // The partition's writers by bucket id: no map lookup (string comparisons) per row.
  if (bucket >= 0) {
    const PartitionRoute& r = RouteOf(pbytes);
    if (static_cast<size_t>(bucket) < r.writers.size() && r.writers[bucket]) {
      return r.writers[bucket];
    }
  }
  BucketId id{pbytes, bucket};
  auto it = buckets_.find(id);
  if (it != buckets_.end()) {
    RememberBucket(pbytes, bucket, it->second.get());
    return it->second.get();
  }
  TRIB_RETURN_NOT_OK(RestorePartition(pbytes));
  TRIB_RETURN_NOT_OK(CheckNewBucket(id, partition));
  int64_t next_seq = 0;
  for (const auto& f : existing_[id]) next_seq = std::max(next_seq, f.max_sequence_number + 1);
  const std::string partition_path =
      meta::PartitionPath(partition_fields_, partition, core_.partition_default_name);
  std::optional<meta::ExternalPaths::Dir> external;
  if (external_paths_) external = external_paths_->Next(partition_path, bucket);
  std::string dir = external ? external->local : meta::BucketDir(path_, partition_path, bucket);
  auto bw = std::make_unique<BucketWriter>(ctx_, dir, next_seq);
  if (external) bw->set_external_dir(external->recorded);
  if (ctx_.lookup_changelog_prefix) {
    bw->set_lookup_cache(
        std::make_unique<LookupValueCache>(&lookup_cache_used_, lookup_cache_budget_));
  }
  BucketWriter* raw = bw.get();
  buckets_[id] = std::move(bw);
  RememberBucket(pbytes, bucket, raw);
  return raw;
}

Status FileStoreWriter::CheckNewBucket(const BucketId& id, const Row& partition) {
  if (existing_.count(id) && !existing_[id].empty()) return Status::OK();
  const int64_t max_partitions = options::GetOrDefault(*schema_, options::kMaxPartitionNum);
  const int64_t max_buckets = options::GetOrDefault(*schema_, options::kMaxBucketNum);
  // Counts carried over this writer's own commits miss partitions other processes marked since
  // (ADD PARTITION, automatic partitions made ahead): near a limit (within a tenth of it, or 16)
  // they are made again for each new bucket.
  auto near = [](int64_t count, int64_t max) {
    return count >= max - std::max<int64_t>(16, max / 10);
  };
  if (limits_counted_ && !limits_fresh_ &&
      (near(static_cast<int64_t>(limit_partitions_.size()) + marked_only_, max_partitions) ||
       near(limit_buckets_, max_buckets))) {
    limits_counted_ = false;
  }
  if (!limits_counted_) TRIB_RETURN_NOT_OK(CountLimits());
  // A refusal on counts carried over from this writer's last commit counts again first.
  auto refuse = [&](Status refusal) -> Status {
    if (limits_fresh_) return refusal;
    TRIB_RETURN_NOT_OK(CountLimits());
    return CheckNewBucket(id, partition);
  };
  std::set<std::string>& partitions = limit_partitions_;
  const int64_t buckets = limit_buckets_;
  if (!partition_idx_.empty() && !partitions.count(id.first)) {
    const std::string name =
        meta::PartitionPath(partition_fields_, partition, core_.partition_default_name);
    if (options_.check_new_partition) TRIB_RETURN_NOT_OK(options_.check_new_partition(name));
    const std::string marked = meta::PartitionPath(partition_fields_, partition);
    const bool dynamic_create =
        options::GetOrDefault(*schema_, options::kClientWriterDynamicCreatePartition);
    bool added = marked_partitions_.count(marked) > 0;
    if (!dynamic_create) {  // whether it is added now (another process may have dropped it)
      TRIB_ASSIGN_OR_RETURN(added, io::LocalFs().Exists(meta::PartitionMarkerPath(path_, marked)));
    }
    if (!added && !dynamic_create) {
      return refuse(Status::Invalid("partition " + name +
                                    " does not exist and "
                                    "'client.writer.dynamic-create-partition.enabled' is false"));
    }
    // An added partition written for the first time was counted already (as added).
    const int64_t count = static_cast<int64_t>(partitions.size()) + marked_only_ + (added ? 0 : 1);
    if (count > max_partitions) {
      return refuse(Status::Invalid("writing partition " + name + " would give the table " +
                                    std::to_string(count) +
                                    " partitions, more than "
                                    "'max.partition.num' = " +
                                    std::to_string(max_partitions)));
    }
    if (added && marked_partitions_.erase(marked) > 0 && marked_only_ > 0) marked_only_--;
  }
  if (buckets + 1 > max_buckets) {
    return refuse(Status::Invalid("writing bucket " + std::to_string(id.second) +
                                  " would give the "
                                  "table " +
                                  std::to_string(buckets + 1) +
                                  " buckets, more than "
                                  "'max.bucket.num' = " +
                                  std::to_string(max_buckets)));
  }
  partitions.insert(id.first);
  limit_buckets_++;
  return Status::OK();
}

Status FileStoreWriter::CountLimits() {
  {
    // The partitions and buckets the table has, counted once per restored snapshot.
    // (The restored snapshot's, which existing_ holds part of, counted from its manifests.)
    limit_partitions_.clear();
    limit_buckets_ = 0;
    if (restored_snap_) {
      TRIB_ASSIGN_OR_RETURN(meta::LiveLayout layout, meta::CountLiveLayout(path_, *restored_snap_));
      limit_partitions_ = std::move(layout.partitions);
      limit_buckets_ = layout.buckets;
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
    limits_fresh_ = true;
  }
  return Status::OK();
}

void FileStoreWriter::RememberBucket(const std::string& pbytes, int32_t bucket, BucketWriter* bw) {
  if (bucket < 0 || bucket > 4096) return;
  PartitionRoute& r = RouteOf(pbytes);
  if (static_cast<size_t>(bucket) >= r.writers.size()) r.writers.resize(bucket + 1, nullptr);
  r.writers[bucket] = bw;
}

}  // namespace tributary::write
