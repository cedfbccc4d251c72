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
      datafile::RemoveDataFile(job->dir, f);
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

void FileStoreWriter::StartCompactionJob(const BucketId& id, BucketWriter* bw, CompactUnit unit,
                                         int32_t highest) {
  auto job = std::make_unique<CompactionJob>();
  job->dir = bw->dir();
  CompactionJob* j = job.get();
  auto run = [this, j, unit = std::move(unit), highest]() {
    if (j->cancelled.load()) {
      j->Finish();
      return;
    }
    // One background compaction at a time per writer (its one compaction thread), as Paimon's
    // writers each run one, and at most one per core in the process: more would not finish
    // sooner on a busy machine, only hold their inputs and outputs in memory at once (W1
    // ingest's peak RSS falls by a tenth against two at once, at the same speed).
    static std::counting_semaphore<> process_slots(DefaultParallelism());
    process_slots.acquire();
    auto r = RunCompaction(path_, *schema_, j->dir, unit, highest, core_.target_file_size,
                           core_.format, &j->namer);
    process_slots.release();
    if (r.ok()) {
      j->result = std::move(*r);
    } else {
      j->status = r.status();
    }
    j->Finish();
  };
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
