// Variable scopes and get_variable, as TensorFlow 1.x's tf.variable_scope and
// tf.get_variable: variables named by scope, created once and shared on reuse.
//
//   {
//     auto vs = tw::variable_scope(g, "layer1");           // ops and variables "layer1/..."
//     auto w = tw::get_variable(g, "w", {3, 2}, DType::kFloat, tw::glorot_uniform_initializer());
//   }
//   {
//     auto vs = tw::variable_scope(g, "layer1", /*reuse=*/true);
//     auto same_w = tw::get_variable(g, "w", {3, 2});      // the variable made above
//   }
//
// Variables made by get_variable are named "<scope>/<name>" whatever name scopes are
// open; the graph remembers them (in a collection) so that reuse finds them. Errors
// throw tw::StatusError.
#ifndef TENSORWEAVE_VARIABLE_SCOPE_H_
#define TENSORWEAVE_VARIABLE_SCOPE_H_

#include <functional>
#include <string>
#include <vector>

#include "tensorweave/variables.h"

namespace tw {

// Whether get_variable makes new variables (kFalse), returns existing ones (kTrue) or
// either (kAuto: TensorFlow's AUTO_REUSE).
enum class Reuse { kFalse, kTrue, kAuto };
inline constexpr Reuse AUTO_REUSE = Reuse::kAuto;  // NOLINT: TensorFlow's spelling.

// Opens the variable scope `name` (nested in the current one) and a name scope of the
// same name, until the guard goes. Reuse is inherited: a nested scope with reuse false
// keeps its parent's reuse (as TensorFlow, reuse cannot be turned off inside a scope).
ScopeGuard variable_scope(Graph& g, const std::string& name, Reuse reuse);
ScopeGuard variable_scope(Graph& g, const std::string& name, bool reuse = false);

// The current variable scope: its full name ("" at the top) and effective reuse.
struct VariableScopeInfo {
  std::string name;
  Reuse reuse = Reuse::kFalse;
};
VariableScopeInfo get_variable_scope(const Graph& g);
// Makes the innermost open variable scope reuse variables until it closes (TF's
// get_variable_scope().reuse_variables()). FailedPrecondition when no scope is open.
void reuse_variables(Graph& g);

// Makes the initial value of a variable with this shape and dtype (ops added to g).
using Initializer = std::function<Output(Graph& g, const TensorShape& shape, DType dtype)>;

Initializer zeros_initializer();
Initializer ones_initializer();
// Every element `value`.
Initializer constant_initializer(double value);
// The values in row-major order; their count must equal the shape's element count.
Initializer constant_initializer(std::vector<double> values);
// Float types only; seed 0 derives one from the graph seed (see tw::random_uniform).
Initializer random_uniform_initializer(double minval = 0, double maxval = 1, int64_t seed = 0);
Initializer random_normal_initializer(double mean = 0, double stddev = 1, int64_t seed = 0);
Initializer truncated_normal_initializer(double mean = 0, double stddev = 1, int64_t seed = 0);
// Uniform in [-limit, limit], limit = sqrt(6 / (fan_in + fan_out)); fans as TensorFlow:
// for a shape [..., in, out] the leading dims multiply both (convolution kernels).
Initializer glorot_uniform_initializer(int64_t seed = 0);

// (fan_in, fan_out) of a weight shape, as TensorFlow's _compute_fans.
std::pair<double, double> compute_fans(const TensorShape& shape);

// The variable "<scope>/<name>": created with `initializer` (glorot_uniform for float
// types, zeros otherwise, when empty) unless the scope reuses, in which case the
// existing one is returned after checking its shape and dtype. Errors (InvalidArgument):
// creating a name that exists without reuse, reusing a name that does not exist (or was
// not made by get_variable), a shape or dtype that differs from the existing variable's.
Variable get_variable(Graph& g, const std::string& name, const TensorShape& shape,
                      DType dtype = DType::kFloat, const Initializer& initializer = nullptr,
                      bool trainable = true);

}  // namespace tw

#endif  // TENSORWEAVE_VARIABLE_SCOPE_H_
