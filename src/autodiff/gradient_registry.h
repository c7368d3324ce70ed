// Gradient functions by op name. A gradient function gets the forward operation and the
// gradients flowing into its outputs, and builds (with the client API) the gradients of
// its inputs. The functions for each family of ops live in src/autodiff/<family>_grad.cc
// as one readable table.
#ifndef TENSORWEAVE_SRC_AUTODIFF_GRADIENT_REGISTRY_H_
#define TENSORWEAVE_SRC_AUTODIFF_GRADIENT_REGISTRY_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/attr_value.h"
#include "tensorweave/ops.h"

namespace tw {

struct GradContext {
  Operation op;                      // The forward operation.
  std::vector<Output> grad_outputs;  // One per output of op; zeros where none flowed.

  Graph& graph() const { return *op.graph(); }
  Output input(int i) const;   // The tensor feeding input i.
  Output output(int i) const { return op.output(i); }
  const AttrMap& attrs() const;
};

// Returns one gradient per input of the op; an empty Output() means "no gradient" (for
// integer inputs such as axes or shapes). May throw StatusError.
using GradFn = std::function<std::vector<Output>(const GradContext& ctx)>;

class GradientRegistry {
 public:
  // The registry with every gradient of tensorweave, built on first use.
  static const GradientRegistry& Global();
  // The same registry, for gradients registered while the program runs (Python's
  // tf.RegisterGradient / tf.custom_gradient): register before differentiating through them;
  // registration is not synchronized with concurrent gradient passes.
  static GradientRegistry& Mutable();
  bool Has(const std::string& op) const { return fns_.contains(op); }

  void Register(const std::string& op, GradFn fn);
  // Ops whose outputs do not depend differentiably on their inputs (Shape, ArgMax,
  // comparisons, ...): every input gets "no gradient".
  void RegisterNoGradient(const std::string& op);
  // NotFound naming the op when it has no gradient function.
  absl::StatusOr<const GradFn*> Find(const std::string& op) const;
  // Whether `op` was registered with RegisterNoGradient (the differential gradient test
  // compares only real gradients with TensorFlow's).
  bool IsNoGradient(const std::string& op) const { return no_gradient_.contains(op); }

 private:
  absl::flat_hash_map<std::string, GradFn> fns_;
  absl::flat_hash_set<std::string> no_gradient_;
};

// tw::gradients with an explicit registry (tests use a partial one).
// stop_gradients: ops whose gradient functions are not run (their outputs are constants to
// the pass, as TensorFlow's stop_gradients); an op may name another gradient function in its
// string attr "_gradient_op_type" (TensorFlow's gradient_override_map).
std::vector<Output> ComputeGradients(const GradientRegistry& registry, const std::vector<Output>& ys,
                                     const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                                     const std::vector<Output>& stop_gradients = {});

// Each family registers its gradient functions (src/autodiff/<family>_grad.cc).
void RegisterBaseGradients(GradientRegistry& r);
void RegisterMathGradients(GradientRegistry& r);
void RegisterReductionGradients(GradientRegistry& r);
void RegisterLinalgGradients(GradientRegistry& r);
void RegisterArrayGradients(GradientRegistry& r);
void RegisterGatherGradients(GradientRegistry& r);  // gather_grad.cc
void RegisterConvGradients(GradientRegistry& r);    // conv_grad.cc
void RegisterPoolGradients(GradientRegistry& r);    // pool_grad.cc
void RegisterNormGradients(GradientRegistry& r);    // norm_grad.cc
void RegisterNnGradients(GradientRegistry& r);
void RegisterStateGradients(GradientRegistry& r);
void RegisterActivationGradients(GradientRegistry& r);  // activation_grad.cc
void RegisterTopKGradients(GradientRegistry& r);        // topk_grad.cc
void RegisterScanGradients(GradientRegistry& r);        // scan_grad.cc
void RegisterClipGradients(GradientRegistry& r);        // clip_grad.cc
void RegisterRnnGradients(GradientRegistry& r);         // rnn_grad.cc

}  // namespace tw

#endif  // TENSORWEAVE_SRC_AUTODIFF_GRADIENT_REGISTRY_H_
