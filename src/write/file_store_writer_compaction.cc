// FileStoreWriter's background compaction jobs.
#include "write/file_store_writer.h"

namespace tributary::write {

void FileStoreWriter::DropCompactionJobs() {
  for (auto& [id, job] : jobs_) job->cancelled.store(true);
  for (auto& [id, job] : jobs_) {
    job->Wait();
    for (const auto& f : job->result.changelog) {
      datafile::RemoveDataFile(job->dir, f);
    }
    for (const auto& f : job->result.after) {
      // (A file moved up without a rewrite is the live input itself.)
      if (!compact::IsUpgraded(job->result, f)) datafile::RemoveDataFile(job->dir, f);
    }
    if (job->vectors) {
      datafile::RemoveDataFile(
          compact::IndexFileDir(path_, datafile::NewFileDir(job->namer, job->dir),
                                index_in_data_dir_),
          job->vectors->file_name);
    }
  }
  jobs_.clear();
}

void FileStoreWriter::StopCompactor() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (compactor_.joinable()) compactor_.join();
}

namespace {
// One background compaction at a time per writer (its one compaction thread), as Paimon's
// writers each run one, and at most one per core in the process: more would not finish sooner
// on a busy machine, only hold their inputs and outputs in memory at once (W1 ingest's peak RSS
// falls by a tenth against two at once, at the same speed).
std::counting_semaphore<>& ProcessSlots() {
  static std::counting_semaphore<> slots(DefaultParallelism());
  return slots;
}
}  // namespace

std::optional<FileStoreWriter::VectorsCompaction> FileStoreWriter::PickVectorsCompaction(
    const std::vector<meta::DataFileMeta>& files, const UniversalCompactionPicker& picker,
    const std::optional<meta::IndexManifestEntry>& vectors) {
  auto runs = BuildSortedRuns(files);
  const bool partial = std::any_of(files.begin(), files.end(),
                                   [](const auto& f) { return f.write_cols.has_value(); });
  std::optional<CompactUnit> unit = picker.Pick(runs);
  if (!unit) unit = picker.PickForceLevel0(runs);
  // Partial-column files are merged only into the top level (see PrepareBucket).
  if (unit && partial) unit = picker.PickFull(runs);
  if (!unit) return std::nullopt;
  VectorsCompaction out{std::move(*unit), 0, {}};
  for (const auto& f : files) {
    out.highest = std::max(out.highest, f.level);
    if (f.level > 0) out.base.upper_files.push_back(f.file_name);
  }
  std::sort(out.base.upper_files.begin(), out.base.upper_files.end());
  if (vectors) out.base.vectors_file = vectors->file_name;
  return out;
}

void FileStoreWriter::PrepareVectorsAsync(const BucketId& id, CommitMessage* m,
                                          std::vector<std::pair<std::string, std::string>>* outputs,
                                          CompactionJob* job, bool* job_finished,
                                          NextCompaction* next) const {
  std::vector<meta::DataFileMeta> files;
  if (auto it = existing_.find(id); it != existing_.end()) files = it->second;
  std::optional<meta::IndexManifestEntry> vectors;
  if (auto it = existing_vectors_.find(id); it != existing_vectors_.end()) vectors = it->second;
  if (job && (job->done.load() || waiting_for_jobs_)) {
    // The bucket's background compaction is taken in (the end of an input waits for it). One
    // that failed (its inputs gone, say) is dropped, not this commit: the next one picks again.
    job->Wait();
    *job_finished = true;
    const CompactionResult& r = job->result;
    if (job->status.ok() && !r.before.empty()) {
      for (const auto& f : r.after) {
        if (!compact::IsUpgraded(r, f)) {
          outputs->push_back({datafile::NewFileDir(job->namer, job->dir), f.file_name});
        }
      }
      if (job->vectors) {
        outputs->push_back({compact::IndexFileDir(path_, datafile::NewFileDir(job->namer, job->dir),
                                                  index_in_data_dir_),
                            job->vectors->file_name});
        m->compact_vectors = job->vectors;
        vectors = job->vectors;
      }
      m->compact_base = job->base;
      m->compact_before = r.before;
      m->compact_after = r.after;
      std::set<std::string> gone;
      for (const auto& f : r.before) gone.insert(f.file_name);
      std::erase_if(files, [&](const auto& f) { return gone.count(f.file_name) > 0; });
      for (const auto& f : r.after) files.push_back(f);
    }
  }
  for (const auto& f : m->new_files) files.push_back(f);
  if (std::none_of(files.begin(), files.end(), [](const auto& f) { return f.level == 0; })) {
    return;
  }
  // What is left in level 0: compacted before the end of an input returns, else by the next
  // background compaction (one per bucket at a time).
  if (waiting_for_jobs_) {
    next->level0_left = true;
  } else if (!job || *job_finished) {
    next->seed = VectorsJobSeed{std::move(files), std::move(vectors)};
  }
}

void FileStoreWriter::StartVectorsJob(const BucketId& id, BucketWriter* bw, VectorsJobSeed seed) {
  auto job = std::make_unique<CompactionJob>();
  job->dir = bw->dir();
  job->namer.set_external_dir(bw->namer()->external_dir());
  CompactionJob* j = job.get();
  auto run = [this, j, id, seed = std::move(seed)]() {
    auto compact = [&]() -> Status {
      UniversalCompactionPicker picker(core_.max_size_amp_percent, core_.size_ratio,
                                       core_.sorted_run_trigger, core_.num_levels - 1);
      auto picked = PickVectorsCompaction(seed.files, picker, seed.vectors);
      if (!picked) return Status::OK();
      TRIB_ASSIGN_OR_RETURN(auto vectors,
                            compact::BucketDeletionVectors::Load(path_, j->dir, seed.vectors));
      ProcessSlots().acquire();
      auto r = RunCompaction(path_, *schema_, j->dir, picked->unit, picked->highest,
                             core_.target_file_size, core_.format, &j->namer, &vectors,
                             options_.spill_dirs);
      ProcessSlots().release();
      TRIB_RETURN_NOT_OK(r.status());
      if (vectors.modified()) {
        auto entry =
            vectors.Write(compact::IndexFileDir(path_, datafile::NewFileDir(j->namer, j->dir),
                                                index_in_data_dir_),
                          id.first, id.second, bitmap64_);
        if (entry.ok()) RecordIndexPath(j->namer, &*entry);
        if (!entry.ok()) {
          for (const auto& f : r->after) {
            if (!compact::IsUpgraded(*r, f)) datafile::RemoveDataFile(j->dir, f);
          }
          return entry.status();
        }
        j->vectors = std::move(*entry);
      }
      j->base = std::move(picked->base);
      j->result = std::move(*r);
      return Status::OK();
    };
    if (!j->cancelled.load()) j->status = compact();
    j->Finish();
  };
  Enqueue(id, std::move(job), std::move(run));
}

void FileStoreWriter::StartCompactionJob(const BucketId& id, BucketWriter* bw, CompactUnit unit,
                                         int32_t highest) {
  auto job = std::make_unique<CompactionJob>();
  job->dir = bw->dir();
  job->namer.set_external_dir(bw->namer()->external_dir());
  CompactionJob* j = job.get();
  auto run = [this, j, unit = std::move(unit), highest]() {
    if (j->cancelled.load()) {
      j->Finish();
      return;
    }
    ProcessSlots().acquire();
    auto r = RunCompaction(path_, *schema_, j->dir, unit, highest, core_.target_file_size,
                           core_.format, &j->namer, nullptr, options_.spill_dirs);
    ProcessSlots().release();
    if (r.ok()) {
      j->result = std::move(*r);
    } else {
      j->status = r.status();
    }
    j->Finish();
  };
  Enqueue(id, std::move(job), std::move(run));
}

void FileStoreWriter::Enqueue(const BucketId& id, std::unique_ptr<CompactionJob> job,
                              std::function<void()> run) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.push_back(std::move(run));
    if (!compactor_.joinable()) {
      compactor_ = std::thread([this]() {
        while (true) {
          std::function<void()> task;
          {
            std::unique_lock<std::mutex> lock(queue_mu_);
            queue_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, nothing left
            task = std::move(queue_.front());
            queue_.pop_front();
          }
          task();
        }
      });
    }
  }
  queue_cv_.notify_one();
  jobs_[id] = std::move(job);
}

}  // namespace tributary::write
