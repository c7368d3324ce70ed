// Variables: state that lives in a device's ResourceMgr across runs (and, on a cluster,
// across sessions). A Variable is a handle op plus the ops that read and assign it;
// its initializer is registered in the graph's "variables" collection so that
// global_variables_initializer() runs every one of them.
#ifndef TENSORWEAVE_VARIABLES_H_
#define TENSORWEAVE_VARIABLES_H_

#include <string>
#include <vector>

#include "tensorweave/ops.h"

namespace tw {

inline constexpr char kGlobalVariables[] = "variables";
inline constexpr char kTrainableVariables[] = "trainable_variables";
// Per-client variables (e.g. a worker's local step) that are not shared or saved.
inline constexpr char kLocalVariables[] = "local_variables";

class Variable {
 public:
  Variable() = default;
  // Creates the variable named `name` (made unique, inside the name scope) with the
  // dtype and shape of `initial_value`, whose assign becomes the initializer.
  Variable(Graph& g, const Output& initial_value, const std::string& name = "Variable",
           bool trainable = true);
  // The same, registered in `collections` (as TF's `collections=`) instead of
  // "variables"; a trainable variable also joins "trainable_variables".
  Variable(Graph& g, const Output& initial_value, const std::string& name, bool trainable,
           const std::vector<std::string>& collections);

  const std::string& name() const { return handle_.op().name(); }
  DType dtype() const { return dtype_; }
  const PartialShape& shape() const { return shape_; }
  Output handle() const { return handle_; }
  // The current value: a fresh read op on each call (as TF's `var.value()`).
  Output value() const;
  // The read made when the variable was created (what `x + var` uses).
  Output read() const { return read_; }
  Operation initializer() const { return initializer_; }
  Output initial_value() const { return initial_value_; }

  Output assign(const Output& value, const std::string& name = "Assign") const;
  Output assign_add(const Output& delta, const std::string& name = "AssignAdd") const;
  Output assign_sub(const Output& delta, const std::string& name = "AssignSub") const;
  Output is_initialized(const std::string& name = "IsInitialized") const;

  operator Output() const { return read_; }  // NOLINT: a variable is usable as a tensor.

  // The Variable whose VarHandleOp output is `handle` (e.g. from a collection).
  static Variable FromHandle(const Output& handle);

 private:
  Output handle_, read_, initial_value_;
  Operation initializer_;
  DType dtype_ = DType::kInvalid;
  PartialShape shape_;
};

// Every variable of the graph, in creation order.
std::vector<Variable> global_variables(Graph& g);
std::vector<Variable> trainable_variables(Graph& g);
std::vector<Variable> local_variables(Graph& g);
// One op running the initializers of `vars` (all global variables when omitted).
Operation variables_initializer(Graph& g, const std::vector<Variable>& vars,
                                const std::string& name = "init");
Operation global_variables_initializer(Graph& g, const std::string& name = "init");
Operation local_variables_initializer(Graph& g, const std::string& name = "init_local");

// TF1's tf.report_uninitialized_variables: a 1-D string tensor naming the variables of
// `vars` (all global and local variables without it) that are not initialized, built as
// TensorFlow does: VarIsInitializedOp of each, Pack, LogicalNot, and a boolean_mask of a
// string constant of their names, on /cpu:0. An empty `vars` gives an empty constant.
Output report_uninitialized_variables(Graph& g, const std::string& name = "report_uninitialized_variables");
Output report_uninitialized_variables(Graph& g, const std::vector<Variable>& vars,
                                      const std::string& name = "report_uninitialized_variables");
// TF1's tf.assert_variables_initialized: an op (the Rank of each variable's value, stacked)
// that fails with FailedPrecondition naming a variable that is not initialized. With no
// variables there is nothing to check: the result is an empty Output (TF returns None).
Output assert_variables_initialized(Graph& g);
Output assert_variables_initialized(Graph& g, const std::vector<Variable>& vars);

}  // namespace tw

#endif  // TENSORWEAVE_VARIABLES_H_
