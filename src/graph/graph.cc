#include "graph/graph.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "tensorweave/status.h"

namespace tw {

bool IsValidNodeName(const std::string& name) {
  if (name.empty()) return false;
  auto ok_first = [](char c) { return absl::ascii_isalnum(c) || c == '.' || c == '_'; };
  auto ok_rest = [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '/' || c == '-';
  };
  if (!ok_first(name[0])) return false;
  for (char c : name)
    if (!ok_rest(c)) return false;
  return true;
}

absl::Status NodeError(const std::string& name, const std::string& op, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("node '", name, "' (", op.empty() ? "?" : op, "): ", status.message()));
}

absl::Status ParseTensorName(const std::string& input, std::string* node, int* index) {
  if (input.empty()) return absl::InvalidArgumentError("empty input name");
  if (input[0] == '^') {
    *node = input.substr(1);
    *index = kControlSlot;
  } else if (auto colon = input.rfind(':'); colon != std::string::npos) {
    *node = input.substr(0, colon);
    if (!absl::SimpleAtoi(input.substr(colon + 1), index) || *index < 0) {
      return absl::InvalidArgumentError(absl::StrCat("malformed input name '", input, "'"));
    }
  } else {
    *node = input;
    *index = 0;
  }
  if (node->empty()) return absl::InvalidArgumentError(absl::StrCat("malformed input name '", input, "'"));
  return absl::OkStatus();
}

NodeDef Node::ToNodeDef() const {
  NodeDef def;
  def.set_name(name_);
  def.set_op(op());
  for (const Edge* e : data_inputs_) {
    def.add_input(e->src_output == 0 ? e->src->name()
                                     : absl::StrCat(e->src->name(), ":", e->src_output));
  }
  for (const Edge* e : control_inputs_) def.add_input("^" + e->src->name());
  def.set_device(requested_device_);
  for (const auto& [k, v] : attrs_) (*def.mutable_attr())[k] = v;
  return def;
}

absl::StatusOr<NodeInput> FlowGraph::ResolveInput(const std::string& input) const {
  std::string name;
  int index;
  TW_RETURN_IF_ERROR(ParseTensorName(input, &name, &index));
  Node* n = FindNode(name);
  if (n == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("input '", input, "' names no node"));
  }
  return NodeInput{n, index};
}

std::string FlowGraph::UniqueName(const std::string& base) const {
  if (!by_name_.contains(base)) return base;
  // The counter only remembers suffixes known to be taken, so asking twice before adding
  // gives the same name (Graph::unique_name) and a long run of one base stays linear.
  int& counter = name_counters_[base];
  int k = counter;
  std::string name;
  do {
    name = absl::StrCat(base, "_", ++k);
  } while (by_name_.contains(name));
  counter = k - 1;
  return name;
}

Node* FlowGraph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

void FlowGraph::RemoveNodesSince(int first) {
  if (first >= num_nodes()) return;
  absl::flat_hash_set<const Node*> removed(nodes_.begin() + first, nodes_.end());
  auto touches_removed = [&](const Edge* e) { return removed.contains(e->src) || removed.contains(e->dst); };
  for (int i = 0; i < first; ++i) {
    auto& out = nodes_[i]->out_edges_;
    out.erase(std::remove_if(out.begin(), out.end(), touches_removed), out.end());
  }
  edges_.erase(std::remove_if(edges_.begin(), edges_.end(),
                              [&](const std::unique_ptr<Edge>& e) { return touches_removed(e.get()); }),
               edges_.end());
  for (const Node* n : removed) by_name_.erase(n->name());
  nodes_.resize(first);
  owned_nodes_.resize(first);
}

void FlowGraph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->control_inputs_)
    if (e->src == src) return;
  edges_.push_back(std::make_unique<Edge>(Edge{src, kControlSlot, dst, kControlSlot}));
  dst->control_inputs_.push_back(edges_.back().get());
  src->out_edges_.push_back(edges_.back().get());
}

namespace {

// The declared shape of the variable a resource output names, followed through Identity
// (TF's handle shape data): reads of it then have a static shape, as in TF.
PartialShape DeclaredVariableShape(const Node* node, int index) {
  for (int hops = 0; hops < 64 && node->output_type(index) == DType::kResource; ++hops) {
    if (node->op() == "VarHandleOp") {
      auto shape = GetShapeAttr(node->attrs(), "shape");
      return shape.ok() ? *shape : PartialShape::UnknownRank();
    }
    if (node->op() != "Identity" || node->num_inputs() != 1) break;
    const Edge* in = node->input_edge(0);
    node = in->src;
    index = in->src_output;
  }
  return PartialShape::UnknownRank();
}

}  // namespace

absl::StatusOr<Node*> FlowGraph::AddNode(NodeSpec spec) {
  if (!IsValidNodeName(spec.name)) {
    return absl::InvalidArgumentError(absl::StrCat("node name '", spec.name,
                                                   "' is not valid (use letters, digits, _ . / -)"));
  }
  auto err = [&](const absl::Status& s) { return NodeError(spec.name, spec.op, s); };
  if (by_name_.contains(spec.name)) {
    return err(absl::InvalidArgumentError("duplicate node name"));
  }
  auto found = registry_->Find(spec.op);
  if (!found.ok()) return err(absl::InvalidArgumentError(found.status().message()));
  const OpDef& op = **found;

  auto node = std::make_unique<Node>();
  node->name_ = spec.name;
  node->op_def_ = &op;
  node->requested_device_ = spec.device;
  node->attrs_ = std::move(spec.attrs);
  if (auto s = ValidateAndCompleteAttrs(op, node->attrs_); !s.ok()) return err(s);
  auto in_types = ArgTypes(op, op.inputs, node->attrs_);
  if (!in_types.ok()) return err(in_types.status());
  auto out_types = ArgTypes(op, op.outputs, node->attrs_);
  if (!out_types.ok()) return err(out_types.status());
  node->input_types_ = *std::move(in_types);
  node->output_types_ = *std::move(out_types);

  // Data inputs come first, control inputs after.
  std::vector<NodeInput> data, control;
  for (const NodeInput& in : spec.inputs) {
    if (in.node == nullptr) return err(absl::InvalidArgumentError("null input"));
    if (in.index == kControlSlot) {
      control.push_back(in);
    } else {
      if (!control.empty()) {
        return err(absl::InvalidArgumentError("data input listed after a control input"));
      }
      data.push_back(in);
    }
  }
  if (data.size() != node->input_types_.size()) {
    return err(absl::InvalidArgumentError(absl::StrCat(
        "expects ", node->input_types_.size(), " inputs but was given ", data.size())));
  }
  std::vector<PartialShape> in_shapes;
  std::vector<const Tensor*> in_values;
  for (size_t i = 0; i < data.size(); ++i) {
    const NodeInput& in = data[i];
    if (in.index >= in.node->num_outputs()) {
      return err(absl::InvalidArgumentError(absl::StrCat("input ", i, " names output ", in.index,
                                                         " of '", in.node->name(), "', which has ",
                                                         in.node->num_outputs(), " outputs")));
    }
    DType got = in.node->output_type(in.index);
    if (got != node->input_types_[i]) {
      return err(absl::InvalidArgumentError(
          absl::StrCat("input ", i, " ('", in.node->name(), ":", in.index, "') is ", DTypeName(got),
                       " but the op expects ", DTypeName(node->input_types_[i]))));
    }
    in_shapes.push_back(in.node->output_shape(in.index));
    in_values.push_back(in.index == 0 ? in.node->const_value() : nullptr);
  }

  if (op.name == "Const") {
    auto value = GetTensorAttr(node->attrs_, "value");
    if (!value.ok()) return err(value.status());
    DType dtype = *GetTypeAttr(node->attrs_, "dtype");
    if (value->dtype() != dtype) {
      return err(absl::InvalidArgumentError(absl::StrCat(
          "value is ", DTypeName(value->dtype()), " but dtype is ", DTypeName(dtype))));
    }
    node->const_value_ = std::make_unique<Tensor>(*std::move(value));
  }

  InferenceContext ctx(&node->attrs_, node->input_types_, std::move(in_shapes), std::move(in_values),
                       node->num_outputs());
  std::vector<PartialShape> handle_shapes;
  for (const NodeInput& in : data) handle_shapes.push_back(DeclaredVariableShape(in.node, in.index));
  ctx.set_input_handle_shapes(std::move(handle_shapes));
  if (auto s = op.shape_fn(ctx); !s.ok()) return err(absl::InvalidArgumentError(s.message()));
  node->output_shapes_ = ctx.TakeOutputs();

  Node* n = node.get();
  n->id_ = static_cast<int>(owned_nodes_.size());
  for (size_t i = 0; i < data.size(); ++i) {
    edges_.push_back(std::make_unique<Edge>(Edge{data[i].node, data[i].index, n, static_cast<int>(i)}));
    n->data_inputs_.push_back(edges_.back().get());
    data[i].node->out_edges_.push_back(edges_.back().get());
  }
  owned_nodes_.push_back(std::move(node));
  nodes_.push_back(n);
  by_name_[n->name_] = n;
  for (const NodeInput& c : control) AddControlEdge(c.node, n);
  return n;
}

// The GraphDef version written: TF 1.15's TF_GRAPH_DEF_VERSION. TensorFlow imports a graph
// when producer >= its min_consumer (0) and applies the op deprecations due by 134, the
// semantics these graphs have (producer 1 asked TF for the behaviour of its first graphs).
constexpr int kGraphDefProducer = 134;

absl::Status FlowGraph::AddFunction(const FunctionDef& fn) {
  const std::string& name = fn.signature().name();
  if (name.empty()) return absl::InvalidArgumentError("a function in the library has no name");
  auto it = function_index_.find(name);
  if (it != function_index_.end()) {
    // Compared as messages: a FunctionDef's maps (attr, ret, its nodes' attrs) serialize
    // in no fixed order, so the same body parsed twice (a client's Extend) may differ in bytes.
    if (google::protobuf::util::MessageDifferencer::Equals(library_.function(it->second), fn)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat("function '", name, "' is already defined with another body"));
  }
  function_index_[name] = library_.function_size();
  *library_.add_function() = fn;
  return absl::OkStatus();
}

const FunctionDef* FlowGraph::FindFunction(const std::string& name) const {
  auto it = function_index_.find(name);
  return it == function_index_.end() ? nullptr : &library_.function(it->second);
}

GraphDef FlowGraph::ToGraphDefSince(int first) const {
  GraphDef def;
  def.mutable_versions()->set_producer(kGraphDefProducer);
  if (library_.function_size() > 0) *def.mutable_library() = library_;
  for (int i = first; i < num_nodes(); ++i) *def.add_node() = nodes_[i]->ToNodeDef();
  return def;
}

GraphDef FlowGraph::ToGraphDef() const { return ToGraphDefSince(0); }

}  // namespace tw
