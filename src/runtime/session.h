// The session interface shared by the local session (runtime/) and the grpc session
// (distributed/rpc/): extend a graph, run fetches with feeds, close.
#ifndef TENSORWEAVE_SRC_RUNTIME_SESSION_H_
#define TENSORWEAVE_SRC_RUNTIME_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/cancellation.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/security.h"
#include "tensorweave/tensor.h"

namespace tw {

struct SessionOptions {
  int inter_op_threads = 0;  // <= 0: one per core.
  int intra_op_threads = 0;  // <= 0: one per core.
  bool allow_soft_placement = false;
  bool log_device_placement = false;
  int cpu_device_count = 1;  // CPU:0 .. CPU:n-1 in this process (like TF's device_count).
  TransportSecurity security;  // grpc:// sessions: TLS and token (empty fields: environment).
  int64_t max_tensor_bytes = ResourceLimits{}.max_tensor_bytes;  // Local sessions: any one kernel output.
  std::vector<std::string> device_filters;  // grpc:// sessions: the devices it may use (TF's device_filters).
  int64_t operation_timeout_ms = 0;         // grpc:// sessions: passed to the master (the client enforces it).
};

using FeedList = std::vector<std::pair<std::string, Tensor>>;

class SessionInterface {
 public:
  virtual ~SessionInterface() = default;
  // Adds nodes to the session's graph (they may refer to nodes added earlier).
  virtual absl::Status Extend(const GraphDef& graph) = 0;
  // Feeds and fetches name tensors ("node" or "node:k"); targets name nodes run for their
  // effect. `outputs` receives one tensor per fetch, in order. `cancellation` (may be null)
  // lets another thread end the step: after its StartCancel() the run returns Cancelled.
  virtual absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                           CancellationManager* cancellation) = 0;
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
    return Run(feeds, fetches, targets, outputs, nullptr);
  }
  virtual std::vector<std::string> ListDevices() const = 0;
  virtual absl::Status Close() = 0;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_SESSION_H_
