// What a traced step records (RunOptions.trace_level other than NO_TRACE, as in TF): one
// NodeExecStats per node run, gathered by device from every executor of the step, into
// RunMetadata.step_stats. A step that is not traced has no collector (Executor::Args::stats
// is null) and pays one branch per node.
#ifndef TENSORWEAVE_SRC_RUNTIME_STEP_STATS_COLLECTOR_H_
#define TENSORWEAVE_SRC_RUNTIME_STEP_STATS_COLLECTOR_H_

#include <cstdint>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "tensorweave/proto/config.pb.h"
#include "tensorweave/proto/step_stats.pb.h"
#include "core/proto_namespace.h"

namespace tw {

// Microseconds since the epoch (NodeExecStats' clock).
int64_t NowMicros();
// A small number per thread (NodeExecStats.thread_id), stable for the thread's life.
uint32_t CurrentThreadId();
// True for the trace levels that fill step_stats (all but NO_TRACE).
bool WantsStepStats(const RunOptions& options);

class StepStatsCollector {
 public:
  // Thread-safe. `device` is the fully qualified name of the device the node ran on.
  void Save(const std::string& device, NodeExecStats stats);
  // Moves what was saved into `out`: one DeviceStepStats per device, in first-seen order,
  // each node once, in the order nodes finished.
  void MoveTo(StepStats* out);

 private:
  absl::Mutex mu_;
  StepStats stats_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, DeviceStepStats*> by_device_ ABSL_GUARDED_BY(mu_);
};

// Appends `from`'s devices to `into`, joining the node stats of a device both name.
void MergeStepStats(StepStats from, StepStats* into);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_STEP_STATS_COLLECTOR_H_
