// DeadlineTimer: runs callbacks at given times on one thread of its own (started on the
// first Schedule), so that many pending deadlines (one per running step) cost a map entry
// each, not a sleeping thread each. Callbacks run one at a time and must be short.
#ifndef TENSORWEAVE_SRC_CORE_DEADLINE_TIMER_H_
#define TENSORWEAVE_SRC_CORE_DEADLINE_TIMER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tw {

class DeadlineTimer {
 public:
  DeadlineTimer() = default;
  // Drops the callbacks still pending (they never run) and joins the thread.
  ~DeadlineTimer();
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  // Calls `fn` at `when` (at once if that has passed) unless Cancel(id) comes first.
  int64_t Schedule(absl::Time when, std::function<void()> fn);
  // True when the callback was pending and will not run; false when it ran or is running.
  bool Cancel(int64_t id);

 private:
  void Loop();

  absl::Mutex mu_;
  // (time, id) -> callback: the earliest first; ids break ties.
  std::map<std::pair<absl::Time, int64_t>, std::function<void()>> pending_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, absl::Time> when_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::CondVar wake_;
  std::thread thread_;  // Started by the first Schedule, under mu_.
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_DEADLINE_TIMER_H_
