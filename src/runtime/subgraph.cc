#include "runtime/subgraph.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/back_edge.h"
#include "tensorweave/status.h"

namespace tw {

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

std::string RunSignature::Key() const {
  return absl::StrCat(absl::StrJoin(feeds, ","), "|", absl::StrJoin(fetches, ","), "|", absl::StrJoin(targets, ","));
}

absl::StatusOr<RunSignature> CanonicalizeRun(const FeedList& feeds, const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets) {
  RunSignature sig;
  std::vector<std::pair<std::string, const Tensor*>> sorted_feeds;
  for (const auto& [name, tensor] : feeds) {
    TW_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(name, "feed"));
    sorted_feeds.emplace_back(std::move(canonical), &tensor);
  }
  std::sort(sorted_feeds.begin(), sorted_feeds.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < sorted_feeds.size(); ++i) {
    if (i > 0 && sorted_feeds[i].first == sorted_feeds[i - 1].first) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", sorted_feeds[i].first, "' is fed twice"));
    }
  }
  std::vector<std::string> fetch_names;
  for (const std::string& f : fetches) {
    TW_ASSIGN_OR_RETURN(std::string canonical, CanonicalTensorName(f, "fetch"));
    fetch_names.push_back(std::move(canonical));
  }
  std::vector<std::string> target_names = targets;
  std::sort(target_names.begin(), target_names.end());

  for (const auto& [name, value] : sorted_feeds) {
    sig.feeds.push_back(name);
    sig.feed_values.push_back(value);
  }
  sig.fetches = std::move(fetch_names);
  sig.targets = std::move(target_names);
  return sig;
}

absl::StatusOr<PrunedGraph> BuildPrunedGraph(const FlowGraph& graph, const RunSignature& signature) {
  PrunedGraph pruned;
  pruned.graph = std::make_unique<FlowGraph>();
  FlowGraph& sub = *pruned.graph;
  const auto& feeds = signature.feeds;
  const auto& fetches = signature.fetches;
  const auto& targets = signature.targets;
  // Which tensors are fed, and which nodes the fetches and targets need.
  absl::flat_hash_map<std::pair<const Node*, int>, int> fed;  // -> arg index
  for (size_t i = 0; i < feeds.size(); ++i) {
    TW_ASSIGN_OR_RETURN(NodeInput t, FindTensor(graph, feeds[i], "feed"));
    fed[{t.node, t.index}] = static_cast<int>(i);
        pruned.feed_types.push_back(t.node->output_type(t.index));
    pruned.feed_shapes.push_back(t.node->output_shape(t.index));
  }
  std::vector<NodeInput> fetch_tensors;
  // As TensorFlow: a control dependency on a fed Placeholder becomes one on its feed (the
  // placeholder itself would fail for want of a value), e.g. tf.metrics.mean's on its values.
  auto fed_placeholder = [&](const Node* src) {
    return (src->op() == "Placeholder" || src->op() == "PlaceholderV2") && fed.contains({src, 0});
  };
  std::vector<const Node*> stack;
  for (const std::string& f : fetches) {
    TW_ASSIGN_OR_RETURN(NodeInput t, FindTensor(graph, f, "fetch"));
    fetch_tensors.push_back(t);
    if (!fed.contains({t.node, t.index})) stack.push_back(t.node);
  }
  for (const std::string& name : targets) {
    const Node* node = graph.FindNode(name);
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
    for (const Edge* e : node->control_inputs()) {
      if (!fed_placeholder(e->src)) stack.push_back(e->src);
    }
  }

  // The pruned graph: fed tensors become _Arg nodes, fetches _Retval nodes.
  std::vector<Node*> args(feeds.size());
  for (const auto& [tensor, i] : fed) {
    NodeSpec spec{FreeName(graph, absl::StrCat("_arg_", i)), "_Arg", {}, "", {}};
    spec.attrs["T"] = MakeAttr(pruned.feed_types[i]);
    spec.attrs["index"] = MakeAttr(static_cast<int64_t>(i));
    spec.attrs["shape"] = MakeAttr(pruned.feed_shapes[i]);
    TW_ASSIGN_OR_RETURN(args[i], sub.AddNode(std::move(spec)));
  }
  auto map_input = [&](const Node* src, int index) -> NodeInput {
    auto it = fed.find({src, index});
    if (it != fed.end()) return NodeInput{args[it->second], 0};
    return NodeInput{sub.FindNode(src->name()), index};
  };
  // A while loop's Merge comes before its NextIteration: its back edges are set after.
  std::vector<std::tuple<Node*, int, const Node*>> back_edges;
  for (const Node* node : graph.nodes()) {
    if (!needed.contains(node)) continue;
    NodeSpec spec{node->name(), node->op(), {}, node->requested_device(), node->attrs()};
    std::vector<int> pending_back;
    for (int i = 0; i < node->num_inputs(); ++i) {
      const Edge* e = node->input_edge(i);
      NodeInput in = map_input(e->src, e->src_output);
      if (in.node == nullptr && e->src->op() == "NextIteration") pending_back.push_back(i);
      spec.inputs.push_back(in);
    }
    if (!pending_back.empty()) {
      for (const NodeInput& in : spec.inputs) {
        if (in.node == nullptr) continue;
        for (int i : pending_back) spec.inputs[i] = in;
        break;
      }
    }
    for (const Edge* e : node->control_inputs()) {
      Node* src = fed_placeholder(e->src) ? args[fed.at({e->src, 0})] : sub.FindNode(e->src->name());
      spec.inputs.push_back(NodeInput{src, kControlSlot});
    }
    TW_ASSIGN_OR_RETURN(Node* added, sub.AddNode(std::move(spec)));
    for (int i : pending_back) back_edges.emplace_back(added, i, node->input_edge(i)->src);
  }
  for (const auto& [merge, i, src] : back_edges) {
    TW_RETURN_IF_ERROR(SetBackEdge(merge, i, sub.FindNode(src->name())));
  }
  for (size_t i = 0; i < fetch_tensors.size(); ++i) {
    const NodeInput& t = fetch_tensors[i];
    NodeSpec spec{FreeName(graph, absl::StrCat("_retval_", i)), "_Retval",
                  {map_input(t.node, t.index)}, "", {}};
    spec.attrs["T"] = MakeAttr(t.node->output_type(t.index));
    spec.attrs["index"] = MakeAttr(static_cast<int64_t>(i));
    TW_RETURN_IF_ERROR(sub.AddNode(std::move(spec)).status());
  }

  return pruned;
}

absl::Status ValidateFeeds(const RunSignature& signature, const PrunedGraph& pruned) {
  for (size_t i = 0; i < signature.feeds.size(); ++i) {
    const Tensor& t = *signature.feed_values[i];
    if (t.dtype() != pruned.feed_types[i]) {
      return absl::InvalidArgumentError(absl::StrCat("feed '", signature.feeds[i], "' is ",
                                                     DTypeName(t.dtype()), " but the graph expects ",
                                                     DTypeName(pruned.feed_types[i])));
    }
    if (!pruned.feed_shapes[i].Matches(t.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feed '", signature.feeds[i], "' has shape ", t.shape().DebugString(),
          " but the graph expects ", pruned.feed_shapes[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace tw
