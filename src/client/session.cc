#include "tensorweave/session.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/cancellation.h"
#include "core/mutex_mode.h"
#include "graph/graph.h"
#include "distributed/rpc/grpc_session.h"
#include "runtime/local_session.h"

namespace tw {

Session::Session(Graph& graph, const std::string& target, const SessionConfig& config) : graph_(&graph), target_(target) {
  ConfigureMutexDeadlockDetection();
  SessionOptions options;
  options.allow_soft_placement = config.allow_soft_placement;
  options.log_device_placement = config.log_device_placement;
  options.inter_op_threads = config.inter_op_threads;
  options.intra_op_threads = config.intra_op_threads;
  options.cpu_device_count = config.cpu_device_count;
  options.security = config.security;
  options.max_tensor_bytes = config.max_tensor_bytes;
  if (config.max_tensor_bytes <= 0) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("SessionConfig::max_tensor_bytes must be positive, not ", config.max_tensor_bytes)));
  }
  if (target.empty() || target == "local") {
    impl_ = std::make_unique<LocalSession>(options);
  } else if (absl::StartsWith(target, "grpc://")) {
    impl_ = ValueOrThrow(NewGrpcSession(target, options));
  } else {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("unknown session target '", target, "' (use \"\" or grpc://host:port)")));
  }
}

Session::~Session() = default;

RunCancellation::RunCancellation() : manager_(std::make_unique<CancellationManager>()) {}
RunCancellation::~RunCancellation() = default;
void RunCancellation::Cancel() { manager_->StartCancel(); }
bool RunCancellation::cancelled() const { return manager_->IsCancelled(); }

Status Session::SyncGraph() {
  absl::MutexLock lock(&sync_mu_);
  const int n = graph_->num_operations();
  if (n == nodes_sent_) return absl::OkStatus();
  TW_RETURN_IF_ERROR(impl_->Extend(graph_->flow_graph().ToGraphDefSince(nodes_sent_)));
  nodes_sent_ = n;
  return absl::OkStatus();
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs, RunCancellation* cancellation) {
  TW_RETURN_IF_ERROR(SyncGraph());
  return impl_->Run(feeds, fetches, targets, outputs, cancellation ? cancellation->manager_.get() : nullptr);
}

std::vector<Tensor> Session::run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                 const std::vector<Operation>& targets, RunCancellation* cancellation) {
  FeedList feed_names;
  for (const auto& [output, tensor] : feeds) feed_names.emplace_back(output.name(), tensor);
  std::vector<std::string> fetch_names, target_names;
  for (const Output& f : fetches) fetch_names.push_back(f.name());
  for (const Operation& t : targets) target_names.push_back(t.name());
  std::vector<Tensor> outputs;
  ThrowIfError(Run(feed_names, fetch_names, target_names, &outputs, cancellation));
  return outputs;
}

Tensor Session::run(const Output& fetch, const FeedDict& feeds) { return run(std::vector<Output>{fetch}, feeds)[0]; }

void Session::run(const Operation& target, const FeedDict& feeds) { run({}, feeds, {target}); }

std::vector<std::string> Session::list_devices() const { return impl_->ListDevices(); }

void Session::close() { ThrowIfError(impl_->Close()); }

}  // namespace tw
