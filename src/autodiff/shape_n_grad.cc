// Gradients of the shape plumbing, as TensorFlow's: IdentityN and EnsureShape pass the
// gradients through; ShapeN and BroadcastArgs (integer shapes) have none.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterShapeNGradients(GradientRegistry& r) {
  r.Register("IdentityN", [](const GradContext& ctx) { return ctx.grad_outputs; });
  r.Register("EnsureShape", [](const GradContext& ctx) { return std::vector<Output>{ctx.grad_outputs[0]}; });
  r.RegisterNoGradient("ShapeN");
  r.RegisterNoGradient("BroadcastArgs");
}

}  // namespace tw
