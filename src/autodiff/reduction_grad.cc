// Gradients of the reductions. Every reduction's gradient first brings the output's
// gradient back to keep_dims form (the input's rank, reduced dims of size 1), then
// broadcasts it over the input. Shapes come from the graph, so unknown shapes work.
#include <algorithm>

#include "autodiff/grad_util.h"

namespace tw {
namespace {

bool KeepDims(const GradContext& ctx) {
  auto keep = GetBoolAttr(ctx.attrs(), "keep_dims");
  return keep.ok() && *keep;
}

// `t` (shaped like the op's output) reshaped to the keep_dims form.
Output Kept(const GradContext& ctx, const Output& t) {
  if (KeepDims(ctx)) return t;
  return reshape(t, grad::ReducedShape(ctx.input(0), ctx.input(1)));
}

// The output's gradient spread evenly over the input, as for Sum.
Output BroadcastToInput(const GradContext& ctx) {
  return grad::Op("BroadcastTo", {Kept(ctx, ctx.grad_outputs[0]), grad::ShapeOf(ctx.input(0))});
}

// The number of input elements behind each output element, as a scalar of x's dtype.
Output ReducedCount(const GradContext& ctx) {
  const Output x = ctx.input(0), y = ctx.output(0);
  const PartialShape xs = x.shape(), ys = y.shape();
  if (xs.IsFullyDefined() && ys.IsFullyDefined()) {
    const int64_t out = std::max<int64_t>(ys.num_elements(), 1);
    return grad::ScalarLike(x, static_cast<double>(xs.num_elements() / out));
  }
  Graph& g = ctx.graph();
  Output out = maximum(size(y, DType::kInt64), constant(g, int64_t{1}));
  return cast(divide(size(x, DType::kInt64), out), x.dtype());
}

// Max and Min: the gradient goes to the elements equal to the result, split evenly
// among ties.
std::vector<Output> MaxMinGrad(const GradContext& ctx) {
  const Output x = ctx.input(0);
  Output picked = cast(equal(Kept(ctx, ctx.output(0)), x), x.dtype());
  Output ties = grad::SumOver(picked, ctx.input(1), /*keep_dims=*/true);
  return {picked / ties * Kept(ctx, ctx.grad_outputs[0]), Output()};
}

// Prod: d/dx_i is the product of the other elements of x_i's group. With no zero in the
// group that is prod / x_i; with one zero only the zero element gets the product of
// the rest; with more every element gets 0. Division only by nonzero elements.
std::vector<Output> ProdGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), axes = ctx.input(1);
  Output is_zero = equal(x, grad::ScalarLike(x, 0));
  Output safe_x = where(is_zero, ones_like(x), x);
  Output zeros = grad::SumOver(cast(is_zero, x.dtype()), axes, /*keep_dims=*/true);
  Output others = grad::Op("Prod", {safe_x, axes}, {{"keep_dims", MakeAttr(true)}});
  Output none_zero = cast(equal(zeros, grad::ScalarLike(x, 0)), x.dtype());
  Output one_zero = cast(equal(zeros, grad::ScalarLike(x, 1)), x.dtype());
  Output at_zero = others * one_zero;
  Output at_nonzero = others * none_zero / safe_x;
  Output local = grad::Op("SelectV2", {is_zero, at_zero, at_nonzero});
  return {local * Kept(ctx, ctx.grad_outputs[0]), Output()};
}

}  // namespace

void RegisterReductionGradients(GradientRegistry& r) {
  r.Register("Sum", [](const GradContext& ctx) {
    return std::vector<Output>{BroadcastToInput(ctx), Output()};
  });
  r.Register("Mean", [](const GradContext& ctx) {
    return std::vector<Output>{BroadcastToInput(ctx) / ReducedCount(ctx), Output()};
  });
  r.Register("Max", MaxMinGrad);
  r.Register("Min", MaxMinGrad);
  r.Register("Prod", ProdGrad);
  r.RegisterNoGradient("ArgMax");
  r.RegisterNoGradient("ArgMin");
}

}  // namespace tw
