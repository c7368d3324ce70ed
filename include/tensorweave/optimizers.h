// Optimizers, as TensorFlow 1.x's tf.train.*Optimizer: build the ops that compute
// gradients of a loss and apply them to variables.
//
//   auto step = tw::get_or_create_global_step(g);
//   tw::AdamOptimizer opt(0.01);
//   tw::Operation train = opt.minimize(loss, &step);
//   session.run(tw::global_variables_initializer(g));
//   for (...) session.run(train);
//
// Slot variables (Adam's "m" and "v", Momentum's "momentum", ...) are non-trainable
// variables named "<var>/<optimizer name>[_1]" on the variable's device; they are global
// variables, so global_variables_initializer initializes them. Errors throw StatusError.
#ifndef TENSORWEAVE_OPTIMIZERS_H_
#define TENSORWEAVE_OPTIMIZERS_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensorweave/variables.h"

namespace tw {

inline constexpr char kGlobalStep[] = "global_step";

// The graph's global step: an int64 scalar non-trainable variable "global_step" starting
// at 0, found in (or added to) the "global_step" collection.
Variable get_or_create_global_step(Graph& g);
std::optional<Variable> get_global_step(Graph& g);

// A hyperparameter given as a number or as a scalar tensor (e.g. a decaying learning
// rate); cast to each variable's dtype where it is used.
class Hyperparameter {
 public:
  Hyperparameter(double value) : value_(value) {}     // NOLINT: numbers convert.
  Hyperparameter(Output tensor) : tensor_(tensor) {}  // NOLINT: tensors convert.
  bool is_tensor() const { return tensor_.op().valid(); }
  double value() const { return value_; }
  const Output& tensor() const { return tensor_; }

 private:
  double value_ = 0;
  Output tensor_;
};

using GradsAndVars = std::vector<std::pair<Output, Variable>>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::string& name() const { return name_; }

  // d(loss)/d(var) for each variable (the graph's trainable variables when var_list is
  // empty), through each variable's handle. A variable the loss does not depend on gets
  // an empty Output (see HasGradient).
  GradsAndVars compute_gradients(const Output& loss, const std::vector<Variable>& var_list = {});
  // One update op per variable with a gradient, grouped into the returned op (named
  // `name`, the optimizer's name when empty). With a global step, the returned op
  // increments it after every update. InvalidArgument when no variable has a gradient.
  Operation apply_gradients(const GradsAndVars& grads_and_vars,
                            const Variable* global_step = nullptr, const std::string& name = "");
  // compute_gradients then apply_gradients.
  Operation minimize(const Output& loss, const Variable* global_step = nullptr,
                     const std::vector<Variable>& var_list = {}, const std::string& name = "");

  // The slot `slot_name` of `var` (e.g. "m"); NotFound when it has none.
  Variable get_slot(const Variable& var, const std::string& slot_name) const;
  std::vector<std::string> get_slot_names() const;

 protected:
  Optimizer(std::string name, bool use_locking)
      : name_(std::move(name)), use_locking_(use_locking) {}

  // Makes the slots of these variables (each call: the variables getting updates now).
  virtual void CreateSlots(Graph& g, const std::vector<Variable>& vars) {}
  // Makes the hyperparameter tensors of one dtype (once per apply_gradients call, before
  // the per-variable device scopes), via Hyper().
  virtual void Prepare(Graph& g, DType dtype) {}
  // The update op of one variable (inside its device and an "update_<var>" name scope).
  virtual Operation ApplyDense(const Output& grad, const Variable& var) = 0;
  // Groups the updates (Adam also advances its beta powers after them).
  virtual Operation Finish(Graph& g, const std::vector<Operation>& update_ops,
                           const std::string& name);

  // `h` as a tensor of `dtype` named `name`; made once per apply_gradients call.
  Output Hyper(Graph& g, const std::string& name, const Hyperparameter& h, DType dtype);
  // What Hyper() made for (name, dtype) in this apply_gradients call.
  Output Prepared(const std::string& name, DType dtype) const;
  // The slot of `var`, made (zeros or `initial`, on var's device, named
  // "<var>/<op_name>") when it does not exist yet.
  Variable ZerosSlot(const Variable& var, const std::string& slot_name, const std::string& op_name);
  Variable ConstantSlot(const Variable& var, double initial, const std::string& slot_name,
                        const std::string& op_name);
  // A non-trainable variable of this optimizer not tied to one variable (Adam's beta
  // powers): scalar `initial` of `dtype`, colocated with `colocate_with`, made once per graph.
  Variable NonSlotVariable(Graph& g, const std::string& var_name, const Hyperparameter& initial,
                           DType dtype, const Variable& colocate_with);
  std::optional<Variable> FindNonSlotVariable(Graph& g, const std::string& var_name) const;
  bool use_locking() const { return use_locking_; }

 private:
  // A variable this optimizer made, with what identifies it if its graph is gone.
  struct Made {
    Variable var;
    const Graph* graph;
    const void* node;
    std::string name;
    bool StillIn(const Graph* g) const;
  };
  std::string name_;
  bool use_locking_;
  // slot name -> variable handle node -> slot variable.
  std::map<std::string, std::map<const void*, Made>> slots_;
  std::map<std::pair<const Graph*, std::string>, Made> non_slot_;
  std::map<std::pair<std::string, DType>, Output> hyper_cache_;
};

// In-graph data parallelism (TF's multi-tower average_gradients): tower_grads[k] is what
// compute_gradients gave for tower k, every tower listing the same variables in the same
// order. Returns one (mean gradient, variable) per variable, built under the current
// device scope (e.g. the parameter task) in the name scope "average_gradients". With
// `weights` (one scalar per tower, e.g. its slice size) the mean is weighted:
// sum_k w_k * g_k / sum_k w_k, which for per-tower mean losses over slices of one batch
// is the gradient of the mean loss over the whole batch. A variable without a gradient
// in every tower keeps an empty Output. Throws InvalidArgument for no towers, towers
// that disagree, a gradient missing in some towers only, or a weight count mismatch.
GradsAndVars average_gradients(const std::vector<GradsAndVars>& tower_grads,
                               const std::vector<Output>& weights = {});

// var -= lr * grad
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(Hyperparameter learning_rate, bool use_locking = false,
                                    const std::string& name = "GradientDescent");

 protected:
  void Prepare(Graph& g, DType dtype) override;
  Operation ApplyDense(const Output& grad, const Variable& var) override;

 private:
  Hyperparameter lr_;
};

// Slot "momentum" (zeros): accum = momentum * accum + grad; var -= lr * accum
// (Nesterov: var -= lr * (grad + momentum * accum)).
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(Hyperparameter learning_rate, Hyperparameter momentum,
                    bool use_nesterov = false, bool use_locking = false,
                    const std::string& name = "Momentum");

 protected:
  void CreateSlots(Graph& g, const std::vector<Variable>& vars) override;
  void Prepare(Graph& g, DType dtype) override;
  Operation ApplyDense(const Output& grad, const Variable& var) override;

 private:
  Hyperparameter lr_, momentum_;
  bool use_nesterov_;
};

// Slot "accumulator" (initial_accumulator_value): accum += grad^2;
// var -= lr * grad / sqrt(accum).
class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(Hyperparameter learning_rate, double initial_accumulator_value = 0.1,
                            bool use_locking = false, const std::string& name = "Adagrad");

 protected:
  void CreateSlots(Graph& g, const std::vector<Variable>& vars) override;
  void Prepare(Graph& g, DType dtype) override;
  Operation ApplyDense(const Output& grad, const Variable& var) override;

 private:
  Hyperparameter lr_;
  double initial_accumulator_value_;
};

// Slots "rms" (ones, as TensorFlow 1.x) and "momentum" (zeros):
// rms = decay * rms + (1 - decay) * grad^2; mom = momentum * mom + lr * grad / sqrt(rms + eps);
// var -= mom.
class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(Hyperparameter learning_rate, Hyperparameter decay = 0.9,
                            Hyperparameter momentum = 0.0, Hyperparameter epsilon = 1e-10,
                            bool use_locking = false, const std::string& name = "RMSProp");

 protected:
  void CreateSlots(Graph& g, const std::vector<Variable>& vars) override;
  void Prepare(Graph& g, DType dtype) override;
  Operation ApplyDense(const Output& grad, const Variable& var) override;

 private:
  Hyperparameter lr_, decay_, momentum_, epsilon_;
};

// Slots "m" and "v" (zeros) and the non-slot variables beta1_power and beta2_power
// (starting at beta1 and beta2, multiplied by them after each step):
// lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); m = beta1 * m + (1 - beta1) * grad;
// v = beta2 * v + (1 - beta2) * grad^2; var -= lr_t * m / (sqrt(v) + epsilon).
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(Hyperparameter learning_rate = 0.001, Hyperparameter beta1 = 0.9,
                         Hyperparameter beta2 = 0.999, Hyperparameter epsilon = 1e-8,
                         bool use_locking = false, const std::string& name = "Adam");
  // The beta1_power and beta2_power variables of graph g (made by the first apply).
  std::pair<Variable, Variable> get_beta_accumulators(Graph& g) const;

 protected:
  void CreateSlots(Graph& g, const std::vector<Variable>& vars) override;
  void Prepare(Graph& g, DType dtype) override;
  Operation ApplyDense(const Output& grad, const Variable& var) override;
  Operation Finish(Graph& g, const std::vector<Operation>& update_ops,
                   const std::string& name) override;

 private:
  Hyperparameter lr_, beta1_, beta2_, epsilon_;
};

}  // namespace tw

#endif  // TENSORWEAVE_OPTIMIZERS_H_
