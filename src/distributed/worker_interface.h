// What a master (or another worker) can ask of a task, independent of the transport.
// Calls block until done or until the deadline given to the implementation passes,
// except the ...Async ones, which never block.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_WORKER_INTERFACE_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_WORKER_INTERFACE_H_

#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "core/cancellation.h"
#include "tensorweave/proto/worker.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensor.h"

namespace tw {

// One tensor of a RecvTensors exchange: its index in the request's rendezvous_key.
using RecvTensorsArrived = std::function<void(int key_index, const Tensor&)>;

class WorkerInterface {
 public:
  virtual ~WorkerInterface() = default;
  virtual absl::Status GetStatus(const GetStatusRequest& req, GetStatusResponse* resp) = 0;
  virtual absl::Status RegisterGraph(const RegisterGraphRequest& req, RegisterGraphResponse* resp) = 0;
  virtual absl::Status DeregisterGraph(const DeregisterGraphRequest& req, DeregisterGraphResponse* resp) = 0;
  // Runs a registered partition for one step without blocking the caller: `done` runs
  // once, on whichever thread finishes the step's work (possibly this one, before the
  // call returns); req and resp must live until then.
  virtual void RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp,
                             std::function<void(const absl::Status&)> done) = 0;
  // The same, waiting for it.
  absl::Status RunGraph(const RunGraphRequest& req, RunGraphResponse* resp);
  // Receives the tensors sent under req.rendezvous_key in step req.step_id, in one
  // exchange: `arrived` runs for each as it is sent (possibly on this thread; one at a
  // time), then `done` once: OK after all arrived, or an error: the step finished or
  // failed, the deadline passed, or `cancellation` (may be null) fired.
  virtual void RecvTensorsAsync(const RecvTensorsRequest& req, CancellationManager* cancellation,
                                RecvTensorsArrived arrived, std::function<void(const absl::Status&)> done) = 0;
  virtual absl::Status CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse* resp) = 0;
  virtual absl::Status CleanupAll(const CleanupAllRequest& req, CleanupAllResponse* resp) = 0;
};

// Gives the WorkerInterface of a task of the cluster ("/job:ps/replica:0/task:0"). Owned
// by the cache; valid as long as the cache.
class WorkerCache {
 public:
  virtual ~WorkerCache() = default;
  virtual absl::StatusOr<WorkerInterface*> GetWorker(const std::string& job, int task) = 0;
};

inline absl::Status WorkerInterface::RunGraph(const RunGraphRequest& req, RunGraphResponse* resp) {
  absl::Notification finished;
  absl::Status status;
  RunGraphAsync(&req, resp, [&](const absl::Status& s) {
    status = s;
    finished.Notify();
  });
  finished.WaitForNotification();
  return status;
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_WORKER_INTERFACE_H_
