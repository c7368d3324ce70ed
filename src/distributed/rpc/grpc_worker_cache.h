// WorkerInterface over gRPC, and the cache of clients for every task of a cluster.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_WORKER_CACHE_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_WORKER_CACHE_H_

#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "distributed/rpc/grpc_security.h"
#include "distributed/worker_interface.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/resource_limits.h"

namespace tw {

class GrpcWorkerCache : public WorkerCache {
 public:
  // Every call carries `timeout` as its deadline; a task that does not answer in time
  // gives DeadlineExceeded, one that is down gives Unavailable, both naming the task. A
  // tensor received of more than `max_tensor_bytes` is refused (ResourceExhausted).
  GrpcWorkerCache(ClusterSpec cluster, absl::Duration timeout,
                  int64_t max_tensor_bytes = ResourceLimits{}.max_tensor_bytes);
  ~GrpcWorkerCache() override;
  absl::StatusOr<WorkerInterface*> GetWorker(const std::string& job, int task) override;
  // Calls to (job, task) go straight to `worker` in this process, skipping gRPC (the
  // master's own task). Not owned.
  void SetLocalWorker(const std::string& job, int task, WorkerInterface* worker);
  // What channels to the other tasks present (TLS, token); for tasks not reached yet.
  void SetClientCredentials(ClientCredentials credentials);

 private:
  const ClusterSpec cluster_;
  const absl::Duration timeout_;
  const int64_t max_tensor_bytes_;
  absl::Mutex mu_;
  std::map<std::pair<std::string, int>, std::unique_ptr<WorkerInterface>> workers_ ABSL_GUARDED_BY(mu_);
  std::pair<std::string, int> local_key_ ABSL_GUARDED_BY(mu_);
  WorkerInterface* local_worker_ ABSL_GUARDED_BY(mu_) = nullptr;
  ClientCredentials credentials_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_GRPC_WORKER_CACHE_H_
