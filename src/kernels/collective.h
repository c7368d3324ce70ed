// What collective kernels (CollectiveReduce, CollectiveBcastSend/Recv) ask of the task they
// run on: a CollectiveRuntime that finds the group and moves the data between its members.
// The kernels know only this interface; a server registers its implementation (over gRPC:
// src/distributed/rpc/collective_rpc.h) under its task name while it serves, and a kernel
// finds it from its device name.
#ifndef TENSORWEAVE_SRC_KERNELS_COLLECTIVE_H_
#define TENSORWEAVE_SRC_KERNELS_COLLECTIVE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "core/cancellation.h"
#include "tensorweave/tensor.h"

namespace tw {

enum class CollectiveKind { kReduce, kBcastSend, kBcastRecv };

struct CollectiveParams {
  std::string node_name;  // For error messages.
  CollectiveKind kind = CollectiveKind::kReduce;
  int group_size = 0;
  int64_t group_key = 0;
  int64_t instance_key = 0;
  std::string merge_op = "Add";  // Add, Mul, Max, Min (reduce only)
  double timeout_seconds = 0;    // <= 0: the server's RPC deadline
};

class CollectiveRuntime {
 public:
  virtual ~CollectiveRuntime() = default;
  // Runs one collective on `data` in place: kReduce leaves the group's reduction in it,
  // kBcastSend sends it, kBcastRecv fills it with the sender's value. `done` runs once, on
  // any thread; `data` is not touched after it. A member that does not take part within
  // the deadline fails the call naming the task.
  virtual void Run(const CollectiveParams& params, Tensor data, CancellationManager* cancellation,
                   std::function<void(absl::Status)> done) = 0;
};

// The runtime of task `task` ("/job:worker/replica:0/task:1") while registered.
void RegisterCollectiveRuntime(const std::string& task, std::shared_ptr<CollectiveRuntime> runtime);
void UnregisterCollectiveRuntime(const std::string& task, const CollectiveRuntime* runtime);
// The runtime of the task a device ("/job:worker/replica:0/task:1/device:CPU:0") belongs
// to; null if none is registered (a local session without a server).
std::shared_ptr<CollectiveRuntime> FindCollectiveRuntime(const std::string& device_name);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_COLLECTIVE_H_
