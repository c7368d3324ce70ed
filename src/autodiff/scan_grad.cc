// Gradients of Cumsum and Cumprod, as TensorFlow's: the running sum of the gradient taken
// the other way round; for Cumprod, of prod * g, divided by x (0 where x is 0).
#include "autodiff/grad_util.h"

namespace tw {
namespace {

Output Cumsum(const Output& x, const Output& axis, bool exclusive, bool reverse) {
  return grad::Op("Cumsum", {x, axis}, {{"exclusive", MakeAttr(exclusive)}, {"reverse", MakeAttr(reverse)}});
}

bool BoolAttr(const GradContext& ctx, const char* name) {
  auto v = GetBoolAttr(ctx.attrs(), name);
  return v.ok() && *v;
}

}  // namespace

void RegisterScanGradients(GradientRegistry& r) {
  r.Register("Cumsum", [](const GradContext& ctx) {
    const Output axis = ctx.input(1);
    return std::vector<Output>{
        Cumsum(ctx.grad_outputs[0], axis, BoolAttr(ctx, "exclusive"), !BoolAttr(ctx, "reverse")), zeros_like(axis)};
  });
  r.Register("Cumprod", [](const GradContext& ctx) {
    const Output x = ctx.input(0), axis = ctx.input(1);
    const bool exclusive = BoolAttr(ctx, "exclusive"), reverse = BoolAttr(ctx, "reverse");
    const Output prod = grad::Op("Cumprod", {x, axis},
                                 {{"exclusive", MakeAttr(exclusive)}, {"reverse", MakeAttr(reverse)}});
    const Output sum = Cumsum(prod * ctx.grad_outputs[0], axis, exclusive, !reverse);
    // TensorFlow's div_no_nan: 0 where x is 0.
    const Output zeros = zeros_like(x);
    Output dx = grad::Op("SelectV2", {grad::Op("Equal", {x, zeros}), zeros, sum / x});
    return std::vector<Output>{dx, zeros_like(axis)};
  });
}

}  // namespace tw
