#include "autodiff/grad_util.h"

#include "graph/graph.h"

namespace tw::grad {

Output Op(const std::string& op, const std::vector<Output>& inputs, AttrMap attrs) {
  return inputs[0].graph()->AddOperation(op, op, inputs, attrs).output(0);
}

Output SumOver(const Output& x, const Output& axes, bool keep_dims) {
  return Op("Sum", {x, axes}, {{"keep_dims", MakeAttr(keep_dims)}});
}

Output ScalarLike(const Output& x, double value) { return scalar_like(x, value); }

Output Unbroadcast(const Output& grad, const Output& x) {
  const PartialShape xs = x.shape(), gs = grad.shape();
  if (xs.IsFullyDefined() && gs.IsFullyDefined() && xs == gs) return grad;
  Output x_shape = shape(x), g_shape = shape(grad);
  Operation args = x.graph()->AddOperation("BroadcastGradientArgs", "BroadcastGradientArgs",
                                           {x_shape, g_shape}, {});
  return reshape(SumOver(grad, args.output(0)), x_shape);
}

std::vector<Output> UnbroadcastBoth(const GradContext& ctx, const Output& gx, const Output& gy) {
  return {Unbroadcast(gx, ctx.input(0)), Unbroadcast(gy, ctx.input(1))};
}

}  // namespace tw::grad
