// FileStoreWriter's commit: each bucket's flush and compaction, rebucketing of rescaled
// partitions, and the commit of the snapshot (retried on conflict).
#include <random>

#include "options/option_keys.h"
#include "write/file_store_writer.h"

namespace tributary::write {

Result<std::optional<int64_t>> FileStoreWriter::Commit() {
  if (failed_) return Status::Invalid("the writer failed earlier and must be discarded");
  warnings_.clear();
  auto r = DoCommit();
  if (!r.ok()) {
    failed_ = true;
    Abort();
    RemoveDirsOfDroppedTable();
    return r;
  }
  if (!level0_left_.empty()) {
    std::set<BucketId> buckets = std::move(level0_left_);
    level0_left_.clear();
    Status st = CompactLeftLevel0(buckets);
    if (!st.ok()) {
      warnings_.push_back((*r ? "snapshot " + std::to_string(**r) + " is committed, but " : "") +
                          std::string("its rows wait in level 0, invisible to batch reads until "
                                      "the next compaction of their buckets: ") +
                          st.ToString());
    }
  }
  const bool full_producer =
      core_.changelog_producer == options::ChangelogProducer::kFullCompaction;
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
      auto compacted = CompactTableFull(path_, schema_, {}, {}, nullptr, options_.spill_dirs);
      // Lost to a concurrent compaction: the changes are emitted by the next full compaction
      // (its changelog is the top level before against after), so nothing is lost.
      if (!compacted.ok() && !compacted.status().IsConflict()) {
        warnings_.push_back(
            "the full compaction that produces the changelog of the last "
            "commits failed (the next one retries): " +
            compacted.status().ToString());
      }
    }
  }
  // (The end of an input waits for a background append compaction even when it commits
  // nothing new.)
  const bool append_pending =
      waiting_for_jobs_ && (append_compaction_.valid() || !append_touched_.empty());
  if ((*r || append_pending) && !layout_.primary_key && !core_.write_only && !options_.overwrite) {
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
        warnings_.push_back(committed +
                            "compacting small files in the background failed (the "
                            "next commit retries): " +
                            st.ToString());
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
        warnings_.push_back(committed +
                            "compacting its small files failed (the next commit "
                            "retries): " +
                            compacted.status().ToString());
      }
    }
  }
  if (*r && !core_.write_only) {
    // As Paimon's committers: old snapshots expire after each commit. The commit stands
    // whatever happens here; a failure is reported and the next commit tries again.
    Status st = commit::ExpireAfterCommit(path_, *schema_);
    if (!st.ok()) {
      warnings_.push_back("snapshot " + std::to_string(**r) +
                          " is committed, but expiring old "
                          "snapshots failed (the next commit retries): " +
                          st.ToString());
    }
  }
  return r;
}

Result<std::optional<int64_t>> FileStoreWriter::CommitAndWaitForCompaction() {
  waiting_for_jobs_ = true;
  auto r = Commit();
  waiting_for_jobs_ = false;
  return r;
}

void FileStoreWriter::RemoveDirsOfDroppedTable() {
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

Status FileStoreWriter::PrepareBucket(const BucketId& id, BucketWriter* bw,
                                      const UniversalCompactionPicker& picker, CommitMessage* m,
                                      std::vector<std::pair<std::string, std::string>>* outputs,
                                      CompactionJob* job, bool* job_finished,
                                      NextCompaction* next) const {
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
  // A deletion-vector table's vectors of the bucket, as the restored snapshot has them (an
  // overwrite starts from none: the partitions it replaces lose theirs).
  compact::BucketDeletionVectors vectors;
  // (Commits that do not wait load them only for the lookup changelog.)
  if (deletion_vectors_ && !options_.overwrite &&
      (!VectorsAsync() || ctx_.lookup_changelog_prefix)) {
    auto base = existing_vectors_.find(id);
    std::optional<meta::IndexManifestEntry> entry;
    if (base != existing_vectors_.end()) entry = base->second;
    TRIB_ASSIGN_OR_RETURN(vectors, compact::BucketDeletionVectors::Load(path_, bw->dir(), entry));
  }
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
    if (deletion_vectors_) {
      in.deletion_vectors = [&vectors](const std::string& file) { return vectors.Of(file); };
    }
    if (auto flushed = bw->flushed_columns()) {
      in.flushed_columns = flushed->columns;
      in.flushed_merge = flushed->merged;
    }
    TRIB_ASSIGN_OR_RETURN(
        auto files, WriteLookupChangelog(in, bw->changelog_namer(*ctx_.lookup_changelog_prefix)));
    for (auto& f : files) bw->new_changelog_files().push_back(std::move(f));
  }
  m->changelog_files = bw->new_changelog_files();
  if (deletion_vectors_) {
    // Merge-on-write: every commit pushes the bucket's level-0 files up and marks the rows they
    // replace (Paimon's 'lookup-wait': the commit waits for it), so batch reads, which leave
    // level-0 files out, see the commit. A write-only writer leaves that to a compaction.
    // With 'lookup-wait' = 'false' a long-lived writer's commits do not wait for it.
    if (VectorsAsync()) {
      PrepareVectorsAsync(id, m, outputs, job, job_finished, next);
      return Status::OK();
    }
    if (m->new_files.empty() || core_.write_only) return Status::OK();
    return CompactWithVectors(id, bw, picker, std::move(vectors), options_.overwrite, m, outputs);
  }
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
      TRIB_RETURN_NOT_OK(DryRunMerge(path_, *schema_, bw->dir(), files, options_.spill_dirs));
    }
  }
  if (options_.overwrite || core_.write_only) return Status::OK();
  std::vector<meta::DataFileMeta> files = existing;
  for (const auto& f : m->new_files) files.push_back(f);
  if (job) {
    // A background compaction of this bucket: wait for it only at the stop trigger.
    bool stop = waiting_for_jobs_ ||
                BuildSortedRuns(files).size() >= static_cast<size_t>(core_.sorted_run_stop_trigger);
    if (!job->done.load() && !stop) return Status::OK();
    job->Wait();
    *job_finished = true;
    // A failed background compaction (its inputs gone, say) is dropped, not this commit: the
    // next commits pick again.
    if (!job->status.ok()) return Status::OK();
    const std::string out = datafile::NewFileDir(job->namer, job->dir);
    for (const auto& f : job->result.after) outputs->push_back({out, f.file_name});
    for (const auto& f : job->result.changelog) outputs->push_back({out, f.file_name});
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
    if (!job) next->unit.emplace(std::move(*unit), highest);  // one job per bucket at a time
    return Status::OK();
  }
  // Compacting now: every commit of a writer without background compaction, and the commit
  // that ends the input of one with it (as Paimon's prepareCommit(waitCompaction): after the
  // running compaction is taken in, the next one is picked and waited for).
  TRIB_ASSIGN_OR_RETURN(
      auto result, RunCompaction(path_, *schema_, bw->dir(), *unit, highest, core_.target_file_size,
                                 core_.format, bw->namer(), nullptr, options_.spill_dirs));
  const std::string out = datafile::NewFileDir(*bw->namer(), bw->dir());
  for (const auto& f : result.after) outputs->push_back({out, f.file_name});
  for (const auto& f : result.changelog) outputs->push_back({out, f.file_name});
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

Status FileStoreWriter::CompactWithVectors(
    const BucketId& id, BucketWriter* bw, const UniversalCompactionPicker& picker,
    compact::BucketDeletionVectors vectors, bool only_new, CommitMessage* m,
    std::vector<std::pair<std::string, std::string>>* outputs) const {
  static const std::vector<meta::DataFileMeta> kNone;
  auto it = existing_.find(id);
  const std::vector<meta::DataFileMeta>& existing =
      it == existing_.end() || only_new ? kNone : it->second;
  // (An aggregate that cannot merge fails the compaction, so the statement: no dry run.)
  std::vector<meta::DataFileMeta> files = existing;
  for (const auto& f : m->new_files) files.push_back(f);
  auto picked = PickVectorsCompaction(files, picker, vectors.base());
  if (!picked) return Status::OK();
  CommitMessage::CompactBase& base = picked->base;
  TRIB_ASSIGN_OR_RETURN(auto result,
                        RunCompaction(path_, *schema_, bw->dir(), picked->unit, picked->highest,
                                      core_.target_file_size, core_.format, bw->namer(), &vectors,
                                      options_.spill_dirs));
  for (const auto& f : result.after) {
    if (!compact::IsUpgraded(result, f)) {
      outputs->push_back({datafile::NewFileDir(*bw->namer(), bw->dir()), f.file_name});
    }
  }
  io::CrashPoint("compact.after-rewrite");
  if (vectors.modified()) {
    const std::string dir = compact::IndexFileDir(
        path_, datafile::NewFileDir(*bw->namer(), bw->dir()), index_in_data_dir_);
    TRIB_ASSIGN_OR_RETURN(meta::IndexManifestEntry entry,
                          vectors.Write(dir, id.first, id.second, bitmap64_));
    RecordIndexPath(*bw->namer(), &entry);
    outputs->push_back({dir, entry.file_name});
    m->compact_vectors = std::move(entry);
    io::CrashPoint("dv.after-index-file");
  }
  m->compact_base = std::move(base);
  m->compact_before = std::move(result.before);
  m->compact_after = std::move(result.after);
  return Status::OK();
}

Status FileStoreWriter::CompactLeftLevel0(const std::set<BucketId>& buckets) {
  UniversalCompactionPicker picker(core_.max_size_amp_percent, core_.size_ratio,
                                   core_.sorted_run_trigger, core_.num_levels - 1);
  const int retries = static_cast<int>(
      std::max<int64_t>(0, options::GetOrDefault(*schema_, options::kCommitMaxRetries)));
  std::mt19937 rng(std::random_device{}());
  for (int attempt = 0; attempt <= retries; attempt++) {
    restored_ = false;
    TRIB_RETURN_NOT_OK(Restore());
    CommitRequest req;
    std::vector<std::pair<std::string, std::string>> outputs;
    auto drop_outputs = [&] {
      for (const auto& [dir, f] : outputs) datafile::RemoveDataFile(dir, f);
    };
    for (const BucketId& id : buckets) {
      auto it = existing_.find(id);
      auto bw = buckets_.find(id);
      if (it == existing_.end() || bw == buckets_.end() ||
          std::none_of(it->second.begin(), it->second.end(),
                       [](const auto& f) { return f.level == 0; })) {
        continue;
      }
      CommitMessage m;
      m.partition = id.first;
      m.bucket = id.second;
      m.total_buckets = KnownTotalBuckets(id.first);
      auto base = existing_vectors_.find(id);
      auto vectors = compact::BucketDeletionVectors::Load(
          path_, bw->second->dir(),
          base == existing_vectors_.end() ? std::nullopt : std::optional(base->second));
      Status st = vectors.ok() ? CompactWithVectors(id, bw->second.get(), picker,
                                                    std::move(*vectors), false, &m, &outputs)
                               : vectors.status();
      if (!st.ok()) {
        drop_outputs();
        return st;
      }
      if (!m.compact_before.empty()) req.messages.push_back(std::move(m));
    }
    if (req.messages.empty()) return Status::OK();
    FileStoreCommit commit(path_, schema_, options_.commit_user);
    commit.RequireIncarnation(ctx_.table_incarnation);
    auto result = commit.Commit(req);
    if (!result.ok() || result->compaction_dropped) drop_outputs();
    if (!result.ok()) return result.status();
    AdvanceRestored(req, *result, false);
    restored_ = false;
    if (!result->compaction_dropped) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + rng() % (5 + 5 * attempt)));
  }
  return Status::Conflict("other writers kept compacting the same buckets first");
}

void FileStoreWriter::AdvanceRestored(const CommitRequest& req, const CommitResult& result,
                                      bool renumbered) {
  live_at_.reset();
  // (Deletion vectors and overwrites change more than the messages say; renumbered files were
  // written again under other names; append tables number their rows at the commit.)
  if (!restored_ || !layout_.primary_key || deletion_vectors_ || req.overwrite || renumbered ||
      result.compaction_dropped || !result.dropped_compact_files.empty()) {
    return;
  }
  if (!result.first_snapshot) {  // nothing published
    live_at_ = std::make_pair(restored_snapshot_, restored_delta_);
    return;
  }
  if (*result.first_snapshot != restored_snapshot_ + 1 ||
      *result.last_snapshot != *result.first_snapshot + result.snapshots - 1) {
    return;
  }
  // The last snapshot's delta manifest list (named by a UUID) tells it from another of its id
  // (a rollback, then another writer's commit).
  auto last = meta::SnapshotManager(path_).Read(*result.last_snapshot);
  if (!last.ok()) return;
  // (As the snapshots have them: the new files, then the compaction, which may have taken some
  // of them.)
  for (const CommitMessage& m : req.messages) {
    // (A partition not restored is read from the new snapshot when it is first written.)
    if (!restored_all_ && !restored_partitions_.count(m.partition)) continue;
    std::vector<meta::DataFileMeta>& files = existing_[{m.partition, m.bucket}];
    files.insert(files.end(), m.new_files.begin(), m.new_files.end());
    if (!m.compact_before.empty()) {
      std::set<std::string> gone;
      for (const auto& f : m.compact_before) gone.insert(f.file_name);
      std::erase_if(files, [&](const meta::DataFileMeta& f) { return gone.count(f.file_name); });
    }
    files.insert(files.end(), m.compact_after.begin(), m.compact_after.end());
    if (files.empty()) existing_.erase({m.partition, m.bucket});
    if (m.total_buckets > 0) partition_buckets_[m.partition] = m.total_buckets;
  }
  live_at_ = std::make_pair(*result.last_snapshot, (*last)->delta_manifest_list);
}

Status FileStoreWriter::RebucketRescaledPartitions() {
  if (core_.bucket <= 0 || options_.overwrite || !restored_ || buckets_.empty())
    return Status::OK();
  meta::SnapshotManager snapshots(path_);
  TRIB_ASSIGN_OR_RETURN(auto snap, snapshots.Latest());
  if (!snap || snap->id == restored_snapshot_) return Status::OK();
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
    if (!it->second->new_files().empty() || it->second->has_spilled()) {
      return Status::Conflict("a partition was rewritten into " +
                              std::to_string(now[it->first.first]) +
                              " buckets while this "
                              "writer had flushed rows to its old layout; nothing was "
                              "committed: write them again");
    }
    auto job = jobs_.find(it->first);
    if (job != jobs_.end()) {  // a compaction of the old layout: its result is void
      job->second->Wait();
      for (const auto& f : job->second->result.changelog) {
        datafile::RemoveDataFile(job->second->dir, f);
      }
      for (const auto& f : job->second->result.after) {
        datafile::RemoveDataFile(job->second->dir, f);
      }
      jobs_.erase(job);
    }
    buffered_bytes_ -= it->second->buffer_bytes();
    ChargeBuffered(true);
    it->second->TakePending(&pending);
    it = buckets_.erase(it);
  }
  route_generation_++;  // the erased writers are no longer routed to
  restored_ = false;    // the next Restore reads the partitions' new layout and files
  for (auto& [kind, row] : pending) {
    TRIB_RETURN_NOT_OK(Route(kind, std::move(row), /*prepared=*/true));
  }
  return Status::OK();
}

// An OVERWRITE commit: which partitions it replaces (req->overwrite_filter), and, when the rows
// came from a snapshot, the precondition that those partitions still hold its files.
Status FileStoreWriter::SetOverwrite(CommitRequest* req) {
  if (options_.overwrite) {
    std::vector<std::map<std::string, std::string>> specs = options_.overwrite_partitions;
    if (options_.overwrite_partition) specs.push_back(*options_.overwrite_partition);
    if (!specs.empty()) {
      std::vector<Field> pf = partition_fields_;
      std::vector<DataType> pt = partition_types_;
      req->overwrite_filter = [specs, pf, pt](const std::string& p) {
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
      for (const auto& m : req->messages) written.insert(m.partition);
      req->overwrite_filter = [written](const std::string& p) { return written.count(p) > 0; };
    }
  }
  if (options_.overwrite && options_.overwrite_base_snapshot) {
    // The partitions replaced must hold the files they held in the snapshot the rows came
    // from: a write committed since is not lost but makes this commit fail.
    meta::SnapshotManager snapshots(path_);
    TRIB_ASSIGN_OR_RETURN(auto base, snapshots.Read(*options_.overwrite_base_snapshot));
    TRIB_ASSIGN_OR_RETURN(auto base_live, ReadLiveEntries(path_, *base));
    auto filter = req->overwrite_filter;
    auto names = [filter](const std::vector<meta::ManifestEntry>& live) {
      std::set<std::string> out;
      for (const auto& e : live) {
        if (!filter || filter(e.partition)) out.insert(e.file.file_name);
      }
      return out;
    };
    req->precondition = [names, expected = names(base_live),
                         id = *options_.overwrite_base_snapshot](
                            const std::vector<meta::ManifestEntry>& live) -> Status {
      if (names(live) == expected) return Status::OK();
      return Status::Conflict("the rewritten partitions changed since snapshot " +
                              std::to_string(id) +
                              " (a concurrent write); nothing was "
                              "committed: run it again");
    };
  }
  return Status::OK();
}

Result<std::optional<int64_t>> FileStoreWriter::DoCommit() {
  // Fixed buckets: no rescale commits between the layout check and this commit (a rescale
  // itself holds the lock exclusively).
  std::unique_ptr<BucketLayoutLock> layout_lock;
  if (core_.bucket > 0 && (!options_.overwrite || options_.overwrite_buckets)) {
    TRIB_ASSIGN_OR_RETURN(layout_lock,
                          BucketLayoutLock::Take(path_, options_.overwrite_buckets.has_value()));
  }
  TRIB_RETURN_NOT_OK(RebucketRescaledPartitions());
  CommitRequest req;
  req.overwrite = options_.overwrite;
  UniversalCompactionPicker picker(core_.max_size_amp_percent, core_.size_ratio,
                                   core_.sorted_run_trigger, core_.num_levels - 1);
  buffered_bytes_ = 0;  // every buffer is flushed below
  ChargeBuffered(true);
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
  std::vector<NextCompaction> next_units(work.size());
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
  TRIB_RETURN_NOT_OK(SetOverwrite(&req));
  if (layout_.primary_key) {
    req.renumber = [this](const CommitMessage& m,
                          int64_t shift) -> Result<std::vector<meta::DataFileMeta>> {
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
  // A writer's first commit reads the live files of the partitions it writes; its later ones
  // (a long-lived writer) keep the whole list, each applying its delta to the last.
  if (commits_ > 0) commit.KeepLiveFilesWhole();
  commits_++;
  if (next_commit_info_) {
    commit.SetSnapshotInfo(next_commit_info_->first, std::move(next_commit_info_->second));
    next_commit_info_.reset();
  }
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
  std::set<BucketId> lost_compactions;
  if (deletion_vectors_) {
    // Compactions lost to another writer's leave this commit's rows in level 0: compacted
    // before the commit returns, unless the writer's commits do not wait (the next commit picks
    // again).
    std::set<std::string> dropped(result.dropped_compact_files.begin(),
                                  result.dropped_compact_files.end());
    for (const auto& m : req.messages) {
      const bool lost =
          result.compaction_dropped ||
          std::any_of(m.compact_after.begin(), m.compact_after.end(),
                      [&](const auto& f) { return dropped.count(f.file_name) > 0; }) ||
          (m.compact_vectors && dropped.count(m.compact_vectors->file_name) > 0);
      if (!lost) continue;
      lost_compactions.insert({m.partition, m.bucket});
      if (VectorsAsync() ? waiting_for_jobs_ : !m.new_files.empty()) {
        level0_left_.insert({m.partition, m.bucket});
      }
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
    renumbered[i] =
        published.size() != picked.size() ||
        !std::equal(published.begin(), published.end(), picked.begin(),
                    [](const auto& a, const std::string& b) { return a.file_name == b; });
  }
  for (auto& [id, bw] : buckets_) {
    bw->new_files().clear();
    bw->new_changelog_files().clear();
  }
  spill_file_.reset();  // every bucket's spilled runs were merged by its flush above
  AdvanceRestored(req, result, std::count(renumbered.begin(), renumbered.end(), 1) > 0);
  restored_ = false;  // the next commit restores the (new) latest state
  committed_all_ = true;
  // Background compactions of what this commit published.
  for (size_t i = 0; i < work.size(); i++) {
    NextCompaction& next = next_units[i];
    const BucketId& id = work[i].first;
    if (next.level0_left) level0_left_.insert(id);
    if (renumbered[i] || jobs_.count(id)) continue;
    if (next.unit)
      StartCompactionJob(id, work[i].second, std::move(next.unit->first), next.unit->second);
    // (A seed assumed its commit's compaction landed.)
    if (next.seed && !lost_compactions.count(id)) {
      StartVectorsJob(id, work[i].second, std::move(*next.seed));
    }
  }
  // (A bucket whose compaction was lost stays open: its next commit picks again.)
  std::set<BucketId> active = lost_compactions;
  for (size_t i = 0; i < work.size(); i++) {
    if (!picked_from[i].empty()) active.insert(work[i].first);
  }
  CloseIdleBuckets(active);
  return result.last_snapshot;
}

void FileStoreWriter::CloseIdleBuckets(const std::set<BucketId>& active) {
  bool closed = false;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const BucketId& id = it->first;
    BucketWriter& bw = *it->second;
    // (A deletion-vector bucket with level-0 files, which batch reads leave out, stays open
    // until a compaction takes them up.)
    auto files = existing_.find(id);
    const bool level0 = deletion_vectors_ && files != existing_.end() &&
                        std::any_of(files->second.begin(), files->second.end(),
                                    [](const meta::DataFileMeta& f) { return f.level == 0; });
    if (active.count(id) || jobs_.count(id) || level0_left_.count(id) || level0 ||
        bw.buffer_bytes() > 0 || bw.has_spilled() || !bw.new_files().empty()) {
      ++it;
      continue;
    }
    it = buckets_.erase(it);
    closed = true;
  }
  if (!closed) return;
  route_generation_++;  // the routes name closed writers
  std::set<std::string> open;
  for (const auto& [id, bw] : buckets_) open.insert(id.first);
  absl::erase_if(routes_, [&](const auto& r) { return !open.count(r.first); });
  // The live files of partitions with no open bucket go too (read again when written again).
  if (restored_all_) {
    restored_all_ = false;
    restored_partitions_ = open;
  } else {
    std::erase_if(restored_partitions_, [&](const std::string& p) { return !open.count(p); });
  }
  std::erase_if(existing_, [&](const auto& e) { return !open.count(e.first.first); });
  std::erase_if(partition_buckets_, [&](const auto& e) { return !open.count(e.first); });
}

}  // namespace tributary::write
