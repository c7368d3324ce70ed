#include "tensorweave/graph.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/device_name.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"

namespace tw {

const std::string& Operation::name() const { return node_->name(); }
const std::string& Operation::type() const { return node_->op(); }
const std::string& Operation::device() const { return node_->requested_device(); }
int Operation::num_outputs() const { return node_->num_outputs(); }
Output Operation::output(int i) const {
  if (i < 0 || i >= num_outputs()) {
    throw StatusError(absl::OutOfRangeError(
        absl::StrCat("operation '", name(), "' has ", num_outputs(), " outputs, not ", i + 1)));
  }
  return Output(*this, i);
}

DType Output::dtype() const { return op_.node()->output_type(index_); }
PartialShape Output::shape() const { return op_.node()->output_shape(index_); }
std::string Output::name() const { return absl::StrCat(op_.name(), ":", index_); }

Graph::Graph() : graph_(std::make_unique<FlowGraph>()) {}
Graph::~Graph() = default;

ScopeGuard Graph::name_scope(const std::string& name) {
  // As TensorFlow: "a/b/" re-enters exactly that scope and "" returns to the top level,
  // whatever the enclosing scopes (get_variable names variables this way).
  if (name.empty() || name.back() == '/') {
    const std::string absolute = name.empty() ? "" : name.substr(0, name.size() - 1);
    if (!name.empty() && !IsValidNodeName(absolute)) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat("invalid name scope '", name, "'")));
    }
    std::vector<std::string> saved = std::move(name_scopes_);
    name_scopes_.clear();
    if (!absolute.empty()) name_scopes_.push_back(absolute);
    return ScopeGuard([this, saved = std::move(saved)] { name_scopes_ = saved; });
  }
  if (!IsValidNodeName(name)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("invalid name scope '", name, "'")));
  }
  name_scopes_.push_back(name);
  return ScopeGuard([this] { name_scopes_.pop_back(); });
}

std::string Graph::current_name_scope() const { return absl::StrJoin(name_scopes_, "/"); }

ScopeGuard Graph::device(const std::string& device) {
  device_scopes_.push_back(DeviceScope{ValueOrThrow(CanonicalDeviceName(device)), nullptr});
  return ScopeGuard([this] { device_scopes_.pop_back(); });
}

ScopeGuard Graph::device(DeviceFunction fn) {
  if (!fn) throw StatusError(absl::InvalidArgumentError("Graph::device: empty device function"));
  device_scopes_.push_back(DeviceScope{"", std::move(fn)});
  return ScopeGuard([this] { device_scopes_.pop_back(); });
}

StatusOr<std::string> Graph::ScopedDevice(const DeviceFunctionInput& op) const {
  std::string device;
  for (auto scope = device_scopes_.rbegin(); scope != device_scopes_.rend(); ++scope) {
    if (!scope->function) {
      // What inner scopes set wins; the outer string fills the rest.
      TW_ASSIGN_OR_RETURN(device, MergeDeviceNames(scope->device, device));
      continue;
    }
    std::string chosen;
    try {
      chosen = scope->function(DeviceFunctionInput{op.op_type, op.name, device, op.attrs});
    } catch (const StatusError& e) {
      return e.status();
    }
    auto canonical = CanonicalDeviceName(chosen);
    if (!canonical.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("device function chose an invalid device for '",
                                                     op.name, "': ", canonical.status().message()));
    }
    device = *std::move(canonical);
  }
  return device;
}

ScopeGuard Graph::colocate_with(const Operation& op) {
  colocation_scopes_.push_back(op);
  return ScopeGuard([this] { colocation_scopes_.pop_back(); });
}

ScopeGuard Graph::control_dependencies(const std::vector<Operation>& deps) {
  control_scopes_.push_back(deps);
  return ScopeGuard([this] { control_scopes_.pop_back(); });
}

ScopeGuard Graph::control_dependencies(const std::vector<Output>& deps) {
  std::vector<Operation> ops;
  for (const Output& o : deps) ops.push_back(o.op());
  return control_dependencies(ops);
}

std::string Graph::unique_name(const std::string& name) const {
  if (name_scopes_.empty()) return unique_unscoped_name(name);
  return unique_unscoped_name(absl::StrCat(absl::StrJoin(name_scopes_, "/"), "/", name));
}

std::string Graph::unique_unscoped_name(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return graph_->UniqueName(name);
}

StatusOr<Operation> Graph::TryAddOperation(const std::string& op, const std::string& name,
                                           const std::vector<Output>& inputs,
                                           const std::map<std::string, AttrValue>& attrs) {
  const std::string base = name.empty() ? op : name;
  NodeSpec spec{unique_name(base), op, {}, "", attrs};
  if (auto def = graph_->registry().Find(op); def.ok()) {
    std::vector<DType> types;
    for (const Output& in : inputs) types.push_back(in.op().valid() ? in.dtype() : DType::kInvalid);
    InferAttrsFromInputs(**def, types, spec.attrs);
  }
  TW_ASSIGN_OR_RETURN(spec.device, ScopedDevice(DeviceFunctionInput{op, spec.name, "", spec.attrs}));
  if (!colocation_scopes_.empty()) {
    const Operation& with = colocation_scopes_.back();
    spec.device = with.device();
    spec.attrs["_class"] = MakeAttr(absl::Span<const std::string>(std::vector<std::string>{"loc:@" + with.name()}));
  }
  for (const Output& in : inputs) {
    if (in.graph() != this) {
      return absl::InvalidArgumentError(
          absl::StrCat("input '", in.op().valid() ? in.name() : "<empty>", "' of new op '",
                       spec.name, "' is not from this graph"));
    }
    spec.inputs.push_back(NodeInput{in.op().node(), in.index()});
  }
  for (const auto& scope : control_scopes_) {
    for (const Operation& dep : scope) spec.inputs.push_back(NodeInput{dep.node(), kControlSlot});
  }
  std::lock_guard<std::mutex> lock(mu_);
  // Another thread may have taken the name since; the device function saw the first one.
  if (graph_->FindNode(spec.name) != nullptr) {
    spec.name = graph_->UniqueName(name_scopes_.empty() ? base : absl::StrCat(current_name_scope(), "/", base));
  }
  TW_ASSIGN_OR_RETURN(Node * node, graph_->AddNode(std::move(spec)));
  return Operation(this, node);
}

Operation Graph::AddUnscopedNode(NodeSpec spec) {
  std::lock_guard<std::mutex> lock(mu_);
  spec.name = graph_->UniqueName(spec.name);
  return Operation(this, ValueOrThrow(graph_->AddNode(std::move(spec))));
}

Operation Graph::AddOperation(const std::string& op, const std::string& name,
                              const std::vector<Output>& inputs,
                              const std::map<std::string, AttrValue>& attrs) {
  return ValueOrThrow(TryAddOperation(op, name, inputs, attrs));
}

Operation Graph::operation(const std::string& name) {
  Node* node;
  {
    std::lock_guard<std::mutex> lock(mu_);
    node = graph_->FindNode(name);
  }
  if (node == nullptr) {
    throw StatusError(absl::NotFoundError(absl::StrCat("the graph has no operation '", name, "'")));
  }
  return Operation(this, node);
}

Output Graph::tensor(const std::string& name) {
  std::string node;
  int index;
  ThrowIfError(ParseTensorName(name, &node, &index));
  return operation(node).output(index);
}

std::vector<Operation> Graph::operations() {
  std::vector<Operation> ops;
  std::lock_guard<std::mutex> lock(mu_);
  for (Node* n : graph_->nodes()) ops.emplace_back(this, n);
  return ops;
}

void Graph::add_to_collection(const std::string& name, Output value) {
  collections_[name].push_back(value);
}

std::vector<Output> Graph::get_collection(const std::string& name) const {
  auto it = collections_.find(name);
  return it == collections_.end() ? std::vector<Output>{} : it->second;
}

std::pair<int64_t, int64_t> Graph::NextSeeds(int64_t op_seed) {
  if (seed_ == 0 && op_seed == 0) return {0, 0};
  // As TensorFlow: a graph seed with no op seed gives each op its own counter-based seed.
  if (op_seed == 0) op_seed = ++op_seed_counter_;
  return {seed_ != 0 ? seed_ : 87654321, op_seed};
}

GraphDef Graph::ToGraphDef() const {
  std::lock_guard<std::mutex> lock(mu_);
  return graph_->ToGraphDef();
}

GraphDef Graph::ToGraphDefSince(int first, int* end) const {
  std::lock_guard<std::mutex> lock(mu_);
  *end = graph_->num_nodes();
  return graph_->ToGraphDefSince(first);
}

void Graph::Import(const GraphDef& def) {
  std::lock_guard<std::mutex> lock(mu_);
  ThrowIfError(ImportGraphDef(def, graph_.get()));
}

int Graph::num_operations() const {
  std::lock_guard<std::mutex> lock(mu_);
  return graph_->num_nodes();
}

}  // namespace tw
