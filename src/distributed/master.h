// The master side of a task: holds client sessions' graphs and runs each step over the
// cluster — prune, place on the cluster's devices, partition per device, register each
// partition with its task once per signature, run all partitions under one step id,
// gather the fetches.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_MASTER_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_MASTER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/threadpool.h"
#include "distributed/step_watcher.h"
#include "distributed/worker_interface.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/proto/master.pb.h"

namespace tw {

class MasterSession;

class Master {
 public:
  // The master of task (job, task) of `cluster`, reaching every task through `workers`.
  // Graphs, feeds and concurrent steps are held to `limits`.
  Master(ClusterSpec cluster, std::string job, int task, WorkerCache* workers, const ResourceLimits& limits = {});
  ~Master();

  absl::Status CreateSession(const CreateSessionRequest& req, CreateSessionResponse* resp);
  absl::Status ExtendSession(const ExtendSessionRequest& req, ExtendSessionResponse* resp);
  // `client_gone` (optional) tells whether the client went away; the step is then aborted.
  absl::Status RunStep(const RunStepRequest& req, RunStepResponse* resp,
                       const std::function<bool()>& client_gone = nullptr);
  absl::Status CloseSession(const CloseSessionRequest& req, CloseSessionResponse* resp);
  absl::Status ListDevices(const ListDevicesRequest& req, ListDevicesResponse* resp);
  absl::Status Reset(const ResetRequest& req, ResetResponse* resp);

 private:
  absl::StatusOr<std::shared_ptr<MasterSession>> Find(const std::string& handle);

  const ClusterSpec cluster_;
  const std::string job_;
  const int task_;
  WorkerCache* workers_;
  const ResourceLimits limits_;
  std::atomic<int64_t> running_steps_{0};
  ThreadPool rpc_pool_{"master_rpc", 16};  // Runs the RunGraph calls of a step in parallel.
  StepWatcher watcher_;
  absl::Mutex mu_;
  int64_t next_session_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<MasterSession>> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_MASTER_H_
