#include "sql/session/job_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <random>

#include "common/clock.h"
#include "common/json.h"
#include "io/file_system.h"

namespace tributary::sql {

namespace {

int64_t NowMillis() { return WallClockMillis(); }

// <sink>/.job-<name>.lock, the name's characters other than letters, digits, '-' and '_'
// replaced (as in the job's consumer ids).
std::string LockPath(const std::string& sink_path, const std::string& job) {
  std::string name;
  for (char c : job) {
    name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  }
  return sink_path + "/.job-" + name + ".lock";
}

std::string Refusal(const std::string& job, const std::string& held_by) {
  return "job '" + job + "' is already running in another process (" + held_by +
         "); stop it first, or give this job another name (SET 'pipeline.name' = '...')";
}

class FileLock : public JobLock {
 public:
  explicit FileLock(int fd) : fd_(fd) {}
  ~FileLock() override {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// A lease object: {"job": ..., "holder": "<host>:<pid>:<random>", "expires-millis": ...}.
class Lease : public JobLock {
 public:
  Lease(std::string path, std::string job, std::string holder, int64_t lease_ms)
      : path_(std::move(path)),
        job_(std::move(job)),
        holder_(std::move(holder)),
        lease_ms_(lease_ms) {}

  ~Lease() override {
    // Released as a lease that has run out (written only while still this one's), so the next
    // job starts at once; a failure leaves it to run out.
    if (tag_) (void)io::LocalFs().WriteIfTag(path_, Body(0), tag_);
  }

  std::string Body(int64_t expires) const {
    Json j = Json::object();
    j["job"] = job_;
    j["holder"] = holder_;
    j["expires-millis"] = expires;
    return j.dump();
  }

  // Takes the lease: absent, or run out.
  Status Take() {
    const int64_t now = NowMillis();
    TRIB_ASSIGN_OR_RETURN(std::optional<std::string> tag,
                          io::LocalFs().WriteIfTag(path_, Body(now + lease_ms_), std::nullopt));
    if (!tag) {
      auto held = io::LocalFs().ReadWithTag(path_);
      if (!held.ok() && !held.status().IsNotFound()) return held.status();
      std::optional<std::string> expected;
      if (held.ok()) {
        int64_t expires = 0;
        std::string holder = "unknown";
        if (auto j = ParseJson(held->first, path_); j.ok() && j->is_object()) {
          if (j->contains("expires-millis") && (*j)["expires-millis"].is_number_integer()) {
            expires = (*j)["expires-millis"].get<int64_t>();
          }
          if (j->contains("holder") && (*j)["holder"].is_string()) {
            holder = (*j)["holder"].get<std::string>();
          }
        }
        if (expires > now) {
          char left[32];
          std::snprintf(left, sizeof(left), "%.1f", (expires - now) / 1000.0);
          return Status::Invalid(Refusal(job_, holder + " holds its lease " + path_ +
                                                   ", which runs out in " + left +
                                                   " s if that process is gone"));
        }
        expected = held->second;
      }
      // Run out (or removed meanwhile): taken over only if nobody else was faster.
      TRIB_ASSIGN_OR_RETURN(tag, io::LocalFs().WriteIfTag(path_, Body(now + lease_ms_), expected));
      if (!tag) return Status::Invalid(Refusal(job_, "it took over the lease " + path_));
    }
    tag_ = std::move(tag);
    renewed_ = std::chrono::steady_clock::now();
    return Status::OK();
  }

  Status Keep() override {
    const auto now = std::chrono::steady_clock::now();
    if (now - renewed_ < std::chrono::milliseconds(lease_ms_ / 3)) return Status::OK();
    // Counted from before the request: the lease runs out no later than the holder thinks.
    TRIB_ASSIGN_OR_RETURN(std::optional<std::string> tag,
                          io::LocalFs().WriteIfTag(path_, Body(NowMillis() + lease_ms_), tag_));
    if (!tag) {
      tag_.reset();
      return Status::Invalid("job '" + job_ + "' lost its lease " + path_ +
                             " to another process (it ran out before it was renewed): this "
                             "process stops without committing again");
    }
    tag_ = std::move(tag);
    renewed_ = now;
    return Status::OK();
  }

 private:
  std::string path_, job_, holder_;
  int64_t lease_ms_;
  std::optional<std::string> tag_;
  std::chrono::steady_clock::time_point renewed_;
};

}  // namespace

int64_t JobLock::LeaseMillis(int64_t interval_ms) {
  return std::max<int64_t>(10000, 3 * interval_ms);
}

Result<std::unique_ptr<JobLock>> JobLock::Acquire(const std::string& sink_path,
                                                  const std::string& job, int64_t interval_ms) {
  const std::string file = LockPath(sink_path, job);
  if (io::IsObjectStoreUri(sink_path)) {
    char host[256] = "host";
    (void)::gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    std::random_device rd;
    const std::string holder = std::string(host) + ":" + std::to_string(::getpid()) + ":" +
                               std::to_string((static_cast<uint64_t>(rd()) << 32) | rd());
    auto lease = std::make_unique<Lease>(file, job, holder, LeaseMillis(interval_ms));
    TRIB_RETURN_NOT_OK(lease->Take());
    return std::unique_ptr<JobLock>(std::move(lease));
  }
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open " + file + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status::Invalid(Refusal(job, "it holds " + file));
  }
  return std::unique_ptr<JobLock>(new FileLock(fd));
}

}  // namespace tributary::sql
