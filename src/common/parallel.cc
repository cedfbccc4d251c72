#include "common/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace tributary {
namespace {

// The process's worker threads, started on first use and kept for its lifetime, so what they
// cache per thread (compression contexts, malloc arenas) is reused across calls.
class WorkerPool {
 public:
  static WorkerPool& Instance() {
    // Never destroyed: workers may still wait for tasks while the process exits.
    // Sized by the process's parallelism, never a ScopedParallelism of the first caller.
    static WorkerPool* pool = new WorkerPool(ProcessParallelism() - 1);
    return *pool;
  }
  size_t size() const { return threads_; }
  void Submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  explicit WorkerPool(int threads) : threads_(static_cast<size_t>(std::max(0, threads))) {
    for (size_t i = 0; i < threads_; i++) std::thread([this] { Run(); }).detach();
  }
  void Run() {
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  size_t threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
};

}  // namespace

namespace {
thread_local int t_parallelism = 0;  // 0: no ScopedParallelism on this thread
}  // namespace

ScopedParallelism::ScopedParallelism(int threads) : saved_(t_parallelism) {
  t_parallelism = std::max(1, threads);
}
ScopedParallelism::~ScopedParallelism() { t_parallelism = saved_; }

int ProcessParallelism() {
  static const int n = [] {
    if (const char* env = std::getenv("TRIBUTARY_THREADS")) {
      int v = std::atoi(env);
      return std::max(1, v);
    }
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return n;
}

int DefaultParallelism() {
  if (t_parallelism > 0) return t_parallelism;
  return ProcessParallelism();
}

Status ParallelFor(size_t n, int threads, const std::function<Status(size_t)>& fn) {
  if (n == 0) return Status::OK();
  WorkerPool& pool = WorkerPool::Instance();
  size_t helpers = std::min({n - 1, static_cast<size_t>(std::max(threads, 1)) - 1, pool.size()});
  if (helpers == 0) {
    for (size_t i = 0; i < n; i++) TRIB_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  // Pieces are claimed by index, by the caller and by pool workers alike; a worker that starts
  // after every piece is claimed returns without touching `fn`. The caller waits only for
  // claimed pieces to finish, so nested calls cannot deadlock on busy workers.
  struct State {
    explicit State(size_t n) : results(n) {}
    std::vector<Status> results;
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex mu;
    std::condition_variable cv;
    size_t finished = 0;
  };
  auto state = std::make_shared<State>(n);
  const std::function<Status(size_t)>* f = &fn;
  auto work = [state, f, n]() {
    while (true) {
      size_t i = state->next.fetch_add(1);
      if (i >= n) return;
      if (!state->failed.load(std::memory_order_relaxed)) {
        // An allocation that fails on a worker would end the process; it fails the piece.
        try {
          state->results[i] = (*f)(i);
        } catch (const std::bad_alloc&) {
          state->results[i] = Status::Invalid(
              "out of memory: an allocation failed while reading or writing in parallel");
        }
        if (!state->results[i].ok()) state->failed.store(true);
      }
      std::lock_guard<std::mutex> lock(state->mu);
      if (++state->finished == n) state->cv.notify_all();
    }
  };
  for (size_t t = 0; t < helpers; t++) pool.Submit(work);
  work();
  {
    std::unique_lock<std::mutex> lock(state->mu);
    state->cv.wait(lock, [&] { return state->finished == n; });
  }
  for (auto& st : state->results) {
    if (!st.ok()) return st;
  }
  return Status::OK();
}

}  // namespace tributary
