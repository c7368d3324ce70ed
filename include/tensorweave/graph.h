// The graph-building API: a Graph, the Operations in it and their Outputs, with
// TensorFlow 1.x's scoping: name scopes, device scopes (strings or device functions)
// and control dependencies. Calls throw tw::StatusError on invalid input.
//
//   tw::Graph g;
//   auto x = tw::constant(g, 2);
//   auto y = (x + 300) + (x - 66);
//   { auto on = g.device("/job:local/task:1"); ... }
#ifndef TENSORWEAVE_GRAPH_H_
#define TENSORWEAVE_GRAPH_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tensorweave/dtype.h"
#include "tensorweave/status.h"
#include "tensorweave/tensor.h"

namespace tensorweave {  // the generated protobuf classes (proto/graph.proto)
class AttrValue;
class GraphDef;
}  // namespace tensorweave

namespace tw {

class FlowGraph;
class Node;
struct NodeSpec;
using ::tensorweave::AttrValue;
using ::tensorweave::GraphDef;
class Graph;

class Operation {
 public:
  Operation() = default;
  Operation(Graph* graph, Node* node) : graph_(graph), node_(node) {}
  const std::string& name() const;
  const std::string& type() const;  // The op name, e.g. "MatMul".
  const std::string& device() const;  // As requested when built.
  int num_outputs() const;
  class Output output(int i) const;
  Graph* graph() const { return graph_; }
  Node* node() const { return node_; }
  bool valid() const { return node_ != nullptr; }

 private:
  Graph* graph_ = nullptr;
  Node* node_ = nullptr;
};

class Output {
 public:
  Output() = default;
  Output(Operation op, int index) : op_(op), index_(index) {}
  const Operation& op() const { return op_; }
  int index() const { return index_; }
  DType dtype() const;
  PartialShape shape() const;  // Statically inferred; may be partial.
  std::string name() const;   // "node:index"
  Graph* graph() const { return op_.graph(); }

 private:
  Operation op_;
  int index_ = 0;
};

// What a device function sees of a new operation (TensorFlow passes the op itself).
struct DeviceFunctionInput {
  const std::string& op_type;  // e.g. "VarHandleOp"
  const std::string& name;     // The unique, scoped node name.
  // The device chosen so far by the device scopes inside this function's scope
  // (canonical, possibly partial; "" when none).
  const std::string& device;
  const std::map<std::string, AttrValue>& attrs;  // As given, with inferred type attrs.
};
// Chooses the device for a new operation (e.g. variables to ps tasks). As in TensorFlow,
// its result replaces `device` (merge it yourself to keep inner scopes' fields); return
// `input.device` to change nothing. An invalid device name fails the new op.
using DeviceFunction = std::function<std::string(const DeviceFunctionInput& input)>;

// Undoes one scope push when it goes out of scope.
class [[nodiscard]] ScopeGuard {
 public:
  explicit ScopeGuard(std::function<void()> pop) : pop_(std::move(pop)) {}
  ScopeGuard(ScopeGuard&& other) noexcept : pop_(std::move(other.pop_)) { other.pop_ = nullptr; }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;
  ~ScopeGuard() {
    if (pop_) pop_();
  }

 private:
  std::function<void()> pop_;
};

class Graph {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Names inside get "scope/"; scopes nest; as TF, "a/b/" re-enters a/b and "" the top.
  ScopeGuard name_scope(const std::string& name);
  // The open name scopes joined with "/" ("" at the top), as TF's get_name_scope().
  std::string current_name_scope() const;
  // Device for ops created inside, merged field by field with enclosing scopes
  // ("/job:ps" then "/task:1" gives "/job:ps/task:1"). Malformed names throw.
  // As TensorFlow, scopes apply innermost first: a device string fills only the fields
  // still unset, a device function replaces the device with its result (and sees the
  // op's attrs). Device functions run even for ops under colocate_with (as in TF), whose
  // device the colocation then overrides.
  ScopeGuard device(const std::string& device);
  ScopeGuard device(DeviceFunction fn);
  // Ops created inside are placed with `op` (its device, ignoring device scopes), as
  // TensorFlow's colocate_with; used for the ops that read and update a variable.
  ScopeGuard colocate_with(const Operation& op);
  // Ops created inside run only after `deps` (accumulates with enclosing scopes).
  ScopeGuard control_dependencies(const std::vector<Operation>& deps);
  ScopeGuard control_dependencies(const std::vector<Output>& deps);

  // Adds one operation. `name` is a hint made unique within the graph and prefixed by
  // the current name scope; attrs are checked against the op's schema; shapes are
  // inferred. Throws StatusError (InvalidArgument naming the node) on any error.
  Operation AddOperation(const std::string& op, const std::string& name,
                         const std::vector<Output>& inputs,
                         const std::map<std::string, AttrValue>& attrs);
  // The node name AddOperation would give `name` now (scoped and made unique), as TF's
  // Graph.unique_name.
  std::string unique_name(const std::string& name) const;
  // A node name not yet used, built from `name` as given (no name scope applied).
  std::string unique_unscoped_name(const std::string& name) const;
  // As AddOperation but returns the error instead of throwing.
  StatusOr<Operation> TryAddOperation(const std::string& op, const std::string& name,
                                      const std::vector<Output>& inputs,
                                      const std::map<std::string, AttrValue>& attrs);

  Operation operation(const std::string& name);  // Throws NotFound when missing.
  Output tensor(const std::string& name);         // "node" or "node:k"; throws NotFound.
  std::vector<Operation> operations();

  // Named collections of operations/outputs (TensorFlow's add_to_collection).
  void add_to_collection(const std::string& name, Output value);
  std::vector<Output> get_collection(const std::string& name) const;

  // The graph-level random seed; ops without their own seed derive one from it.
  void set_seed(int64_t seed) { seed_ = seed; }
  int64_t seed() const { return seed_; }
  // The (seed, seed2) pair for a new random op: 0,0 when nothing is set.
  std::pair<int64_t, int64_t> NextSeeds(int64_t op_seed);

  // Adds a node as specified (no name, device or control scope applies), its name made
  // unique: for library code that builds ops at run time (the Saver's save ops).
  Operation AddUnscopedNode(NodeSpec spec);

  GraphDef ToGraphDef() const;
  // The nodes from index `first` on (what was added since an earlier export), and in
  // *end the node count they reach: one consistent snapshot while other threads add.
  GraphDef ToGraphDefSince(int first, int* end) const;
  // Adds the nodes of a GraphDef (validated) to this graph.
  void Import(const GraphDef& def);
  FlowGraph& flow_graph() { return *graph_; }
  const FlowGraph& flow_graph() const { return *graph_; }
  int num_operations() const;

 private:
  std::unique_ptr<FlowGraph> graph_;
  // Guards graph_: ops may be added from several threads (a Supervisor's checkpoint
  // thread builds save ops while the training thread runs steps, as TF's graph lock).
  // Scopes below are per builder thread and not guarded, as in TF.
  mutable std::mutex mu_;
  std::vector<std::string> name_scopes_;
  // One device scope: a canonical device string, or a function when `function` is set.
  struct DeviceScope {
    std::string device;
    DeviceFunction function;
  };
  // The device of a new op from the device scopes, innermost first.
  StatusOr<std::string> ScopedDevice(const DeviceFunctionInput& op) const;
  std::vector<DeviceScope> device_scopes_;  // Outermost first.
  std::vector<std::vector<Operation>> control_scopes_;
  std::vector<Operation> colocation_scopes_;
  std::map<std::string, std::vector<Output>> collections_;
  int64_t seed_ = 0;
  int64_t op_seed_counter_ = 0;
};

}  // namespace tw

#endif  // TENSORWEAVE_GRAPH_H_
