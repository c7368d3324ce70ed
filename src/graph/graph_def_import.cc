#include "graph/graph_def_import.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "graph/back_edge.h"
#include "graph/ref_variable_lowering.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

bool IsBackEdge(const NodeDef& dst, const NodeDef& src) { return IsBackEdgeOp(dst.op(), src.op()); }

// TensorFlow wrote an unset Placeholder shape as an empty TensorShapeProto until GraphDef
// version 21, so (as TF's Placeholder shape function does) such a graph's scalar shape
// means "unknown". Rewritten in the attr, so the session's copy agrees.
bool IsLegacyScalarPlaceholder(const GraphDef& def, const NodeDef& node) {
  if (def.versions().producer() > 21 || node.op() != "Placeholder") return false;
  auto shape = node.attr().find("shape");
  return shape != node.attr().end() && shape->second.has_shape() && !shape->second.shape().unknown_rank() &&
         shape->second.shape().dim_size() == 0;
}

}  // namespace

absl::Status CheckGraphDefLimits(const GraphDef& def, int existing_nodes, const ResourceLimits& limits) {
  const int64_t nodes = int64_t{existing_nodes} + def.node_size();
  if (nodes > limits.max_graph_nodes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("graph of ", nodes, " nodes is over the max_graph_nodes limit of ", limits.max_graph_nodes));
  }
  const int64_t bytes = static_cast<int64_t>(def.ByteSizeLong());
  if (bytes > limits.max_graph_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("GraphDef of ", bytes, " bytes is over the max_graph_bytes limit of ", limits.max_graph_bytes));
  }
  for (const NodeDef& node : def.node()) {
    for (const auto& [name, value] : node.attr()) {
      if (value.value_case() != AttrValue::kTensor) continue;
      if (auto s = CheckTensorProtoBytes(value.tensor(), limits.max_tensor_bytes);
          absl::IsResourceExhausted(s)) {
        return NodeError(node.name(), node.op(),
                         absl::ResourceExhaustedError(absl::StrCat("attr '", name, "': ", s.message())));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ImportGraphDef(const GraphDef& def, FlowGraph* graph, const ResourceLimits& limits,
                            GraphSource source, const std::function<bool()>& cancelled) {
  TW_RETURN_IF_ERROR(CheckGraphDefLimits(def, graph->num_nodes(), limits));
  if (std::any_of(def.node().begin(), def.node().end(),
                  [&](const NodeDef& n) { return IsLegacyScalarPlaceholder(def, n); })) {
    GraphDef rewritten = def;
    for (NodeDef& n : *rewritten.mutable_node()) {
      if (IsLegacyScalarPlaceholder(def, n)) (*n.mutable_attr())["shape"].mutable_shape()->set_unknown_rank(true);
    }
    rewritten.mutable_versions()->set_producer(22);  // done once
    return ImportGraphDef(rewritten, graph, limits, source, cancelled);
  }
  if (HasRefVariableOps(def)) {  // TF1 reference variables become resource variables first
    TW_ASSIGN_OR_RETURN(GraphDef lowered, LowerRefVariables(def, *graph));
    return ImportGraphDef(lowered, graph, limits, source);
  }
  for (const FunctionDef& fn : def.library().function()) TW_RETURN_IF_ERROR(graph->AddFunction(fn));
  const int n = def.node_size();
  absl::flat_hash_map<std::string, int> index;  // name -> position in def
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = def.node(i);
    if (!IsValidNodeName(node.name())) {
      return absl::InvalidArgumentError(
          absl::StrCat("node #", i, " has invalid name '", node.name(), "'"));
    }
    if (!index.emplace(node.name(), i).second || graph->FindNode(node.name()) != nullptr) {
      return NodeError(node.name(), node.op(), absl::InvalidArgumentError("duplicate node name"));
    }
  }
  // Dependencies inside `def`, checked for dangling inputs.
  std::vector<std::vector<int>> consumers(n);
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = def.node(i);
    if (source == GraphSource::kClient && absl::StartsWith(node.op(), "_")) {
      return NodeError(node.name(), node.op(), absl::InvalidArgumentError(absl::StrCat(
                                                   "op '", node.op(), "' is internal (only the partitioner creates it); ",
                                                   "a client graph may not use it")));
    }
    if (!graph->registry().Find(node.op()).ok()) {
      return NodeError(node.name(), node.op(),
                       absl::InvalidArgumentError(absl::StrCat("unknown op '", node.op(), "'")));
    }
    for (const std::string& input : node.input()) {
      std::string src;
      int slot;
      if (auto s = ParseTensorName(input, &src, &slot); !s.ok()) {
        return NodeError(node.name(), node.op(), s);
      }
      auto it = index.find(src);
      if (it != index.end() && IsBackEdge(node, def.node(it->second))) continue;  // Set after the loop's body.
      if (it != index.end()) {
        consumers[it->second].push_back(i);
        ++pending[i];
      } else if (graph->FindNode(src) == nullptr) {
        return NodeError(node.name(), node.op(),
                         absl::InvalidArgumentError(absl::StrCat("input '", input, "' names no node")));
      }
    }
  }
  // Kahn's algorithm in file order where possible; whatever is left sits on a cycle.
  std::vector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < n; ++i)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int c : consumers[i])
      if (--pending[c] == 0) ready.push_back(c);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        return NodeError(def.node(i).name(), def.node(i).op(),
                         absl::InvalidArgumentError("the graph has a cycle through this node (the only cycle allowed is a while loop's NextIteration -> Merge)"));
      }
    }
  }
  // All or nothing: a node refused late (a bad attr, a shape) takes the ones added before it back out.
  const int first = graph->num_nodes();
  int added_count = 0;
  struct BackEdge {
    Node* merge;
    int slot;
    std::string input;
  };
  std::vector<BackEdge> back_edges;
  for (int i : order) {
    constexpr int kCancelCheckEvery = 4096;
    if (cancelled && ++added_count % kCancelCheckEvery == 0 && cancelled()) {
      graph->RemoveNodesSince(first);
      return absl::CancelledError(absl::StrCat("the GraphDef import was cancelled after ", added_count, " of ", n,
                                               " nodes (the caller gave up)"));
    }
    const NodeDef& node = def.node(i);
    NodeSpec spec{node.name(), node.op(), {}, node.device(), {}};
    for (const auto& [k, v] : node.attr()) spec.attrs[k] = v;
    absl::Status added;
    std::vector<std::pair<int, std::string>> node_back_edges;  // (input, source) not added yet
    for (const std::string& input : node.input()) {
      std::string src;
      int slot = 0;
      (void)ParseTensorName(input, &src, &slot);  // Checked above.
      auto it = index.find(src);
      if (it != index.end() && IsBackEdge(node, def.node(it->second)) && graph->FindNode(src) == nullptr) {
        node_back_edges.emplace_back(static_cast<int>(spec.inputs.size()), input);
        spec.inputs.push_back(NodeInput{nullptr, 0});
        continue;
      }
      auto in = graph->ResolveInput(input);
      if (!in.ok()) {
        added = NodeError(node.name(), node.op(), in.status());
        break;
      }
      spec.inputs.push_back(*in);
    }
    // A Merge is added with one of its forward inputs standing in for each back edge.
    if (added.ok() && !node_back_edges.empty()) {
      const NodeInput* stand_in = nullptr;
      for (const NodeInput& in : spec.inputs)
        if (in.node != nullptr && in.index != kControlSlot) stand_in = stand_in ? stand_in : &in;
      if (stand_in == nullptr) {
        added = NodeError(node.name(), node.op(),
                          absl::InvalidArgumentError("a while loop's Merge needs an input from outside the loop"));
      } else {
        const NodeInput copy = *stand_in;
        for (const auto& [slot, input] : node_back_edges) spec.inputs[slot] = copy;
      }
    }
    Node* merge = nullptr;
    if (added.ok()) {
      auto n = graph->AddNode(std::move(spec));
      added = n.status();
      if (n.ok()) merge = *n;
    }
    if (!added.ok()) {
      graph->RemoveNodesSince(first);
      return added;
    }
    for (const auto& [slot, input] : node_back_edges) back_edges.push_back({merge, slot, input});
  }
  for (const BackEdge& b : back_edges) {
    absl::Status s;
    auto src = graph->ResolveInput(b.input);
    if (!src.ok()) {
      s = NodeError(b.merge->name(), "Merge", src.status());
    } else if (src->index != 0) {
      s = NodeError(b.merge->name(), "Merge", absl::InvalidArgumentError("a back edge must be output 0 of its NextIteration"));
    } else {
      s = SetBackEdge(b.merge, b.slot, src->node);
    }
    if (!s.ok()) {
      graph->RemoveNodesSince(first);
      return s;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<GraphDef> ParseGraphDef(const std::string& bytes, bool text) {
  GraphDef def;
  if (text) {
    google::protobuf::TextFormat::Parser parser;
    struct Collector : google::protobuf::io::ErrorCollector {
      std::string errors;
      void AddError(int line, int column, const std::string& message) override {
        absl::StrAppend(&errors, "line ", line + 1, " column ", column + 1, ": ", message, "; ");
      }
    } collector;
    parser.RecordErrorsTo(&collector);
    if (!parser.ParseFromString(bytes, &def)) {
      return absl::InvalidArgumentError("cannot parse GraphDef text: " + collector.errors);
    }
    return def;
  }
  if (!def.ParseFromString(bytes)) {
    return absl::InvalidArgumentError("cannot parse GraphDef: not a valid binary GraphDef");
  }
  return def;
}

absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open GraphDef file '", path, "'"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  const bool text = absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt");
  auto def = ParseGraphDef(bytes, text);
  if (!def.ok() && !text) {
    auto as_text = ParseGraphDef(bytes, /*text=*/true);
    if (as_text.ok()) return as_text;
  }
  if (!def.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", def.status().message()));
  }
  return def;
}

absl::Status WriteGraphDefFile(const GraphDef& def, const std::string& path) {
  std::string bytes;
  if (absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txt")) {
    google::protobuf::TextFormat::PrintToString(def, &bytes);
  } else {
    def.SerializeToString(&bytes);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) return absl::InternalError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace tw
