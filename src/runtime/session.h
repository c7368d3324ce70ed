// The session interface shared by the local session (runtime/) and the grpc session
// (distributed/rpc/): extend a graph, run fetches with feeds, close.
#ifndef TENSORWEAVE_SRC_RUNTIME_SESSION_H_
#define TENSORWEAVE_SRC_RUNTIME_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/cancellation.h"
#include "tensorweave/proto/config.pb.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/security.h"
#include "tensorweave/session_config.h"
#include "tensorweave/tensor.h"

namespace tw {

// One session configuration for every layer: the public SessionConfig
// (include/tensorweave/session_config.h) is what the local and the grpc sessions take.
using SessionOptions = SessionConfig;

using FeedList = std::vector<std::pair<std::string, Tensor>>;

class SessionInterface {
 public:
  virtual ~SessionInterface() = default;
  // Adds nodes to the session's graph (they may refer to nodes added earlier).
  virtual absl::Status Extend(const GraphDef& graph) = 0;
  // Feeds and fetches name tensors ("node" or "node:k"); targets name nodes run for their
  // effect. `outputs` receives one tensor per fetch, in order. `cancellation` (may be null)
  // lets another thread end the step: after its StartCancel() the run returns Cancelled.
  // `metadata` (may be null) receives what the run reports: wire_bytes for a cluster's
  // step (a session in one process moves nothing over a wire and leaves it empty), and
  // step_stats when `options` asks for a trace (any trace_level but NO_TRACE).
  virtual absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                           CancellationManager* cancellation, const RunOptions& options,
                           RunMetadata* metadata) = 0;
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   CancellationManager* cancellation, RunMetadata* metadata) {
    return Run(feeds, fetches, targets, outputs, cancellation, RunOptions(), metadata);
  }
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   CancellationManager* cancellation) {
    return Run(feeds, fetches, targets, outputs, cancellation, RunOptions(), nullptr);
  }
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
    return Run(feeds, fetches, targets, outputs, nullptr, RunOptions(), nullptr);
  }
  virtual std::vector<std::string> ListDevices() const = 0;
  virtual absl::Status Close() = 0;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_SESSION_H_
