// TopKV2's gradient: each value's gradient goes back to the input position its index names
// (the rest get 0), as TensorFlow's scatter; InTopK's bool output has none.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterTopKGradients(GradientRegistry& r) {
  r.Register("TopKV2", [](const GradContext& ctx) {
    Graph& g = ctx.graph();
    const Output x = ctx.input(0);
    const Output indices = cast(ctx.output(1), DType::kInt32);
    const Output x_shape = grad::ShapeOf(x);
    const Output n = reshape(grad::ElementAt(x_shape, grad::IntScalar(g, -1)), grad::IntVector(g, {}));
    const Output k = grad::ElementAt(grad::ShapeOf(indices), grad::IntScalar(g, -1));
    const Output size = grad::Op("Size", {x});
    // Row r's indices offset by r * n address the flattened input.
    Output rows = reshape(indices, concat({grad::IntVector(g, {-1}), k}, 0));
    Output offsets = expand_dims(grad::Op("Range", {grad::IntScalar(g, 0), size, n}), -1);
    Output flat = reshape(rows + offsets, grad::IntVector(g, {-1}));
    Output values = reshape(ctx.grad_outputs[0], grad::IntVector(g, {-1}));
    Output dx = reshape(grad::Op("UnsortedSegmentSum", {values, flat, size}), x_shape);
    return std::vector<Output>{dx, zeros_like(ctx.input(1))};
  });
  r.RegisterNoGradient("InTopK");
  r.RegisterNoGradient("InTopKV2");
}

}  // namespace tw
