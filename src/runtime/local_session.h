// A session that runs the whole graph in this process, on this process's devices.
// Each (feeds, fetches, targets) signature is pruned, placed and prepared into an
// executor once; later runs of the same signature only bind feeds and run.
#ifndef TENSORWEAVE_SRC_RUNTIME_LOCAL_SESSION_H_
#define TENSORWEAVE_SRC_RUNTIME_LOCAL_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "graph/graph.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/function_runtime.h"
#include "runtime/session.h"
#include "runtime/subgraph.h"

namespace tw {

class StepStatsCollector;

class LocalSession : public SessionInterface {
 public:
  // Devices are created for job "localhost", task 0.
  explicit LocalSession(const SessionOptions& options);
  ~LocalSession() override;

  absl::Status Extend(const GraphDef& graph) override;
  using SessionInterface::Run;
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   CancellationManager* cancellation, const RunOptions& options,
                   RunMetadata* metadata) override;
  std::vector<std::string> ListDevices() const override;
  absl::Status Close() override;

  // Number of prepared signatures (for tests of the cache).
  int num_prepared() const;

 private:
  struct Prepared;
  absl::StatusOr<Prepared*> GetOrPrepare(const RunSignature& signature);
  absl::StatusOr<std::unique_ptr<Prepared>> Prepare(const RunSignature& signature)
      ABSL_SHARED_LOCKS_REQUIRED(graph_mu_);
  absl::StatusOr<std::shared_ptr<OpKernel>> KernelFor(const Node& node);
  // `stats` (may be null): a traced step's record.
  absl::Status RunPartitions(const Prepared& prepared, CallFrame* frame, CancellationManager* cancellation,
                             StepStatsCollector* stats);

  const SessionOptions options_;
  // Declared before the devices so that it outlives them: iterators in a device's
  // ResourceMgr may still be running functions while they shut down.
  std::unique_ptr<LocalFunctionRuntime> functions_;
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<ThreadPool> inter_op_pool_;
  std::atomic<int64_t> next_step_id_{1};
  std::atomic<bool> closed_{false};
  // Close cancels the steps still running (a while loop that never ends, a blocked dequeue).
  CancellationManager close_cancellation_;

  mutable absl::Mutex graph_mu_;
  FlowGraph graph_ ABSL_GUARDED_BY(graph_mu_);

  mutable absl::Mutex cache_mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<Prepared>> prepared_ ABSL_GUARDED_BY(cache_mu_);
  // Kernels of stateful nodes (random generators) are shared by every signature.
  absl::flat_hash_map<std::string, std::shared_ptr<OpKernel>> stateful_kernels_
      ABSL_GUARDED_BY(cache_mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_LOCAL_SESSION_H_
