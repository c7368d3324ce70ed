// The Optimizer base: gradients, slot variables, hyperparameter tensors, and the
// assembly of one training op from per-variable updates (as tf.train.Optimizer).
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/op_builder.h"
#include "graph/graph.h"
#include "tensorweave/gradients.h"
#include "tensorweave/optimizers.h"
#include "train/train_util.h"

namespace tw {
namespace {

[[noreturn]] void Throw(absl::Status status) { throw StatusError(std::move(status)); }

}  // namespace

namespace train {

Colocation ColocateWith(Graph& g, const Variable& var) {
  // As TF's colocate_with: overrides what device scopes and functions would choose (e.g.
  // a round-robin over ps tasks), so the new ops land with the variable.
  return Colocation{g.colocate_with(var.handle().op())};
}

Colocation OnDevice(Graph& g, const std::string& device) {
  // A device function's choice replaces what enclosing scopes and functions chose.
  return Colocation{g.device([device](const DeviceFunctionInput&) { return device; })};
}

}  // namespace train

std::optional<Variable> get_global_step(Graph& g) {
  std::vector<Output> found = g.get_collection(kGlobalStep);
  if (found.empty()) return std::nullopt;
  if (found.size() > 1) {
    Throw(absl::InvalidArgumentError(absl::StrCat("the \"", kGlobalStep, "\" collection holds ",
                                                  found.size(),
                                                  " tensors; a graph has one global step")));
  }
  Variable step = Variable::FromHandle(found[0]);
  if (!IsInteger(step.dtype()) || step.shape().rank() != 0) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("the global step '", step.name(), "' must be an integer scalar variable, not ",
                     DTypeName(step.dtype()), " ", step.shape().DebugString())));
  }
  return step;
}

Variable get_or_create_global_step(Graph& g) {
  if (std::optional<Variable> step = get_global_step(g)) return *step;
  Output initial;
  {
    auto ns = g.name_scope(absl::StrCat(kGlobalStep, "/Initializer/"));
    initial = zeros(g, TensorShape(), DType::kInt64);
  }
  auto ns = g.name_scope("");
  Variable step(g, initial, kGlobalStep, /*trainable=*/false);
  g.add_to_collection(kGlobalStep, step.handle());
  return step;
}

GradsAndVars Optimizer::compute_gradients(const Output& loss,
                                          const std::vector<Variable>& var_list) {
  if (!loss.op().valid()) Throw(absl::InvalidArgumentError("compute_gradients: loss is empty"));
  if (!IsFloating(loss.dtype())) {
    Throw(absl::InvalidArgumentError(absl::StrCat("compute_gradients: loss '", loss.name(),
                                                  "' must be float32 or float64, not ",
                                                  DTypeName(loss.dtype()))));
  }
  std::vector<Variable> vars = var_list.empty() ? trainable_variables(*loss.graph()) : var_list;
  if (vars.empty()) Throw(absl::InvalidArgumentError("No variables to optimize."));
  std::vector<Output> handles;
  for (const Variable& v : vars) handles.push_back(v.handle());
  std::vector<Output> grads = gradients({loss}, handles);
  GradsAndVars result;
  for (size_t i = 0; i < vars.size(); ++i) result.emplace_back(grads[i], vars[i]);
  return result;
}

Operation Optimizer::apply_gradients(const GradsAndVars& grads_and_vars,
                                     const Variable* global_step, const std::string& name) {
  GradsAndVars updates;
  std::vector<std::string> all_names;
  for (const auto& [grad, var] : grads_and_vars) {
    if (!var.handle().op().valid())
      Throw(absl::InvalidArgumentError("apply_gradients: empty variable"));
    all_names.push_back(var.name());
    if (HasGradient(grad)) updates.emplace_back(grad, var);
  }
  if (updates.empty()) {
    Throw(absl::InvalidArgumentError(
        absl::StrCat("No gradients provided for any variable, check your graph for ops that do "
                     "not support gradients, between variables [",
                     absl::StrJoin(all_names, ", "), "] and the loss")));
  }
  Graph& g = *updates[0].second.handle().graph();
  std::vector<Variable> vars;
  std::set<DType> dtypes;
  for (const auto& [grad, var] : updates) {
    if (var.handle().graph() != &g || grad.graph() != &g) {
      Throw(absl::InvalidArgumentError(
          "apply_gradients: gradients and variables from different graphs"));
    }
    if (!IsFloating(var.dtype())) {
      Throw(absl::InvalidArgumentError(
          absl::StrCat("variable '", var.name(), "' has dtype ", DTypeName(var.dtype()),
                       "; optimizers update float32 or float64 variables")));
    }
    if (grad.dtype() != var.dtype()) {
      Throw(absl::InvalidArgumentError(absl::StrCat("the gradient of variable '", var.name(),
                                                    "' has dtype ", DTypeName(grad.dtype()),
                                                    ", not ", DTypeName(var.dtype()))));
    }
    vars.push_back(var);
    dtypes.insert(var.dtype());
  }

  CreateSlots(g, vars);
  const std::string scope = name.empty() ? name_ : name;
  hyper_cache_.clear();
  std::vector<Operation> update_ops;
  {
    auto ns = g.name_scope(scope);
    for (DType dtype : dtypes) Prepare(g, dtype);
    for (const auto& [grad, var] : updates) {
      train::Colocation on_var = train::ColocateWith(g, var);
      auto update_ns = g.name_scope(absl::StrCat("update_", var.name()));
      update_ops.push_back(ApplyDense(grad, var));
    }
  }
  if (global_step == nullptr) return Finish(g, update_ops, scope);

  Operation finished;
  {
    auto ns = g.name_scope(scope);
    finished = Finish(g, update_ops, "update");
  }
  auto after = g.control_dependencies(std::vector<Operation>{finished});
  train::Colocation on_step = train::ColocateWith(g, *global_step);
  Output one = client::Scalar(g, global_step->dtype(), 1, absl::StrCat(scope, "/one"));
  return global_step->assign_add(one, scope).op();
}

Operation Optimizer::minimize(const Output& loss, const Variable* global_step,
                              const std::vector<Variable>& var_list, const std::string& name) {
  return apply_gradients(compute_gradients(loss, var_list), global_step, name);
}

Operation Optimizer::Finish(Graph& g, const std::vector<Operation>& update_ops,
                            const std::string& name) {
  return group(g, update_ops, name);
}

Output Optimizer::Hyper(Graph& g, const std::string& name, const Hyperparameter& h, DType dtype) {
  auto key = std::make_pair(name, dtype);
  if (auto it = hyper_cache_.find(key); it != hyper_cache_.end()) return it->second;
  Output t;
  if (h.is_tensor()) {
    t = h.tensor().dtype() == dtype ? h.tensor() : cast(h.tensor(), dtype, name);
  } else {
    t = client::Scalar(g, dtype, h.value(), name);
  }
  hyper_cache_.emplace(key, t);
  return t;
}

Output Optimizer::Prepared(const std::string& name, DType dtype) const {
  auto it = hyper_cache_.find(std::make_pair(name, dtype));
  if (it == hyper_cache_.end()) {
    Throw(absl::InternalError(
        absl::StrCat("optimizer ", name_, " did not prepare ", name, " for ", DTypeName(dtype))));
  }
  return it->second;
}

namespace {

// A slot's initial value: `value` everywhere, shaped like `var`.
Output SlotInitialValue(Graph& g, const Variable& var, double value) {
  if (auto shape = var.shape().ToTensorShape(); shape.ok()) {
    if (value == 0) return zeros(g, *shape, var.dtype());
    return fill(g, Axes(shape->dims().begin(), shape->dims().end()),
                client::Scalar(g, var.dtype(), value, "value"), "Const");
  }
  // Shape known only when the variable is: follow its initial value.
  Output zeros_like_var = zeros_like(var.initial_value());
  return value == 0 ? zeros_like_var : zeros_like_var + value;
}

}  // namespace

bool Optimizer::Made::StillIn(const Graph* g) const {
  // Guards against a graph destroyed and another made at the same address.
  return g == graph && g->flow_graph().FindNode(name) == node;
}

Variable Optimizer::ConstantSlot(const Variable& var, double initial, const std::string& slot_name,
                                 const std::string& op_name) {
  std::map<const void*, Made>& by_var = slots_[slot_name];
  const void* key = var.handle().op().node();
  Graph& g = *var.handle().graph();
  if (auto it = by_var.find(key); it != by_var.end()) {
    if (it->second.StillIn(&g)) return it->second.var;
    by_var.erase(it);
  }
  train::Colocation on_var = train::ColocateWith(g, var);
  Output value;
  {
    auto ns = g.name_scope(absl::StrCat(var.name(), "/", op_name, "/Initializer/"));
    value = SlotInitialValue(g, var, initial);
  }
  // Top level, full name: see get_variable.
  auto ns = g.name_scope("");
  Variable slot(g, value, absl::StrCat(var.name(), "/", op_name), /*trainable=*/false);
  by_var.emplace(key, Made{slot, &g, slot.handle().op().node(), slot.name()});
  return slot;
}

Variable Optimizer::ZerosSlot(const Variable& var, const std::string& slot_name,
                              const std::string& op_name) {
  return ConstantSlot(var, 0, slot_name, op_name);
}

Variable Optimizer::get_slot(const Variable& var, const std::string& slot_name) const {
  auto slots = slots_.find(slot_name);
  if (slots != slots_.end()) {
    auto it = slots->second.find(var.handle().op().node());
    if (it != slots->second.end() && it->second.StillIn(var.handle().graph()))
      return it->second.var;
  }
  Throw(absl::NotFoundError(absl::StrCat("optimizer ", name_, " has no slot '", slot_name,
                                         "' for variable '", var.name(), "'")));
}

std::vector<std::string> Optimizer::get_slot_names() const {
  std::vector<std::string> names;
  for (const auto& [name, unused] : slots_) names.push_back(name);
  return names;
}

std::optional<Variable> Optimizer::FindNonSlotVariable(Graph& g,
                                                       const std::string& var_name) const {
  auto it = non_slot_.find({&g, var_name});
  if (it == non_slot_.end() || !it->second.StillIn(&g)) return std::nullopt;
  return it->second.var;
}

Variable Optimizer::NonSlotVariable(Graph& g, const std::string& var_name,
                                    const Hyperparameter& initial, DType dtype,
                                    const Variable& colocate_with) {
  if (std::optional<Variable> found = FindNonSlotVariable(g, var_name)) return *found;
  train::Colocation on_var = train::ColocateWith(g, colocate_with);
  auto ns = g.name_scope("");  // Top level: see get_variable.
  Output value;
  const std::string value_name = absl::StrCat(var_name, "/initial_value");
  if (initial.is_tensor()) {
    value = initial.tensor().dtype() == dtype ? identity(initial.tensor(), value_name)
                                              : cast(initial.tensor(), dtype, value_name);
  } else {
    value = client::Scalar(g, dtype, initial.value(), value_name);
  }
  Variable var(g, value, var_name, /*trainable=*/false);
  non_slot_.insert_or_assign(std::make_pair(&g, var_name),
                             Made{var, &g, var.handle().op().node(), var.name()});
  return var;
}

}  // namespace tw
