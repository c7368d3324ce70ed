#include "core/threadpool.h"

#include <algorithm>
#include <thread>

#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/ThreadPool>

#include "absl/synchronization/blocking_counter.h"
#include "core/denormal.h"

namespace tw {
namespace {

// Eigen's thread environment, with denormals flushed in every thread (core/denormal.h).
struct FlushDenormalEnvironment : Eigen::StlThreadEnvironment {
  EnvThread* CreateThread(std::function<void()> f) {
    return new EnvThread([f = std::move(f)] {
      FlushDenormalsInThisThread();
      f();
    });
  }
};

}  // namespace

ThreadPool::ThreadPool(std::string name, int num_threads)
    : name_(std::move(name)),
      num_threads_(num_threads > 0 ? num_threads
                                   : std::max(1u, std::thread::hardware_concurrency())),
      pool_(std::make_unique<Eigen::ThreadPoolTempl<FlushDenormalEnvironment>>(num_threads_)) {}

ThreadPool::~ThreadPool() = default;

void ThreadPool::Schedule(std::function<void()> fn) { pool_->Schedule(std::move(fn)); }

bool ThreadPool::InPool() const { return pool_->CurrentThreadId() >= 0; }

void ThreadPool::ParallelFor(int64_t n, int64_t cost_per_unit,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  // Below ~50 µs of work a thread hand-off costs more than it saves.
  constexpr int64_t kMinCostPerBlock = 50000;
  const int64_t total = n * std::max<int64_t>(cost_per_unit, 1);
  // At most one block per pool thread, the caller doing one of them: as many threads
  // work on the op as the pool has (1: the caller alone, as PyTorch's set_num_threads(1)).
  int64_t blocks = std::min<int64_t>({n, total / kMinCostPerBlock, num_threads_});
  if (blocks <= 1 || InPool()) {
    fn(0, n);
    return;
  }
  const int64_t block = (n + blocks - 1) / blocks;
  blocks = (n + block - 1) / block;
  absl::BlockingCounter counter(static_cast<int>(blocks - 1));
  for (int64_t b = 1; b < blocks; ++b) {
    const int64_t begin = b * block, end = std::min(n, begin + block);
    pool_->Schedule([&fn, &counter, begin, end] {
      fn(begin, end);
      counter.DecrementCount();
    });
  }
  fn(0, std::min(n, block));  // The caller does the first block itself.
  counter.Wait();
}

}  // namespace tw
