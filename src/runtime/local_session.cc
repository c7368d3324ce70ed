#include "runtime/local_session.h"

#include <algorithm>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/graph_def_import.h"
#include "kernels/kernel_registry.h"
#include "kernels/step_container.h"
#include "runtime/local_rendezvous.h"
#include "runtime/partitioner.h"
#include "runtime/placer.h"
#include "runtime/step_stats_collector.h"

namespace tw {

struct LocalSession::Prepared {
  PrunedGraph pruned;
  // One executor per device the signature touches (usually one).
  std::vector<std::unique_ptr<Executor>> executors;
};


LocalSession::LocalSession(const SessionOptions& options)
    : options_(options),
      devices_(DeviceMgr::CreateLocal("localhost", 0, options.intra_op_threads, options.cpu_device_count)),
      inter_op_pool_(std::make_unique<ThreadPool>("inter_op", options.inter_op_threads)) {
  functions_ = std::make_unique<LocalFunctionRuntime>(devices_->default_device(), options.max_tensor_bytes);
}

LocalSession::~LocalSession() = default;

absl::Status LocalSession::Extend(const GraphDef& graph) {
  if (closed_) return absl::FailedPreconditionError("session is closed");
  absl::MutexLock lock(&graph_mu_);
  TW_RETURN_IF_ERROR(ImportGraphDef(graph, &graph_));
  return functions_->AddLibrary(graph.library());
}

std::vector<std::string> LocalSession::ListDevices() const { return devices_->DeviceNames(); }

absl::Status LocalSession::Close() {
  closed_ = true;
  close_cancellation_.StartCancel();
  return absl::OkStatus();
}

int LocalSession::num_prepared() const {
  absl::MutexLock lock(&cache_mu_);
  return static_cast<int>(prepared_.size());
}

absl::StatusOr<std::shared_ptr<OpKernel>> LocalSession::KernelFor(const Node& node) {
  Device* device = devices_->Find(node.assigned_device());
  if (device == nullptr) {
    return absl::InternalError(absl::StrCat("node '", node.name(), "' placed on unknown device '",
                                            node.assigned_device(), "'"));
  }
  auto create = [&]() -> absl::StatusOr<std::shared_ptr<OpKernel>> {
    auto k = KernelRegistry::Global().Create(node, device->name(), device->device_type(),
                                             device->resource_mgr(), functions_.get());
    if (!k.ok()) return k.status();
    return std::shared_ptr<OpKernel>(*std::move(k));
  };
  if (!node.op_def().stateful) return create();
  absl::MutexLock lock(&cache_mu_);
  auto it = stateful_kernels_.find(node.name());
  if (it != stateful_kernels_.end()) return it->second;
  TW_ASSIGN_OR_RETURN(std::shared_ptr<OpKernel> k, create());
  stateful_kernels_[node.name()] = k;
  return k;
}

absl::StatusOr<std::unique_ptr<LocalSession::Prepared>> LocalSession::Prepare(const RunSignature& signature) {
  auto prepared = std::make_unique<Prepared>();
  TW_ASSIGN_OR_RETURN(prepared->pruned, BuildPrunedGraph(graph_, signature));
  FlowGraph& sub = *prepared->pruned.graph;
  std::vector<DeviceName> device_names;
  for (const auto& d : devices_->devices()) device_names.push_back(d->parsed_name());
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options_.allow_soft_placement;
  placer_options.log_device_placement = options_.log_device_placement;
  TW_RETURN_IF_ERROR(PlaceGraph(sub, device_names, devices_->default_device()->parsed_name(),
                                placer_options));

  auto executor_for = [&](const FlowGraph& part, Device* device) -> absl::Status {
    ExecutorOptions ex_options;
    ex_options.device = device;
    ex_options.inter_op_pool = inter_op_pool_.get();
    ex_options.max_tensor_bytes = options_.max_tensor_bytes;
    ex_options.create_kernel = [this](const Node& node) { return KernelFor(node); };
    TW_ASSIGN_OR_RETURN(auto executor, Executor::Create(part, std::move(ex_options)));
    prepared->executors.push_back(std::move(executor));
    return absl::OkStatus();
  };
  if (devices_->devices().size() == 1) {
    TW_RETURN_IF_ERROR(executor_for(sub, devices_->default_device()));
    return prepared;
  }
  TW_ASSIGN_OR_RETURN(auto parts, Partition(sub));
  for (const auto& [device_name, def] : parts) {
    FlowGraph part;
    TW_RETURN_IF_ERROR(ImportGraphDef(def, &part, {}, GraphSource::kPartitioner));
    for (Node* n : part.nodes()) n->set_assigned_device(device_name);
    TW_RETURN_IF_ERROR(executor_for(part, devices_->Find(device_name)));
  }
  return prepared;
}

absl::StatusOr<LocalSession::Prepared*> LocalSession::GetOrPrepare(const RunSignature& signature) {
  const std::string key = signature.Key();
  {
    absl::MutexLock lock(&cache_mu_);
    auto it = prepared_.find(key);
    if (it != prepared_.end()) return it->second.get();
  }
  std::unique_ptr<Prepared> prepared;
  {
    absl::ReaderMutexLock lock(&graph_mu_);
    TW_ASSIGN_OR_RETURN(prepared, Prepare(signature));
  }
  absl::MutexLock lock(&cache_mu_);
  auto [it, inserted] = prepared_.emplace(key, std::move(prepared));
  return it->second.get();  // A racing thread's copy wins; ours is dropped.
}

absl::Status LocalSession::RunPartitions(const Prepared& prepared, CallFrame* frame,
                                         CancellationManager* caller_cancellation, StepStatsCollector* stats) {
  Executor::Args args;
  args.stats = stats;
  args.step_id = next_step_id_.fetch_add(1);
  args.call_frame = frame;
  // The step's own cancellation (the first error cancels the step everywhere), started
  // as well when the caller cancels. Shared with the caller's callback, which may still be
  // running when the step is over.
  auto cancellation = std::make_shared<CancellationManager>();
  args.cancellation = cancellation.get();
  CancellationManager::Token token = CancellationManager::kInvalidToken;
  if (caller_cancellation != nullptr) {
    token = caller_cancellation->RegisterCallback([cancellation] { cancellation->StartCancel(); });
    if (token == CancellationManager::kInvalidToken) return absl::CancelledError("step was cancelled");
  }
  CancellationManager::Token close_token = close_cancellation_.RegisterCallback([cancellation] { cancellation->StartCancel(); });
  if (close_token == CancellationManager::kInvalidToken) {
    if (token != CancellationManager::kInvalidToken) caller_cancellation->DeregisterCallback(token);
    return absl::CancelledError("the session was closed");
  }
  absl::Cleanup deregister = [&] {
    if (token != CancellationManager::kInvalidToken) caller_cancellation->DeregisterCallback(token);
    close_cancellation_.DeregisterCallback(close_token);
    // The step's own resources (TensorArrays) go with it.
    for (const auto& device : devices_->devices()) device->resource_mgr()->Clear({StepContainer(args.step_id)});
  };
  if (prepared.executors.size() == 1) return prepared.executors[0]->Run(args);
  // Partitions exchange tensors through one rendezvous; the first error's Status (not the
  // cancellations it caused) is what the caller sees.
  LocalRendezvous rendezvous;
  args.rendezvous = &rendezvous;
  absl::Mutex mu;
  absl::Status first_error;
  absl::BlockingCounter pending(static_cast<int>(prepared.executors.size()));
  for (const auto& executor : prepared.executors) {
    executor->RunAsync(args, [&](absl::Status s) {
      if (!s.ok()) {
        absl::MutexLock lock(&mu);
        if (first_error.ok() || (absl::IsCancelled(first_error) && !absl::IsCancelled(s))) first_error = s;
      }
      if (!s.ok()) rendezvous.StartAbort(s);
      pending.DecrementCount();
    });
  }
  pending.Wait();
  absl::MutexLock lock(&mu);
  return first_error;
}

absl::Status LocalSession::Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets,
                               std::vector<Tensor>* outputs, CancellationManager* cancellation,
                               const RunOptions& options, RunMetadata* metadata) {
  if (closed_) return absl::FailedPreconditionError("session is closed");
  if (fetches.empty() && targets.empty()) {
    return absl::InvalidArgumentError("nothing to run: give at least one fetch or target");
  }
  TW_ASSIGN_OR_RETURN(RunSignature signature, CanonicalizeRun(feeds, fetches, targets));
  TW_ASSIGN_OR_RETURN(Prepared * prepared, GetOrPrepare(signature));
  TW_RETURN_IF_ERROR(ValidateFeeds(signature, prepared->pruned));
  CallFrame frame;
  for (const Tensor* t : signature.feed_values) frame.args.push_back(*t);
  frame.rets.resize(signature.fetches.size());
  std::unique_ptr<StepStatsCollector> stats;
  if (metadata != nullptr && WantsStepStats(options)) stats = std::make_unique<StepStatsCollector>();
  TW_RETURN_IF_ERROR(RunPartitions(*prepared, &frame, cancellation, stats.get()));
  if (stats != nullptr) stats->MoveTo(metadata->mutable_step_stats());
  if (outputs != nullptr) *outputs = std::move(frame.rets);
  return absl::OkStatus();
}

}  // namespace tw
