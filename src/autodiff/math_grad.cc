// Gradients of the elementwise math ops.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterMathGradients(GradientRegistry& r) {
  r.Register("Add", [](const GradContext& ctx) {
    return grad::UnbroadcastBoth(ctx, ctx.grad_outputs[0], ctx.grad_outputs[0]);
  });
  r.Register("Sub", [](const GradContext& ctx) {
    return grad::UnbroadcastBoth(ctx, ctx.grad_outputs[0], negative(ctx.grad_outputs[0]));
  });
  r.Register("Mul", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    return grad::UnbroadcastBoth(ctx, g * ctx.input(1), ctx.input(0) * g);
  });
}

}  // namespace tw
