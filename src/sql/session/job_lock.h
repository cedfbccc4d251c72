// One process runs a streaming job at a time (session/stream_job.cc). On a local warehouse the
// job holds <sink>/.job-<name>.lock with flock (the kernel lets go when the process dies). On
// object storage, which has no locks, the same object is a lease: it names its holder and when
// it runs out, is taken with a conditional PUT (If-None-Match: *, or If-Match of an expired
// lease's entity tag) and renewed the same way while the job runs; a process killed leaves it to
// run out. docs/streaming.md.
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tributary/result.h"

namespace tributary::sql {

class JobLock {
 public:
  // How long a lease on object storage lasts: 10 s, or three commit intervals if longer.
  static int64_t LeaseMillis(int64_t interval_ms);
  // Takes job `job`'s lock on the sink at `sink_path`; an error saying who holds it when another
  // process does. `interval_ms`: the job's commit interval.
  static Result<std::unique_ptr<JobLock>> Acquire(const std::string& sink_path,
                                                  const std::string& job, int64_t interval_ms);
  virtual ~JobLock() = default;
  // Called often while the job runs (every batch, every wait): renews a lease once a third of
  // it has passed. An error when the lease was lost (another process took it over after it ran
  // out): the job must stop without committing again.
  virtual Status Keep() { return Status::OK(); }
};

}  // namespace tributary::sql
