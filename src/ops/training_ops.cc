// Optimizer updates on resource variables, as TensorFlow's ResourceApplyXxx ops: each
// reads the variable (and its slots) through handles, updates them in place and has no
// outputs. Scalar hyperparameters and the gradient share the type T.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// The handles and the hyperparameters named in `scalars` must be scalars; the gradient's
// shape is checked against the variable at run time, where the variable's shape is known.
ShapeFn ApplyShape(std::vector<std::pair<int, std::string>> scalars) {
  return [scalars = std::move(scalars)](InferenceContext& c) -> absl::Status {
    for (const auto& [i, name] : scalars) {
      const PartialShape& s = c.input_shape(i);
      if (s.known_rank() && s.rank() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " is not a scalar: ", s.DebugString()));
      }
    }
    return absl::OkStatus();
  };
}

OpDefBuilder ApplyOp(const char* name, std::initializer_list<const char*> handles) {
  OpDefBuilder b(name);
  for (const char* h : handles) b.Input(absl::StrCat(h, ": resource"));
  return b;
}

OpDefBuilder& Common(OpDefBuilder& b) {
  return b.Attr("T: {float32, float64}").Attr("use_locking: bool = false").SetStateful();
}

}  // namespace

void RegisterTrainingOps(OpRegistry& r) {
  // var -= alpha * delta
  {
    OpDefBuilder b = ApplyOp("ResourceApplyGradientDescent", {"var"});
    b.Input("alpha: T").Input("delta: T").SetShapeFn(ApplyShape({{0, "var"}, {1, "alpha"}}));
    r.Register(Common(b));
  }
  // accum = accum * momentum + grad; var -= lr * accum (Nesterov: lr * (grad + momentum * accum)).
  {
    OpDefBuilder b = ApplyOp("ResourceApplyMomentum", {"var", "accum"});
    b.Input("lr: T").Input("grad: T").Input("momentum: T").Attr("use_nesterov: bool = false");
    b.SetShapeFn(ApplyShape({{0, "var"}, {1, "accum"}, {2, "lr"}, {4, "momentum"}}));
    r.Register(Common(b));
  }
  // accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum)
  {
    OpDefBuilder b = ApplyOp("ResourceApplyAdagrad", {"var", "accum"});
    b.Input("lr: T").Input("grad: T").Attr("update_slots: bool = true");
    b.SetShapeFn(ApplyShape({{0, "var"}, {1, "accum"}, {2, "lr"}}));
    r.Register(Common(b));
  }
  // ms = rho * ms + (1 - rho) * grad^2; mom = momentum * mom + lr * grad / sqrt(ms + epsilon);
  // var -= mom
  {
    OpDefBuilder b = ApplyOp("ResourceApplyRMSProp", {"var", "ms", "mom"});
    b.Input("lr: T").Input("rho: T").Input("momentum: T").Input("epsilon: T").Input("grad: T");
    b.SetShapeFn(ApplyShape({{0, "var"},
                             {1, "ms"},
                             {2, "mom"},
                             {3, "lr"},
                             {4, "rho"},
                             {5, "momentum"},
                             {6, "epsilon"}}));
    r.Register(Common(b));
  }
  // Centered RMSProp: mg = rho * mg + (1 - rho) * grad also, and the denominator is
  // sqrt(ms - mg^2 + epsilon).
  {
    OpDefBuilder b = ApplyOp("ResourceApplyCenteredRMSProp", {"var", "mg", "ms", "mom"});
    b.Input("lr: T").Input("rho: T").Input("momentum: T").Input("epsilon: T").Input("grad: T");
    b.SetShapeFn(ApplyShape({{0, "var"},
                             {1, "mg"},
                             {2, "ms"},
                             {3, "mom"},
                             {4, "lr"},
                             {5, "rho"},
                             {6, "momentum"},
                             {7, "epsilon"}}));
    r.Register(Common(b));
  }
  // lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m += (grad - m) * (1 - beta1);
  // v += (grad^2 - v) * (1 - beta2); var -= lr_t * m / (sqrt(v) + epsilon)
  // (Nesterov: m replaced by beta1 * m + (1 - beta1) * grad in the last step).
  {
    OpDefBuilder b = ApplyOp("ResourceApplyAdam", {"var", "m", "v"});
    b.Input("beta1_power: T").Input("beta2_power: T").Input("lr: T").Input("beta1: T");
    b.Input("beta2: T").Input("epsilon: T").Input("grad: T").Attr("use_nesterov: bool = false");
    b.SetShapeFn(ApplyShape({{0, "var"},
                             {1, "m"},
                             {2, "v"},
                             {3, "beta1_power"},
                             {4, "beta2_power"},
                             {5, "lr"},
                             {6, "beta1"},
                             {7, "beta2"},
                             {8, "epsilon"}}));
    r.Register(Common(b));
  }
}

}  // namespace tw
