// The worker side of a task: runs registered graph partitions on this task's devices,
// step after step, and serves the tensors they send to other tasks. Variables live in
// the devices' ResourceMgrs and so outlive sessions and graphs.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_WORKER_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_WORKER_H_

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "distributed/worker_interface.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/function_runtime.h"
#include "tensorweave/resource_limits.h"

namespace tw {

class StepRendezvous;

class Worker : public WorkerInterface {
 public:
  // `cache` reaches the other tasks (for tensors this task receives from them). Graphs
  // and feeds are held to `limits`; intra/inter_op_threads size the kernels' thread pools
  // (<= 0: one thread per core).
  // `file_access_root` (canonical, core/file_access.h) confines the kernels' file ops; empty: none.
  Worker(const std::string& job, int task, WorkerCache* cache, const ResourceLimits& limits = {},
         int intra_op_threads = 0, int inter_op_threads = 0, std::string file_access_root = "");
  ~Worker() override;

  absl::Status GetStatus(const GetStatusRequest& req, GetStatusResponse* resp) override;
  absl::Status RegisterGraph(const RegisterGraphRequest& req, RegisterGraphResponse* resp) override;
  absl::Status DeregisterGraph(const DeregisterGraphRequest& req, DeregisterGraphResponse* resp) override;
  void RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp,
                     std::function<void(const absl::Status&)> done) override;
  // As above; when `caller` is cancelled (the caller went away or its deadline passed: the
  // RPC was cancelled) the step is aborted on this task, so that an orphaned step neither
  // stays nor later takes what others enqueue. `caller` must outlive `done`.
  void RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp, CancellationManager* caller,
                     std::function<void(const absl::Status&)> done);
  void RecvTensorsAsync(const RecvTensorsRequest& req, CancellationManager* cancellation,
                        RecvTensorsArrived arrived, std::function<void(const absl::Status&)> done) override;
  absl::Status CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse* resp) override;
  absl::Status CleanupAll(const CleanupAllRequest& req, CleanupAllResponse* resp) override;

  // Hands a tensor another task sent to this task in step `step_id` (the master got it in
  // that task's RunGraph response) to the step's receiver, which expects it by
  // master_delivered_key.
  void Deliver(int64_t step_id, const std::string& key, const Tensor& value);

  const std::string& task_name() const { return task_name_; }  // "/job:x/replica:0/task:n"
  uint64_t incarnation() const { return incarnation_; }

 private:
  struct Registered;
  struct RunningGraph;
  // Starts pulling what the partition receives from other tasks, one RecvTensors
  // exchange per task, into the step's local table, adding their payload to `pulled_bytes`.
  void StartPulling(const Registered& graph, const RunGraphRequest& req, const std::shared_ptr<StepRendezvous>& step,
                    const std::shared_ptr<std::atomic<int64_t>>& pulled_bytes);
  // Checks a RunGraph request and gathers what its run needs.
  absl::StatusOr<std::unique_ptr<RunningGraph>> StartRunning(const RunGraphRequest& req);
  // The step's rendezvous (created on first use), or null if the step already finished.
  // `for_graph`: a RunGraph of the step starts (ForgetIfDone waits for it to finish).
  std::shared_ptr<StepRendezvous> StepFor(int64_t step_id, bool for_graph);
  void ForgetIfDone(int64_t step_id, bool graph_finished);
  // Removes the steps idle for longer than limits_.idle_step_timeout_ms and returns them,
  // to be aborted once mu_ is released (aborting runs receivers' callbacks, which lock it).
  std::vector<std::shared_ptr<StepRendezvous>> TakeIdleSteps() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string job_;
  const int task_;
  const std::string task_name_;
  const uint64_t incarnation_;
  WorkerCache* cache_;
  const ResourceLimits limits_;
  const std::string file_access_root_;
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<ThreadPool> inter_op_pool_;

  absl::Mutex mu_;
  int64_t next_graph_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<Registered>> graphs_ ABSL_GUARDED_BY(mu_);
  // Per session and device, the function library its graphs brought. Kept while the task
  // lives: datasets made from its functions live on in iterator resources of the task's
  // resource manager after the session's graphs are gone.
  absl::flat_hash_map<std::string, std::shared_ptr<LocalFunctionRuntime>> functions_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, std::shared_ptr<StepRendezvous>> steps_ ABSL_GUARDED_BY(mu_);
  absl::Time next_idle_sweep_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  // Recently finished steps: a late RecvTensor for one fails at once instead of waiting
  // for a tensor that will never be sent.
  absl::flat_hash_set<int64_t> finished_ ABSL_GUARDED_BY(mu_);
  std::deque<int64_t> finished_order_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_WORKER_H_
