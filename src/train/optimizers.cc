// The optimizers: slots, hyperparameters and the ResourceApplyXxx op of each.
#include "tensorweave/optimizers.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/op_builder.h"
#include "graph/attr_value.h"
#include "train/train_util.h"

namespace tw {
namespace {

// The update op `op` on these inputs (var handle first), T taken from them.
Operation ApplyOp(const std::string& op, const std::vector<Output>& inputs, AttrMap attrs) {
  return client::AddOp(*inputs[0].graph(), op, op, inputs, std::move(attrs));
}

}  // namespace

// ---- GradientDescent

GradientDescentOptimizer::GradientDescentOptimizer(Hyperparameter learning_rate, bool use_locking,
                                                   const std::string& name)
    : Optimizer(name, use_locking), lr_(learning_rate) {}

void GradientDescentOptimizer::Prepare(Graph& g, DType dtype) {
  Hyper(g, "learning_rate", lr_, dtype);
}

Operation GradientDescentOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  Graph& g = *var.handle().graph();
  return ApplyOp("ResourceApplyGradientDescent",
                 {var.handle(), Hyper(g, "learning_rate", lr_, var.dtype()), grad},
                 {{"use_locking", MakeAttr(use_locking())}});
}

// ---- Momentum

MomentumOptimizer::MomentumOptimizer(Hyperparameter learning_rate, Hyperparameter momentum,
                                     bool use_nesterov, bool use_locking, const std::string& name)
    : Optimizer(name, use_locking),
      lr_(learning_rate),
      momentum_(momentum),
      use_nesterov_(use_nesterov) {}

void MomentumOptimizer::CreateSlots(Graph& g, const std::vector<Variable>& vars) {
  for (const Variable& v : vars) ZerosSlot(v, "momentum", name());
}

void MomentumOptimizer::Prepare(Graph& g, DType dtype) {
  Hyper(g, "learning_rate", lr_, dtype);
  Hyper(g, "momentum", momentum_, dtype);
}

Operation MomentumOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  Graph& g = *var.handle().graph();
  return ApplyOp(
      "ResourceApplyMomentum",
      {var.handle(), get_slot(var, "momentum").handle(),
       Hyper(g, "learning_rate", lr_, var.dtype()), grad,
       Hyper(g, "momentum", momentum_, var.dtype())},
      {{"use_locking", MakeAttr(use_locking())}, {"use_nesterov", MakeAttr(use_nesterov_)}});
}

// ---- Adagrad

AdagradOptimizer::AdagradOptimizer(Hyperparameter learning_rate, double initial_accumulator_value,
                                   bool use_locking, const std::string& name)
    : Optimizer(name, use_locking),
      lr_(learning_rate),
      initial_accumulator_value_(initial_accumulator_value) {
  if (!(initial_accumulator_value > 0)) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("initial_accumulator_value must be positive: ", initial_accumulator_value)));
  }
}

void AdagradOptimizer::CreateSlots(Graph& g, const std::vector<Variable>& vars) {
  for (const Variable& v : vars) ConstantSlot(v, initial_accumulator_value_, "accumulator", name());
}

void AdagradOptimizer::Prepare(Graph& g, DType dtype) { Hyper(g, "learning_rate", lr_, dtype); }

Operation AdagradOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  Graph& g = *var.handle().graph();
  return ApplyOp("ResourceApplyAdagrad",
                 {var.handle(), get_slot(var, "accumulator").handle(),
                  Hyper(g, "learning_rate", lr_, var.dtype()), grad},
                 {{"use_locking", MakeAttr(use_locking())}});
}

// ---- RMSProp

RMSPropOptimizer::RMSPropOptimizer(Hyperparameter learning_rate, Hyperparameter decay,
                                   Hyperparameter momentum, Hyperparameter epsilon,
                                   bool use_locking, const std::string& name)
    : Optimizer(name, use_locking),
      lr_(learning_rate),
      decay_(decay),
      momentum_(momentum),
      epsilon_(epsilon) {}

void RMSPropOptimizer::CreateSlots(Graph& g, const std::vector<Variable>& vars) {
  for (const Variable& v : vars) {
    ConstantSlot(v, 1.0, "rms", name());  // Ones, as TensorFlow 1.x.
    ZerosSlot(v, "momentum", name() + "_1");
  }
}

void RMSPropOptimizer::Prepare(Graph& g, DType dtype) {
  Hyper(g, "learning_rate", lr_, dtype);
  Hyper(g, "decay", decay_, dtype);
  Hyper(g, "momentum", momentum_, dtype);
  Hyper(g, "epsilon", epsilon_, dtype);
}

Operation RMSPropOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  Graph& g = *var.handle().graph();
  const DType t = var.dtype();
  return ApplyOp("ResourceApplyRMSProp",
                 {var.handle(), get_slot(var, "rms").handle(), get_slot(var, "momentum").handle(),
                  Hyper(g, "learning_rate", lr_, t), Hyper(g, "decay", decay_, t),
                  Hyper(g, "momentum", momentum_, t), Hyper(g, "epsilon", epsilon_, t), grad},
                 {{"use_locking", MakeAttr(use_locking())}});
}

// ---- Adam

AdamOptimizer::AdamOptimizer(Hyperparameter learning_rate, Hyperparameter beta1,
                             Hyperparameter beta2, Hyperparameter epsilon, bool use_locking,
                             const std::string& name)
    : Optimizer(name, use_locking),
      lr_(learning_rate),
      beta1_(beta1),
      beta2_(beta2),
      epsilon_(epsilon) {}

std::pair<Variable, Variable> AdamOptimizer::get_beta_accumulators(Graph& g) const {
  std::optional<Variable> beta1_power = FindNonSlotVariable(g, "beta1_power");
  std::optional<Variable> beta2_power = FindNonSlotVariable(g, "beta2_power");
  if (!beta1_power || !beta2_power) {
    throw StatusError(absl::NotFoundError(
        absl::StrCat("optimizer ", name(), " has not been applied in this graph yet")));
  }
  return {*beta1_power, *beta2_power};
}

void AdamOptimizer::CreateSlots(Graph& g, const std::vector<Variable>& vars) {
  // The beta powers live with the first variable by name, in its dtype (TensorFlow keeps
  // them in float32; the variable's dtype keeps float64 models exact).
  const Variable& first =
      *std::min_element(vars.begin(), vars.end(),
                        [](const Variable& a, const Variable& b) { return a.name() < b.name(); });
  NonSlotVariable(g, "beta1_power", beta1_, first.dtype(), first);
  NonSlotVariable(g, "beta2_power", beta2_, first.dtype(), first);
  for (const Variable& v : vars) {
    ZerosSlot(v, "m", name());
    ZerosSlot(v, "v", name() + "_1");
  }
}

void AdamOptimizer::Prepare(Graph& g, DType dtype) {
  auto [beta1_power, beta2_power] = get_beta_accumulators(g);
  {
    // Read where the powers live (their reads are colocated with them in any case).
    train::Colocation on_powers = train::ColocateWith(g, beta1_power);
    Hyper(g, "beta1_power", Hyperparameter(beta1_power.value()), dtype);
    Hyper(g, "beta2_power", Hyperparameter(beta2_power.value()), dtype);
  }
  Hyper(g, "learning_rate", lr_, dtype);
  Hyper(g, "beta1", beta1_, dtype);
  Hyper(g, "beta2", beta2_, dtype);
  Hyper(g, "epsilon", epsilon_, dtype);
}

Operation AdamOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  Graph& g = *var.handle().graph();
  const DType t = var.dtype();
  // Hyper() finds what Prepare made for this dtype (the reads of the powers included).
  return ApplyOp("ResourceApplyAdam",
                 {var.handle(), get_slot(var, "m").handle(), get_slot(var, "v").handle(),
                  Prepared("beta1_power", t), Prepared("beta2_power", t),
                  Hyper(g, "learning_rate", lr_, t), Hyper(g, "beta1", beta1_, t),
                  Hyper(g, "beta2", beta2_, t), Hyper(g, "epsilon", epsilon_, t), grad},
                 {{"use_locking", MakeAttr(use_locking())}, {"use_nesterov", MakeAttr(false)}});
}

Operation AdamOptimizer::Finish(Graph& g, const std::vector<Operation>& update_ops,
                                const std::string& name) {
  auto [beta1_power, beta2_power] = get_beta_accumulators(g);
  std::vector<Operation> all = update_ops;
  {
    auto ns = g.name_scope(name);
    auto after = g.control_dependencies(update_ops);
    train::Colocation on_powers = train::ColocateWith(g, beta1_power);
    const DType t = beta1_power.dtype();
    all.push_back(
        beta1_power.assign(beta1_power.value() * Hyper(g, "beta1", beta1_, t), "update_beta1")
            .op());
    all.push_back(
        beta2_power.assign(beta2_power.value() * Hyper(g, "beta2", beta2_, t), "update_beta2")
            .op());
  }
  return group(g, all, name);
}

}  // namespace tw
