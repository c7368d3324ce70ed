// Watches the steps a master is running for clients that went away (the RunStep call was
// cancelled: the client process died or gave up) and aborts those steps, so a step that
// would run long, or wait forever, does not keep its state on the workers.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_STEP_WATCHER_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_STEP_WATCHER_H_

#include <cstdint>
#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tw {

class StepWatcher {
 public:
  explicit StepWatcher(absl::Duration period = absl::Milliseconds(100));
  ~StepWatcher();

  using Id = int64_t;
  // Polls `client_gone` every period and calls `abort` once (on the watcher's thread) when
  // it returns true, until Unwatch(id).
  Id Watch(std::function<bool()> client_gone, std::function<void()> abort);
  // Stops watching; when it returns, `abort` is not running and will not run.
  void Unwatch(Id id);

 private:
  struct Entry {
    std::function<bool()> client_gone;
    std::function<void()> abort;
    bool aborting = false;
  };
  void Loop();

  const absl::Duration period_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  Id next_ ABSL_GUARDED_BY(mu_) = 1;
  absl::node_hash_map<Id, Entry> entries_ ABSL_GUARDED_BY(mu_);  // Entries stay put.
  std::thread thread_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_STEP_WATCHER_H_
