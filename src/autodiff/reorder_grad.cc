// Gradients of the ops that only move elements, as TensorFlow's: the incoming gradient
// moved back (reversed again, rolled by -shift, cut to the same band). The integer
// inputs (axes, shifts, band widths) get none.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterReorderGradients(GradientRegistry& r) {
  r.Register("ReverseV2", [](const GradContext& ctx) {
    return std::vector<Output>{grad::Op("ReverseV2", {ctx.grad_outputs[0], ctx.input(1)}), Output()};
  });
  r.Register("Roll", [](const GradContext& ctx) {
    const Output back = grad::Op("Neg", {ctx.input(1)});
    return std::vector<Output>{grad::Op("Roll", {ctx.grad_outputs[0], back, ctx.input(2)}), Output(), Output()};
  });
  r.Register("MatrixBandPart", [](const GradContext& ctx) {
    return std::vector<Output>{
        grad::Op("MatrixBandPart", {ctx.grad_outputs[0], ctx.input(1), ctx.input(2)}), Output(), Output()};
  });
  r.RegisterNoGradient("InvertPermutation");
  r.RegisterNoGradient("UnravelIndex");
  r.Register("ReverseSequence", [](const GradContext& ctx) {
    AttrMap attrs;
    for (const char* name : {"seq_dim", "batch_dim"}) {
      auto v = GetIntAttr(ctx.attrs(), name);
      attrs[name] = MakeAttr(static_cast<int64_t>(v.ok() ? *v : 0));
    }
    return std::vector<Output>{grad::Op("ReverseSequence", {ctx.grad_outputs[0], ctx.input(1)}, attrs), Output()};
  });
}

}  // namespace tw
