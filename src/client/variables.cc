#include "tensorweave/variables.h"

#include "client/op_builder.h"
#include "graph/graph.h"

namespace tw {

Variable::Variable(Graph& g, const Output& initial_value, const std::string& name, bool trainable)
    : Variable(g, initial_value, name, trainable, {kGlobalVariables}) {}

Variable::Variable(Graph& g, const Output& initial_value, const std::string& name, bool trainable,
                   const std::vector<std::string>& collections)
    : initial_value_(initial_value), dtype_(initial_value.dtype()), shape_(initial_value.shape()) {
  // The variable is named after its node (shared_name), so two clients that build the
  // same graph share one variable on the same device. Written out, as TF's Python does:
  // TensorFlow takes an empty shared_name literally (every such handle one variable).
  const std::string hint = name.empty() ? "VarHandleOp" : name;
  handle_ = client::AddOp(g, "VarHandleOp", hint, {},
                          {{"dtype", MakeAttr(dtype_)}, {"shape", MakeAttr(shape_)},
                           {"shared_name", MakeAttr(g.unique_name(hint))}})
                .output(0);
  auto with = g.colocate_with(handle_.op());
  // Named "<handle>/Assign" and "<handle>/read" whatever the name scope (FromHandle finds them so).
  auto scope = g.name_scope(handle_.op().name() + "/");
  initializer_ = client::AddOp(g, "AssignVariableOp", "Assign", {handle_, initial_value},
                               {{"dtype", MakeAttr(dtype_)}})
                     .output(0)
                     .op();
  read_ = client::AddOp(g, "ReadVariableOp", "read", {handle_}, {{"dtype", MakeAttr(dtype_)}}).output(0);
  for (const std::string& c : collections) g.add_to_collection(c, handle_);
  if (trainable) g.add_to_collection(kTrainableVariables, handle_);
}

Output Variable::value() const {
  auto with = handle_.graph()->colocate_with(handle_.op());
  return client::AddOp(*handle_.graph(), "ReadVariableOp", name() + "/value", {handle_},
                       {{"dtype", MakeAttr(dtype_)}})
      .output(0);
}

Output Variable::assign(const Output& value, const std::string& op_name) const {
  auto with = handle_.graph()->colocate_with(handle_.op());
  return client::Op("AssignVariableOp", op_name, {handle_, value}, {{"dtype", MakeAttr(dtype_)}});
}
Output Variable::assign_add(const Output& delta, const std::string& op_name) const {
  auto with = handle_.graph()->colocate_with(handle_.op());
  return client::Op("AssignAddVariableOp", op_name, {handle_, delta}, {{"dtype", MakeAttr(dtype_)}});
}
Output Variable::assign_sub(const Output& delta, const std::string& op_name) const {
  auto with = handle_.graph()->colocate_with(handle_.op());
  return client::Op("AssignSubVariableOp", op_name, {handle_, delta}, {{"dtype", MakeAttr(dtype_)}});
}
Output Variable::is_initialized(const std::string& op_name) const {
  auto with = handle_.graph()->colocate_with(handle_.op());
  return client::Op("VarIsInitializedOp", op_name, {handle_});
}

namespace {

std::vector<Variable> Collect(Graph& g, const char* collection) {
  std::vector<Variable> vars;
  for (const Output& handle : g.get_collection(collection)) vars.push_back(Variable::FromHandle(handle));
  return vars;
}

}  // namespace

std::vector<Variable> global_variables(Graph& g) { return Collect(g, kGlobalVariables); }
std::vector<Variable> trainable_variables(Graph& g) { return Collect(g, kTrainableVariables); }
std::vector<Variable> local_variables(Graph& g) { return Collect(g, kLocalVariables); }

Operation variables_initializer(Graph& g, const std::vector<Variable>& vars, const std::string& name) {
  std::vector<Operation> inits;
  for (const Variable& v : vars) inits.push_back(v.initializer());
  return group(g, inits, name);
}

Operation global_variables_initializer(Graph& g, const std::string& name) {
  return variables_initializer(g, global_variables(g), name);
}

Operation local_variables_initializer(Graph& g, const std::string& name) {
  return variables_initializer(g, local_variables(g), name);
}

namespace {

// TF1's default var_list: the global variables, then the local ones.
std::vector<Variable> AllVariables(Graph& g) {
  std::vector<Variable> vars = global_variables(g);
  for (Variable& v : local_variables(g)) vars.push_back(std::move(v));
  return vars;
}

}  // namespace

Output report_uninitialized_variables(Graph& g, const std::string& name) {
  return report_uninitialized_variables(g, AllVariables(g), name);
}

Output report_uninitialized_variables(Graph& g, const std::vector<Variable>& vars, const std::string& name) {
  auto scope = g.name_scope(name);
  std::vector<Output> initialized;
  for (const Variable& v : vars) initialized.push_back(v.is_initialized("VarIsInitializedOp"));
  // As TensorFlow: the report itself runs on the client's CPU.
  auto on = g.device("/cpu:0");
  if (vars.empty()) return constant(g, Tensor(DType::kString, TensorShape({0})));
  Output uninitialized = logical_not(stack(initialized));
  std::vector<std::string> names;
  for (const Variable& v : vars) names.push_back(v.name());
  return boolean_mask(constant(g, names), uninitialized);
}

Output assert_variables_initialized(Graph& g) { return assert_variables_initialized(g, AllVariables(g)); }

Output assert_variables_initialized(Graph& g, const std::vector<Variable>& vars) {
  if (vars.empty()) return Output();
  // Reading an uninitialized variable fails with FailedPrecondition naming it.
  std::vector<Output> ranks;
  for (const Variable& v : vars) {
    auto with = g.colocate_with(v.handle().op());
    ranks.push_back(rank(v.value()));
  }
  return ranks.size() == 1 ? ranks[0] : stack(ranks);
}

Variable Variable::FromHandle(const Output& handle) {
  Graph& g = *handle.graph();
  Variable v;
  v.handle_ = handle;
  // A TF1 reference variable "w" lowered on import: the read "w" of the handle "w/handle"
  // stands for the variable, initialized by "w/Assign" (graph/ref_variable_lowering.h).
  std::string base = handle.op().name();
  for (const Edge* e : handle.op().node()->out_edges()) {
    const Node* read = e->dst;
    if (read->op() != "ReadVariableOp" || handle.op().name().rfind(read->name() + "/handle", 0) != 0) continue;
    base = read->name();
    break;
  }
  v.initializer_ = g.operation(base + "/Assign");
  v.read_ = base == handle.op().name() ? g.tensor(base + "/read") : g.tensor(base + ":0");
  const Edge* init_value = v.initializer_.node()->input_edge(1);
  v.initial_value_ = Output(Operation(&g, init_value->src), init_value->src_output);
  v.dtype_ = v.read_.dtype();
  v.shape_ = v.initial_value_.shape();
  return v;
}

}  // namespace tw
