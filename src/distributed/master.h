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
#include "core/cancellation.h"
#include "core/deadline_timer.h"
#include "core/threadpool.h"
#include "distributed/worker.h"
#include "distributed/worker_interface.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/proto/master.pb.h"
#include "core/proto_namespace.h"

namespace tw {

class MasterSession;
using StepDone = std::function<void(const absl::Status&)>;

class Master {
 public:
  // The master of task (job, task) of `cluster`, reaching every task through `workers`;
  // `local_worker` is that task's own worker. Graphs, feeds and concurrent steps are held
  // to `limits`.
  // Sessions idle for longer than `session_gc_seconds` are closed.
  Master(ClusterSpec cluster, std::string job, int task, WorkerCache* workers, Worker* local_worker,
         const ResourceLimits& limits = {}, int64_t session_gc_seconds = 24 * 60 * 60);
  ~Master();

  // `cancelled` (may be empty) says whether the client gave up (cancelled, deadline): a
  // cancelled CreateSession keeps no session.
  absl::Status CreateSession(const CreateSessionRequest& req, CreateSessionResponse* resp,
                             const std::function<bool()>& cancelled = {});
  absl::Status ExtendSession(const ExtendSessionRequest& req, ExtendSessionResponse* resp);
  // Runs a step without blocking the caller: `done` runs once, on whichever thread ends
  // the step (possibly this one); req and resp must live until then. When `client_cancel`
  // (may be null) fires — the client went away — the step is aborted on every task.
  void RunStepAsync(const RunStepRequest* req, RunStepResponse* resp, CancellationManager* client_cancel,
                    StepDone done);
  // The same, waiting for the step (for callers that may block).
  absl::Status RunStep(const RunStepRequest& req, RunStepResponse* resp);
  absl::Status CloseSession(const CloseSessionRequest& req, CloseSessionResponse* resp);
  absl::Status ListDevices(const ListDevicesRequest& req, ListDevicesResponse* resp);
  absl::Status Reset(const ResetRequest& req, ResetResponse* resp);
  int64_t num_sessions();

 private:
  absl::StatusOr<std::shared_ptr<MasterSession>> Find(const std::string& handle);
  // Closes the sessions idle for longer than session_gc_seconds_ (at most ten
  // sweeps per timeout, done when a call looks sessions up).
  void CloseIdleSessions();

  const ClusterSpec cluster_;
  const std::string job_;
  const int task_;
  WorkerCache* workers_;
  Worker* local_worker_;
  const ResourceLimits limits_;
  const int64_t session_gc_seconds_;
  std::atomic<int64_t> running_steps_{0};
  // Runs what may block: preparing a new signature, aborting and cleaning up steps.
  ThreadPool rpc_pool_{"master_rpc", 16};
  // Ends steps that run past their session's step_timeout_ms (declared after the pool its
  // callbacks use, so it stops first).
  DeadlineTimer step_timer_;
  absl::Mutex mu_;
  int64_t next_session_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<MasterSession>> sessions_ ABSL_GUARDED_BY(mu_);
  absl::Time next_session_sweep_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_MASTER_H_
