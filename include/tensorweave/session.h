// Session: runs a Graph, in this process (target "") or, later, on a cluster
// ("grpc://host:port"). Nodes added to the graph after the session was created are sent
// along before the next run. Variables persist across runs of one session.
#ifndef TENSORWEAVE_SESSION_H_
#define TENSORWEAVE_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "tensorweave/graph.h"
#include "tensorweave/session_config.h"

namespace tensorweave {
class RunMetadata;  // TF's messages (tensorweave/proto/config.pb.h).
class RunOptions;
}  // namespace tensorweave

namespace tw {

class SessionInterface;
class CancellationManager;
using RunMetadata = ::tensorweave::RunMetadata;
using RunOptions = ::tensorweave::RunOptions;

using FeedDict = std::vector<std::pair<Output, Tensor>>;

// Ends a run from another thread (the Python front end's Ctrl-C): a Run given it returns
// Cancelled soon after Cancel() — at once when Cancel() came first. On a cluster the
// RunStep call is cancelled and the master aborts the step on its workers. One per run.
class RunCancellation {
 public:
  RunCancellation();
  ~RunCancellation();
  RunCancellation(const RunCancellation&) = delete;
  RunCancellation& operator=(const RunCancellation&) = delete;
  void Cancel();  // Thread-safe.
  bool cancelled() const;

 private:
  friend class Session;
  std::unique_ptr<CancellationManager> manager_;
};

class Session {
 public:
  // Throws StatusError for a target it cannot reach.
  explicit Session(Graph& graph, const std::string& target = "", const SessionConfig& config = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Each run throws StatusError naming the failing node on error.
  Tensor run(const Output& fetch, const FeedDict& feeds = {});
  // `cancellation` (may be null): see Run.
  std::vector<Tensor> run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation>& targets = {}, RunCancellation* cancellation = nullptr);
  void run(const Operation& target, const FeedDict& feeds = {});

  // The same by tensor and node names, returning the error instead of throwing;
  // `cancellation` (may be null) lets another thread end the run. `timeout_ms` > 0
  // overrides the config's operation_timeout_ms for this run (TF's RunOptions.timeout_in_ms).
  // `metadata` (may be null) receives TF's RunMetadata with tensorweave's wire_bytes: what
  // the step moved between tasks (empty for a session in one process).
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunCancellation* cancellation = nullptr, int64_t timeout_ms = 0,
             RunMetadata* metadata = nullptr);
  // TF's Session::Run(RunOptions, ...): a trace_level other than NO_TRACE fills
  // metadata->step_stats (one DeviceStepStats per device of every task the step ran on);
  // timeout_in_ms > 0 is the timeout above.
  Status Run(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata, RunCancellation* cancellation = nullptr);

  std::vector<std::string> list_devices() const;
  void close();
  // The target it was created with ("" in this process).
  const std::string& target() const { return target_; }

 private:
  Status SyncGraph();
  Graph* graph_;
  std::string target_;
  int64_t operation_timeout_ms_ = 0;
  std::unique_ptr<SessionInterface> impl_;
  // Runs may come from several threads at once (as in TF: a SyncReplicasChiefRunner's loop
  // and its Stop); the nodes not yet sent are sent by one of them, once.
  absl::Mutex sync_mu_;
  int nodes_sent_ ABSL_GUARDED_BY(sync_mu_) = 0;
};

}  // namespace tw

#endif  // TENSORWEAVE_SESSION_H_
