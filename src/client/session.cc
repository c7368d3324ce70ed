#include "tensorweave/session.h"

#include <atomic>
#include <thread>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "absl/strings/str_cat.h"
#include "core/cancellation.h"
#include "graph/graph.h"
#include "distributed/rpc/grpc_session.h"
#include "runtime/local_session.h"

namespace tw {

Session::Session(Graph& graph, const std::string& target, const SessionConfig& config)
    : graph_(&graph), target_(target), operation_timeout_ms_(config.operation_timeout_ms) {
  if (config.operation_timeout_ms < 0) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "ConfigProto.operation_timeout_in_ms must not be negative, not ", config.operation_timeout_ms)));
  }
  if (config.max_tensor_bytes <= 0) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("SessionConfig::max_tensor_bytes must be positive, not ", config.max_tensor_bytes)));
  }
  if (target.empty() || target == "local") {
    impl_ = std::make_unique<LocalSession>(config);
  } else if (absl::StartsWith(target, "grpc://")) {
    impl_ = ValueOrThrow(NewGrpcSession(target, config));
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
  if (graph_->num_operations() == nodes_sent_) return absl::OkStatus();
  int end = 0;
  TW_RETURN_IF_ERROR(impl_->Extend(graph_->ToGraphDefSince(nodes_sent_, &end)));
  nodes_sent_ = end;
  return absl::OkStatus();
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs, RunCancellation* cancellation, int64_t timeout_ms,
                    RunMetadata* metadata) {
  RunOptions options;
  options.set_timeout_in_ms(timeout_ms);
  return Run(options, feeds, fetches, targets, outputs, metadata, cancellation);
}

Status Session::Run(const RunOptions& options, const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs, RunMetadata* metadata, RunCancellation* cancellation) {
  TW_RETURN_IF_ERROR(SyncGraph());
  int64_t timeout_ms = options.timeout_in_ms();
  if (timeout_ms <= 0) timeout_ms = operation_timeout_ms_;
  if (timeout_ms <= 0) {
    return impl_->Run(feeds, fetches, targets, outputs, cancellation ? cancellation->manager_.get() : nullptr,
                      options, metadata);
  }
  // A watchdog cancels the step at the deadline (as TF's session does on
  // operation_timeout_in_ms); a cancellation then reads as DeadlineExceeded.
  RunCancellation own;
  RunCancellation* cancel = cancellation != nullptr ? cancellation : &own;
  absl::Notification finished;
  std::atomic<bool> timed_out{false};
  std::thread watchdog([&] {
    if (!finished.WaitForNotificationWithTimeout(absl::Milliseconds(timeout_ms))) {
      timed_out.store(true, std::memory_order_release);
      cancel->Cancel();
    }
  });
  Status status = impl_->Run(feeds, fetches, targets, outputs, cancel->manager_.get(), options, metadata);
  finished.Notify();
  watchdog.join();
  if (!status.ok() && timed_out.load(std::memory_order_acquire)) {
    return absl::DeadlineExceededError(
        absl::StrCat("Timed out waiting for notification: the step ran longer than ", timeout_ms, " ms (",
                     "operation_timeout_in_ms / RunOptions.timeout_in_ms); it was cancelled: ", status.message()));
  }
  return status;
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
