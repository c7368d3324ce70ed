#include "graph/ref_variable_lowering.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// A ref op: what it becomes, which inputs are refs, its dtype attr and the resource op's
// (null: none), the attrs carried over.
struct RefOpInfo {
  const char* resource_op;
  std::vector<int> ref_inputs;
  const char* type_attr;
  const char* resource_type_attr;
  std::vector<const char*> kept_attrs;
  bool has_output;  // the resource op has an output of its own (the new value, a bool)
};

const absl::flat_hash_map<std::string, RefOpInfo>& RefOps() {
  static const auto* ops = new absl::flat_hash_map<std::string, RefOpInfo>{
      {"Assign", {"AssignVariableOp", {0}, "T", "dtype", {"validate_shape"}, true}},
      {"AssignAdd", {"AssignAddVariableOp", {0}, "T", "dtype", {}, true}},
      {"AssignSub", {"AssignSubVariableOp", {0}, "T", "dtype", {}, true}},
      {"IsVariableInitialized", {"VarIsInitializedOp", {0}, "dtype", nullptr, {}, true}},
      {"ApplyGradientDescent", {"ResourceApplyGradientDescent", {0}, "T", "T", {"use_locking"}, false}},
      {"ApplyMomentum", {"ResourceApplyMomentum", {0, 1}, "T", "T", {"use_locking", "use_nesterov"}, false}},
      {"ApplyAdagrad", {"ResourceApplyAdagrad", {0, 1}, "T", "T", {"use_locking", "update_slots"}, false}},
      {"ApplyRMSProp", {"ResourceApplyRMSProp", {0, 1, 2}, "T", "T", {"use_locking"}, false}},
      {"ApplyCenteredRMSProp", {"ResourceApplyCenteredRMSProp", {0, 1, 2, 3}, "T", "T", {"use_locking"}, false}},
      {"ApplyAdam", {"ResourceApplyAdam", {0, 1, 2}, "T", "T", {"use_locking", "use_nesterov"}, false}},
      {"ScatterUpdate", {"ResourceScatterUpdate", {0}, "T", "dtype", {"Tindices"}, false}},
      {"ScatterAdd", {"ResourceScatterAdd", {0}, "T", "dtype", {"Tindices"}, false}},
      {"ScatterSub", {"ResourceScatterSub", {0}, "T", "dtype", {"Tindices"}, false}},
      {"ScatterMul", {"ResourceScatterMul", {0}, "T", "dtype", {"Tindices"}, false}},
      {"ScatterDiv", {"ResourceScatterDiv", {0}, "T", "dtype", {"Tindices"}, false}},
      {"ScatterMin", {"ResourceScatterMin", {0}, "T", "dtype", {"Tindices"}, false}},
      {"ScatterMax", {"ResourceScatterMax", {0}, "T", "dtype", {"Tindices"}, false}},
      {"SparseApplyProximalGradientDescent",
       {"ResourceSparseApplyProximalGradientDescent", {0}, "T", "T", {"use_locking", "Tindices"}, false}},
      {"SparseApplyMomentum",
       {"ResourceSparseApplyMomentum", {0, 1}, "T", "T", {"use_locking", "Tindices", "use_nesterov"}, false}},
      {"SparseApplyAdagrad",
       {"ResourceSparseApplyAdagrad", {0, 1}, "T", "T", {"use_locking", "Tindices", "update_slots"}, false}},
      {"SparseApplyRMSProp", {"ResourceSparseApplyRMSProp", {0, 1, 2}, "T", "T", {"use_locking", "Tindices"}, false}},
  };
  return *ops;
}

// TemporaryVariable too: a variable of one step, which DestroyTemporaryVariable reads and destroys.
bool IsVariableOp(const std::string& op) {
  return op == "VariableV2" || op == "Variable" || op == "TemporaryVariable";
}

// A ref op whose output is its (updated) variable: a later ref input may name that output.
bool ForwardsRef(const std::string& op) { return RefOps().contains(op) && op != "IsVariableInitialized"; }

struct VarInfo {
  DType dtype;
  std::string device;
  std::string handle;  // the VarHandleOp's name
};

class Lowering {
 public:
  Lowering(const GraphDef& def, const FlowGraph& graph) : def_(def), graph_(graph) {}

  absl::StatusOr<GraphDef> Run() {
    for (const NodeDef& n : def_.node()) {
      def_names_.insert(n.name());
      def_nodes_[n.name()] = &n;
    }
    taken_ = def_names_;
    TW_RETURN_IF_ERROR(CollectVariables());
    for (const NodeDef& n : def_.node()) TW_RETURN_IF_ERROR(LowerNode(n));
    return std::move(out_);
  }

 private:
  absl::Status CollectVariables() {
    // TF's Assign with validate_shape=false may give its variable any shape: such a
    // variable's handle declares none.
    absl::flat_hash_set<std::string> reshaped;
    for (const NodeDef& n : def_.node()) {
      auto vs = n.attr().find("validate_shape");
      if (n.op() == "Assign" && n.input_size() > 0 && vs != n.attr().end() && !vs->second.b()) {
        reshaped.insert(n.input(0));
      }
    }
    for (const NodeDef& n : def_.node()) {
      if (!IsVariableOp(n.op())) continue;
      TW_ASSIGN_OR_RETURN(AttrMap attrs, CompletedAttrs(n));
      TW_ASSIGN_OR_RETURN(DType dtype, GetTypeAttr(attrs, "dtype"));
      const VarInfo& info = vars_[n.name()] = {dtype, n.device(), FreshName(n.name() + "/handle")};
      NodeDef* h = out_.add_node();
      h->set_name(info.handle);
      h->set_op("VarHandleOp");
      h->set_device(n.device());
      const bool temporary = n.op() == "TemporaryVariable";
      std::string shared_name = temporary ? attrs.at("var_name").s() : attrs.at("shared_name").s();
      for (const auto& [k, v] : attrs) {
        if (k == "shared_name" || k == "var_name" || k == "_output_shapes") continue;
        (*h->mutable_attr())[k] = v;
      }
      (*h->mutable_attr())["shared_name"] = MakeAttr(shared_name.empty() ? n.name() : shared_name);
      if (reshaped.contains(n.name())) (*h->mutable_attr())["shape"] = MakeAttr(PartialShape::UnknownRank());
      // Fetching "v:0" gives the value in TF1; so does fetching this read.
      NodeDef* read = out_.add_node();
      read->set_name(n.name());
      AddRead(read, info, NodeDef());
      for (const auto& [k, v] : attrs)
        if (k[0] == '_' && k != "_output_shapes") (*read->mutable_attr())[k] = v;
    }
    return absl::OkStatus();
  }

  // The node's attrs, completed with defaults and checked against its schema.
  absl::StatusOr<AttrMap> CompletedAttrs(const NodeDef& n) const {
    auto op = graph_.registry().Find(n.op());
    if (!op.ok()) return NodeError(n.name(), n.op(), op.status());
    AttrMap attrs(n.attr().begin(), n.attr().end());
    if (auto s = ValidateAndCompleteAttrs(**op, attrs); !s.ok()) return NodeError(n.name(), n.op(), s);
    return attrs;
  }

  std::string FreshName(const std::string& base) {
    std::string name = base;
    for (int k = 1; taken_.contains(name) || graph_.FindNode(name) != nullptr; ++k) name = absl::StrCat(base, "_", k);
    taken_.insert(name);
    return name;
  }

  // The variable a ref input names, with its dtype: one of def's variables or a VarHandleOp
  // an earlier extension already lowered.
  // `after` gets the control inputs a forwarded ref implies: Assign(v, x) -> AssignAdd(that, y)
  // updates v after the Assign.
  absl::StatusOr<std::pair<std::string, VarInfo>> RefInput(const NodeDef& n, int i,
                                                           std::vector<std::string>* after) const {
    auto err = [&](const std::string& why) {
      return NodeError(n.name(), n.op(), absl::InvalidArgumentError(why));
    };
    if (i >= n.input_size()) return err(absl::StrCat("has ", n.input_size(), " inputs; input ", i, " is missing"));
    std::string src;
    int slot;
    TW_RETURN_IF_ERROR(ParseTensorName(n.input(i), &src, &slot));
    if (slot == kControlSlot) return err(absl::StrCat("has ", i, " data inputs; input ", i, " is missing"));
    auto v = vars_.find(src);
    if (v != vars_.end() && slot == 0) return std::make_pair(src, v->second);
    if (auto fwd = def_nodes_.find(src); v == vars_.end() && slot == 0 && fwd != def_nodes_.end() &&
                                         ForwardsRef(fwd->second->op())) {
      after->push_back("^" + src);
      return RefInput(*fwd->second, 0, after);
    }
    if (v == vars_.end() && slot == 0) {
      // A variable an earlier extension lowered: its name is a read of its handle.
      const Node* existing = graph_.FindNode(src);
      if (!def_names_.contains(src) && existing != nullptr && existing->op() == "ReadVariableOp" &&
          existing->input_edge(0)->src->op() == "VarHandleOp") {
        const Node* handle = existing->input_edge(0)->src;
        auto dtype = GetTypeAttr(handle->attrs(), "dtype");
        if (dtype.ok()) return std::make_pair(src, VarInfo{*dtype, handle->requested_device(), handle->name()});
      }
    }
    return err(absl::StrCat("input ", i, " ('", n.input(i),
                            "') must be a reference variable (the output of a VariableV2 node)"));
  }

  // Input `in` of a consumer, with a read inserted when it names a variable.
  absl::StatusOr<std::string> ValueInput(const NodeDef& consumer, const std::string& in) {
    std::string src;
    int slot;
    TW_RETURN_IF_ERROR(ParseTensorName(in, &src, &slot));
    auto v = vars_.find(src);
    if (v == vars_.end()) return in;
    if (slot == kControlSlot) return "^" + v->second.handle;  // after the variable exists
    if (slot != 0) {
      return NodeError(consumer.name(), consumer.op(),
                       absl::InvalidArgumentError(absl::StrCat("input '", in, "': variable '", src,
                                                               "' has one output")));
    }
    NodeDef* read = out_.add_node();
    read->set_name(FreshName(absl::StrCat(consumer.name(), "/read_", src)));
    AddRead(read, v->second, consumer);
    return read->name();
  }

  // `read` becomes ReadVariableOp(var) on the variable's device, after `after`'s control inputs.
  void AddRead(NodeDef* read, const VarInfo& info, const NodeDef& after) {
    read->set_op("ReadVariableOp");
    read->set_device(info.device);
    read->clear_input();
    read->add_input(info.handle);
    for (const std::string& in : after.input()) {
      if (in.empty() || in[0] != '^') continue;
      auto v = vars_.find(in.substr(1));
      read->add_input(v == vars_.end() ? in : "^" + v->second.handle);
    }
    (*read->mutable_attr())["dtype"] = MakeAttr(info.dtype);
  }

  // DestroyTemporaryVariable(ref) -> the variable's value, then the variable gone: a read,
  // DestroyResourceOp after it, and "<name>" the read's value once destroyed.
  absl::Status LowerDestroyTemporary(const NodeDef& n) {
    TW_ASSIGN_OR_RETURN(AttrMap attrs, CompletedAttrs(n));
    if (attrs.at("var_name").s().empty()) {
      return NodeError(n.name(), n.op(), absl::InvalidArgumentError("Missing var_name attribute"));
    }
    std::vector<std::string> after;
    TW_ASSIGN_OR_RETURN(auto var, RefInput(n, 0, &after));
    NodeDef* read = out_.add_node();
    read->set_name(FreshName(n.name() + "/read"));
    AddRead(read, var.second, n);
    for (const std::string& c : after) read->add_input(c);
    NodeDef* destroy = out_.add_node();
    destroy->set_name(FreshName(n.name() + "/destroy"));
    destroy->set_op("DestroyResourceOp");
    destroy->set_device(var.second.device);
    destroy->add_input(var.second.handle);
    destroy->add_input("^" + read->name());
    (*destroy->mutable_attr())["ignore_lookup_error"] = MakeAttr(false);
    NodeDef* value = out_.add_node();
    value->set_name(n.name());
    value->set_op("Identity");
    value->set_device(n.device());
    value->add_input(read->name());
    value->add_input("^" + destroy->name());
    (*value->mutable_attr())["T"] = MakeAttr(var.second.dtype);
    return absl::OkStatus();
  }

  absl::Status LowerNode(const NodeDef& n) {
    if (IsVariableOp(n.op())) return absl::OkStatus();  // done in CollectVariables
    if (n.op() == "DestroyTemporaryVariable") return LowerDestroyTemporary(n);
    auto ref = RefOps().find(n.op());
    if (ref == RefOps().end()) return LowerPlainNode(n);
    const RefOpInfo& info = ref->second;
    TW_ASSIGN_OR_RETURN(AttrMap attrs, CompletedAttrs(n));
    TW_ASSIGN_OR_RETURN(DType dtype, GetTypeAttr(attrs, info.type_attr));
    int data_inputs = 0;
    for (const std::string& in : n.input()) data_inputs += !in.empty() && in[0] != '^';
    const size_t wanted = (*graph_.registry().Find(n.op()))->inputs.size();
    if (static_cast<size_t>(data_inputs) != wanted) {
      return NodeError(n.name(), n.op(), absl::InvalidArgumentError(absl::StrCat(
                                             "has ", data_inputs, " data inputs; ", n.op(), " takes ", wanted)));
    }
    NodeDef lowered;
    lowered.set_name(n.name());
    lowered.set_op(info.resource_op);
    lowered.set_device(n.device());
    absl::flat_hash_set<int> refs(info.ref_inputs.begin(), info.ref_inputs.end());
    VarInfo first_info{};
    std::vector<std::string> after_forwarded;
    for (int i = 0; i < n.input_size(); ++i) {
      const std::string& in = n.input(i);
      if (refs.contains(i)) {
        TW_ASSIGN_OR_RETURN(auto var, RefInput(n, i, &after_forwarded));
        if (var.second.dtype != dtype) {
          return NodeError(n.name(), n.op(),
                           absl::InvalidArgumentError(absl::StrCat(
                               "input ", i, " ('", in, "') is a ", DTypeName(var.second.dtype), " variable but ",
                               info.type_attr, " is ", DTypeName(dtype))));
        }
        if (first_info.handle.empty()) first_info = var.second;
        lowered.add_input(var.second.handle);
        continue;
      }
      TW_ASSIGN_OR_RETURN(std::string value, ValueInput(n, in));
      lowered.add_input(value);
    }
    for (const std::string& c : after_forwarded) lowered.add_input(c);
    for (const auto& [k, v] : attrs) {
      if (k[0] == '_' && k != "_output_shapes") (*lowered.mutable_attr())[k] = v;
    }
    if (info.resource_type_attr != nullptr) (*lowered.mutable_attr())[info.resource_type_attr] = MakeAttr(dtype);
    for (const char* k : info.kept_attrs) (*lowered.mutable_attr())[k] = attrs.at(k);
    if (info.has_output) {
      *out_.add_node() = std::move(lowered);
      return absl::OkStatus();
    }
    // TF's op outputs the updated variable, which a consumer or a fetch may read: "<name>"
    // becomes that read, after the update (a read shares the variable's buffer: no copy).
    lowered.set_name(FreshName(n.name() + "/update"));
    NodeDef* read = out_.add_node();
    read->set_name(n.name());
    NodeDef after;
    after.add_input("^" + lowered.name());
    AddRead(read, first_info, after);
    *out_.add_node() = std::move(lowered);
    return absl::OkStatus();
  }

  absl::Status LowerPlainNode(const NodeDef& n) {
    NodeDef* copy = out_.add_node();
    *copy = n;
    // Identity(v), as TF's "v/read": the read itself.
    if (n.op() == "Identity" && n.input_size() >= 1) {
      std::string src;
      int slot;
      if (ParseTensorName(n.input(0), &src, &slot).ok() && slot == 0 && vars_.contains(src)) {
        const VarInfo& info = vars_.at(src);
        copy->clear_attr();
        for (const auto& [k, v] : n.attr())
          if (k[0] == '_' && k != "_output_shapes") (*copy->mutable_attr())[k] = v;
        AddRead(copy, info, n);
        return absl::OkStatus();
      }
    }
    for (int i = 0; i < n.input_size(); ++i) {
      TW_ASSIGN_OR_RETURN(std::string in, ValueInput(n, n.input(i)));
      copy->set_input(i, in);  // (a repeated message field's elements never move)
    }
    return absl::OkStatus();
  }

  const GraphDef& def_;
  const FlowGraph& graph_;
  GraphDef out_;
  absl::flat_hash_map<std::string, VarInfo> vars_;
  absl::flat_hash_set<std::string> def_names_, taken_;  // taken_: def's names and the new ones
  absl::flat_hash_map<std::string, const NodeDef*> def_nodes_;
};

}  // namespace

bool HasRefVariableOps(const GraphDef& def) {
  for (const NodeDef& n : def.node()) {
    if (IsVariableOp(n.op()) || RefOps().contains(n.op()) || n.op() == "DestroyTemporaryVariable") return true;
  }
  return false;
}

absl::StatusOr<GraphDef> LowerRefVariables(const GraphDef& def, const FlowGraph& graph) {
  return Lowering(def, graph).Run();
}

}  // namespace tw
