// The in-memory graph: nodes whose attrs were checked against their OpDef, data edges
// (src output -> dst input) and control edges, with shapes inferred as nodes are added.
// Nodes are added only after their inputs, so a FlowGraph is always acyclic.
#ifndef TENSORWEAVE_SRC_GRAPH_GRAPH_H_
#define TENSORWEAVE_SRC_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/attr_value.h"
#include "graph/op_registry.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"

namespace tw {

class Node;

inline constexpr int kControlSlot = -1;

struct Edge {
  Node* src;
  int src_output;  // kControlSlot for a control edge.
  Node* dst;
  int dst_input;  // kControlSlot for a control edge.
  bool IsControl() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& op() const { return op_def_->name; }
  const OpDef& op_def() const { return *op_def_; }
  const AttrMap& attrs() const { return attrs_; }
  const std::string& requested_device() const { return requested_device_; }
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string device) { assigned_device_ = std::move(device); }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DType input_type(int i) const { return input_types_[i]; }
  DType output_type(int i) const { return output_types_[i]; }
  const std::vector<DType>& output_types() const { return output_types_; }
  const PartialShape& output_shape(int i) const { return output_shapes_[i]; }

  // The data edge feeding input i (never null in a built graph).
  const Edge* input_edge(int i) const { return data_inputs_[i]; }
  const std::vector<const Edge*>& control_inputs() const { return control_inputs_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }

  // The node as a NodeDef: inputs written "src", "src:k" or "^src".
  NodeDef ToNodeDef() const;
  // "name (Op)", the way errors name a node.
  std::string DebugName() const { return name_ + " (" + op() + ")"; }
  // A Const node's value (parsed once when added); null for other ops.
  const Tensor* const_value() const { return const_value_.get(); }

 private:
  friend class FlowGraph;
  int id_ = -1;
  std::string name_;
  const OpDef* op_def_ = nullptr;
  AttrMap attrs_;
  std::string requested_device_;
  std::string assigned_device_;
  std::vector<DType> input_types_, output_types_;
  std::vector<PartialShape> output_shapes_;
  std::vector<const Edge*> data_inputs_;
  std::vector<const Edge*> control_inputs_;
  std::vector<const Edge*> out_edges_;
  std::unique_ptr<Tensor> const_value_;
};

// One input of a node being added: a tensor (node output) or a control dependency.
struct NodeInput {
  Node* node;
  int index;  // Output index, or kControlSlot.
};

struct NodeSpec {
  std::string name;
  std::string op;
  std::vector<NodeInput> inputs;  // Data inputs in order, then control inputs.
  std::string device;
  AttrMap attrs;
};

class FlowGraph {
 public:
  explicit FlowGraph(const OpRegistry* registry = &OpRegistry::Global()) : registry_(registry) {}
  FlowGraph(const FlowGraph&) = delete;
  FlowGraph& operator=(const FlowGraph&) = delete;

  // Validates the spec (known op, attrs, input count and dtypes, unique valid name),
  // infers output shapes and adds the node. Errors are InvalidArgument naming the node.
  absl::StatusOr<Node*> AddNode(NodeSpec spec);
  // Parses "^x", "x", "x:2" against existing nodes.
  absl::StatusOr<NodeInput> ResolveInput(const std::string& input) const;
  void AddControlEdge(Node* src, Node* dst);
  // Removes nodes [first, num_nodes()) and their edges: undoes a failed extension, which
  // must leave the graph as it was.
  void RemoveNodesSince(int first);

  Node* FindNode(const std::string& name) const;
  // Nodes in the order they were added (a topological order).
  const std::vector<Node*>& nodes() const { return nodes_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const OpRegistry& registry() const { return *registry_; }

  // A name not yet used, built from `base` ("add", "add_1", ...).
  std::string UniqueName(const std::string& base) const;

  // The functions the graph's nodes may call (GraphDef.library), by name. Adding one
  // that exists with another body is InvalidArgument naming it; the same body again is ok.
  absl::Status AddFunction(const FunctionDef& fn);
  const FunctionDef* FindFunction(const std::string& name) const;
  const FunctionDefLibrary& library() const { return library_; }

  GraphDef ToGraphDef() const;
  // Nodes [first, num_nodes()) only: what was added since an earlier export (with the
  // whole function library, which importing merges by name).
  GraphDef ToGraphDefSince(int first) const;

 private:
  const OpRegistry* registry_;
  std::vector<std::unique_ptr<Node>> owned_nodes_;
  std::vector<Node*> nodes_;
  std::vector<std::unique_ptr<Edge>> edges_;
  absl::flat_hash_map<std::string, Node*> by_name_;
  mutable absl::flat_hash_map<std::string, int> name_counters_;
  FunctionDefLibrary library_;
  absl::flat_hash_map<std::string, int> function_index_;  // name -> position in library_
};

// Checks a node name: [A-Za-z0-9._][A-Za-z0-9_./-]*
bool IsValidNodeName(const std::string& name);
// Prefixes an error with the node it concerns: "node 'y' (Add): ...", keeping the code.
absl::Status NodeError(const std::string& name, const std::string& op, const absl::Status& status);
// Splits "node:3" / "^node" into name and index (kControlSlot for "^").
absl::Status ParseTensorName(const std::string& input, std::string* node, int* index);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_GRAPH_H_
