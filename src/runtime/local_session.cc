#include "runtime/local_session.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/graph_def_import.h"
#include "kernels/kernel_registry.h"
#include "runtime/local_rendezvous.h"
#include "runtime/partitioner.h"
#include "runtime/placer.h"

namespace tw {

struct LocalSession::Prepared {
  // One executor per device the signature touches (usually one).
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<std::string> feed_names;  // Sorted, canonical "node:k"; arg i is feed_names[i].
  std::vector<DType> feed_types;
  std::vector<PartialShape> feed_shapes;
  int num_fetches = 0;
};

namespace {

// "x" -> "x:0"; "x:1" stays. Errors for malformed names.
absl::StatusOr<std::string> CanonicalTensorName(const std::string& name, const char* what) {
  std::string node;
  int index;
  if (auto s = ParseTensorName(name, &node, &index); !s.ok() || index == kControlSlot) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "' is not a tensor name"));
  }
  return absl::StrCat(node, ":", index);
}

// Finds the tensor "node:k" in `graph`.
absl::StatusOr<NodeInput> FindTensor(const FlowGraph& graph, const std::string& name, const char* what) {
  std::string node_name;
  int index;
  TW_RETURN_IF_ERROR(ParseTensorName(name, &node_name, &index));
  Node* node = graph.FindNode(node_name);
  if (node == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "': the graph has no node '",
                                                   node_name, "'"));
  }
  if (index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "': node '", node_name,
                                                   "' has ", node->num_outputs(), " outputs"));
  }
  return NodeInput{node, index};
}

std::string FreeName(const FlowGraph& graph, const std::string& base) {
  std::string name = base;
  while (graph.FindNode(name) != nullptr) name += "_";
  return name;
}

}  // namespace

LocalSession::LocalSession(const SessionOptions& options)
    : options_(options),
      devices_(DeviceMgr::CreateLocal("localhost", 0, options.intra_op_threads, options.cpu_device_count)),
      inter_op_pool_(std::make_unique<ThreadPool>("inter_op", options.inter_op_threads)) {}

LocalSession::~LocalSession() = default;

absl::Status LocalSession::Extend(const GraphDef& graph) {
  if (closed_) return absl::FailedPreconditionError("session is closed");
  absl::MutexLock lock(&graph_mu_);
  return ImportGraphDef(graph, &graph_);
}

std::vector<std::string> LocalSession::ListDevices() const { return devices_->DeviceNames(); }

absl::Status LocalSession::Close() {
  closed_ = true;
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
                                             device->resource_mgr());
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

absl::StatusOr<std::unique_ptr<LocalSession::Prepared>> LocalSession::Prepare(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  auto prepared = std::make_unique<Prepared>();
  // Which tensors are fed, and which nodes the fetches and targets need.
  absl::flat_hash_map<std::pair<const Node*, int>, int> fed;  // -> arg index
  for (size_t i = 0; i < feeds.size(); ++i) {
    TW_ASSIGN_OR_RETURN(NodeInput t, FindTensor(graph_, feeds[i], "feed"));
    fed[{t.node, t.index}] = static_cast<int>(i);
    prepared->feed_names.push_back(feeds[i]);
    prepared->feed_types.push_back(t.node->output_type(t.index));
    prepared->feed_shapes.push_back(t.node->output_shape(t.index));
  }
  std::vector<NodeInput> fetch_tensors;
  std::vector<const Node*> stack;
  for (const std::string& f : fetches) {
    TW_ASSIGN_OR_RETURN(NodeInput t, FindTensor(graph_, f, "fetch"));
    fetch_tensors.push_back(t);
    if (!fed.contains({t.node, t.index})) stack.push_back(t.node);
  }
  for (const std::string& name : targets) {
    const Node* node = graph_.FindNode(name);
    if (node == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("target '", name, "': the graph has no such node"));
    }
    stack.push_back(node);
  }
  absl::flat_hash_set<const Node*> needed;
  while (!stack.empty()) {
    const Node* node = stack.back();
    stack.pop_back();
    if (!needed.insert(node).second) continue;
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      if (!fed.contains({e->src, e->src_output})) stack.push_back(e->src);
    }
    for (const Edge* e : node->control_inputs()) stack.push_back(e->src);
  }

  // The pruned graph: fed tensors become _Arg nodes, fetches _Retval nodes.
  FlowGraph sub;
  std::vector<Node*> args(feeds.size());
  for (const auto& [tensor, i] : fed) {
    NodeSpec spec{FreeName(graph_, absl::StrCat("_arg_", i)), "_Arg", {}, "", {}};
    spec.attrs["T"] = MakeAttr(prepared->feed_types[i]);
    spec.attrs["index"] = MakeAttr(static_cast<int64_t>(i));
    spec.attrs["shape"] = MakeAttr(prepared->feed_shapes[i]);
    TW_ASSIGN_OR_RETURN(args[i], sub.AddNode(std::move(spec)));
  }
  auto map_input = [&](const Node* src, int index) -> NodeInput {
    auto it = fed.find({src, index});
    if (it != fed.end()) return NodeInput{args[it->second], 0};
    return NodeInput{sub.FindNode(src->name()), index};
  };
  for (const Node* node : graph_.nodes()) {
    if (!needed.contains(node)) continue;
    NodeSpec spec{node->name(), node->op(), {}, node->requested_device(), node->attrs()};
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      spec.inputs.push_back(map_input(e->src, e->src_output));
    }
    for (const Edge* e : node->control_inputs()) {
      spec.inputs.push_back(NodeInput{sub.FindNode(e->src->name()), kControlSlot});
    }
    TW_RETURN_IF_ERROR(sub.AddNode(std::move(spec)).status());
  }
  for (size_t i = 0; i < fetch_tensors.size(); ++i) {
    const NodeInput& t = fetch_tensors[i];
    NodeSpec spec{FreeName(graph_, absl::StrCat("_retval_", i)), "_Retval",
                  {map_input(t.node, t.index)}, "", {}};
    spec.attrs["T"] = MakeAttr(t.node->output_type(t.index));
    spec.attrs["index"] = MakeAttr(static_cast<int64_t>(i));
    TW_RETURN_IF_ERROR(sub.AddNode(std::move(spec)).status());
  }
  prepared->num_fetches = static_cast<int>(fetches.size());

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
    TW_RETURN_IF_ERROR(ImportGraphDef(def, &part));
    for (Node* n : part.nodes()) n->set_assigned_device(device_name);
    TW_RETURN_IF_ERROR(executor_for(part, devices_->Find(device_name)));
  }
  return prepared;
}

absl::StatusOr<LocalSession::Prepared*> LocalSession::GetOrPrepare(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::string key = absl::StrCat(absl::StrJoin(feeds, ","), "|", absl::StrJoin(fetches, ","), "|",
                                 absl::StrJoin(targets, ","));
  {
    absl::MutexLock lock(&cache_mu_);
    auto it = prepared_.find(key);
    if (it != prepared_.end()) return it->second.get();
  }
  std::unique_ptr<Prepared> prepared;
  {
    absl::ReaderMutexLock lock(&graph_mu_);
    TW_ASSIGN_OR_RETURN(prepared, Prepare(feeds, fetches, targets));
  }
  absl::MutexLock lock(&cache_mu_);
  auto [it, inserted] = prepared_.emplace(key, std::move(prepared));
  return it->second.get();  // A racing thread's copy wins; ours is dropped.
}

absl::Status LocalSession::RunPartitions(const Prepared& prepared, CallFrame* frame) {
  Executor::Args args;
  args.step_id = next_step_id_.fetch_add(1);
  args.call_frame = frame;
  if (prepared.executors.size() == 1) return prepared.executors[0]->Run(args);
  // Partitions exchange tensors through one rendezvous; the first error cancels the step
  // everywhere, and that error (not the cancellations it caused) is what the caller sees.
  CancellationManager cancellation;
  LocalRendezvous rendezvous;
  args.cancellation = &cancellation;
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
                               std::vector<Tensor>* outputs) {
  if (closed_) return absl::FailedPreconditionError("session is closed");
  if (fetches.empty() && targets.empty()) {
    return absl::InvalidArgumentError("nothing to run: give at least one fetch or target");
  }
  // Canonical, sorted feed names make the cache key independent of feed order.
  std::vector<std::pair<std::string, const Tensor*>> sorted_feeds;
  for (const auto& [name, tensor] : feeds) {
    TW_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(name, "feed"));
    sorted_feeds.emplace_back(std::move(canonical), &tensor);
  }
  std::sort(sorted_feeds.begin(), sorted_feeds.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> feed_names;
  for (size_t i = 0; i < sorted_feeds.size(); ++i) {
    if (i > 0 && sorted_feeds[i].first == sorted_feeds[i - 1].first) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", sorted_feeds[i].first, "' is fed twice"));
    }
    feed_names.push_back(sorted_feeds[i].first);
  }
  std::vector<std::string> fetch_names;
  for (const std::string& f : fetches) {
    TW_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(f, "fetch"));
    fetch_names.push_back(std::move(canonical));
  }
  std::vector<std::string> target_names = targets;
  std::sort(target_names.begin(), target_names.end());

  TW_ASSIGN_OR_RETURN(Prepared * prepared, GetOrPrepare(feed_names, fetch_names, target_names));

  CallFrame frame;
  frame.args.reserve(sorted_feeds.size());
  for (size_t i = 0; i < sorted_feeds.size(); ++i) {
    const Tensor& t = *sorted_feeds[i].second;
    if (t.dtype() != prepared->feed_types[i]) {
      return absl::InvalidArgumentError(absl::StrCat("feed '", feed_names[i], "' is ",
                                                     DTypeName(t.dtype()), " but the graph expects ",
                                                     DTypeName(prepared->feed_types[i])));
    }
    if (!prepared->feed_shapes[i].Matches(t.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", feed_names[i], "' has shape ", t.shape().DebugString(),
          " but the graph expects ", prepared->feed_shapes[i].DebugString()));
    }
    frame.args.push_back(t);
  }
  frame.rets.resize(prepared->num_fetches);
  TW_RETURN_IF_ERROR(RunPartitions(*prepared, &frame));
  if (outputs != nullptr) *outputs = std::move(frame.rets);
  return absl::OkStatus();
}

}  // namespace tw
