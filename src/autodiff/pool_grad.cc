// Gradients of MaxPool, AvgPool and of their gradients, as TensorFlow's: a max's
// gradient routes to the argmax (MaxPoolGrad), and MaxPoolGrad / MaxPoolGradGrad are each
// other's adjoints in their gradient input (zero in the others); AvgPoolGrad is the
// adjoint of the (linear) AvgPool.
#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

AttrMap PoolAttrs(const GradContext& ctx, bool with_explicit_paddings) {
  AttrMap attrs;
  for (const char* name : {"ksize", "strides", "padding", "data_format"}) attrs[name] = ctx.attrs().at(name);
  if (with_explicit_paddings) {
    attrs["explicit_paddings"] = ctx.attrs().at("explicit_paddings");
  } else if (GetStringAttr(ctx.attrs(), "padding").value_or("") == "EXPLICIT") {
    // TensorFlow's MaxPoolGradGrad has no explicit paddings either.
    throw StatusError(absl::UnimplementedError(absl::StrCat(
        "the gradient of '", ctx.op.name(), "' (", ctx.op.type(), ") with EXPLICIT padding: MaxPoolGradGrad takes SAME or VALID")));
  }
  return attrs;
}

std::vector<Output> MaxPoolGrad(const GradContext& ctx) {
  return {grad::Op("MaxPoolGrad", {ctx.input(0), ctx.output(0), ctx.grad_outputs[0]}, PoolAttrs(ctx, true))};
}

std::vector<Output> AvgPoolGrad(const GradContext& ctx) {
  return {grad::Op("AvgPoolGrad", {grad::ShapeOf(ctx.input(0)), ctx.grad_outputs[0]}, PoolAttrs(ctx, false))};
}

std::vector<Output> MaxPoolGradGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), y = ctx.input(1);
  return {grad::Op("ZerosLike", {x}), grad::Op("ZerosLike", {y}),
          grad::Op("MaxPoolGradGrad", {x, y, ctx.grad_outputs[0]}, PoolAttrs(ctx, false))};
}

std::vector<Output> MaxPoolGradGradGrad(const GradContext& ctx) {
  const Output x = ctx.input(0), y = ctx.input(1);
  return {grad::Op("ZerosLike", {x}), grad::Op("ZerosLike", {y}),
          grad::Op("MaxPoolGrad", {x, y, ctx.grad_outputs[0]}, PoolAttrs(ctx, false))};
}

// z = avg_pool_grad(shape, dy) is linear in dy: ddy = avg_pool(dz).
std::vector<Output> AvgPoolGradGrad(const GradContext& ctx) {
  return {Output(), grad::Op("AvgPool", {ctx.grad_outputs[0]}, PoolAttrs(ctx, false))};
}

}  // namespace

void RegisterPoolGradients(GradientRegistry& r) {
  r.Register("MaxPool", MaxPoolGrad);
  r.Register("AvgPool", AvgPoolGrad);
  r.Register("MaxPoolGrad", MaxPoolGradGrad);
  r.Register("MaxPoolGradGrad", MaxPoolGradGradGrad);
  r.Register("AvgPoolGrad", AvgPoolGradGrad);
}

}  // namespace tw
