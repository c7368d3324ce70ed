// ClipByValue's gradient, as TensorFlow's: g passes to t where t lies in [lo, hi], to lo
// where t < lo and to hi where t > hi, each summed down to its bound's shape.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterClipGradients(GradientRegistry& r) {
  r.Register("ClipByValue", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output t = ctx.input(0), lo = ctx.input(1), hi = ctx.input(2);
    const Output zeros = zeros_like(g);
    const Output below = less(t, lo), above = grad::Op("Greater", {t, hi});
    Output dt = grad::Op("SelectV2", {grad::Op("LogicalOr", {below, above}), zeros, g});
    Output dlo = grad::Unbroadcast(grad::Op("SelectV2", {below, g, zeros}), lo);
    Output dhi = grad::Unbroadcast(grad::Op("SelectV2", {above, g, zeros}), hi);
    return std::vector<Output>{dt, dlo, dhi};
  });
}

}  // namespace tw
