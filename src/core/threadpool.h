// A named pool of threads over Eigen's non-blocking pool, with a cost-aware ParallelFor
// for splitting one kernel's work (intra-op) and Schedule for independent nodes (inter-op).
#ifndef TENSORWEAVE_SRC_CORE_THREADPOOL_H_
#define TENSORWEAVE_SRC_CORE_THREADPOOL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace Eigen {
class ThreadPoolInterface;
}

namespace tw {

class ThreadPool {
 public:
  // num_threads <= 0 means one per hardware thread.
  ThreadPool(std::string name, int num_threads);
  ~ThreadPool();  // Waits for scheduled work to finish.
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn);
  int NumThreads() const { return num_threads_; }
  // True when called from one of this pool's threads.
  bool InPool() const;

  // Calls fn(begin, end) over [0, n) in blocks, on up to NumThreads() threads (the caller
  // is one of them) when the total cost (n * cost_per_unit, roughly in nanoseconds) is
  // worth it; returns when all are done.
  // Called from inside the pool it runs inline, so nesting never deadlocks.
  void ParallelFor(int64_t n, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn);

  Eigen::ThreadPoolInterface* eigen() { return pool_.get(); }

 private:
  std::string name_;
  int num_threads_;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_THREADPOOL_H_
