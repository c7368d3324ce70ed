// Gradient of ExtractImagePatches, as TensorFlow's _ExtractImagePatchesGrad computes it:
// the op run on an image of 1-based pixel numbers (0 in the padding) says which input pixel
// each patch element came from; the incoming gradient is summed by those numbers
// (UnsortedSegmentSum, segment 0 - the padding - dropped). Only the batch and depth of the
// gradient travel through, so graphs with an unknown batch size work.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterExtractPatchesGradients(GradientRegistry& r) {
  r.Register("ExtractImagePatches", [](const GradContext& ctx) {
    Graph& g = ctx.graph();
    const Output x = ctx.input(0), dy = ctx.grad_outputs[0];
    auto ksizes = GetIntListAttr(ctx.attrs(), "ksizes");
    const int64_t window = ksizes.ok() && ksizes->size() == 4 ? (*ksizes)[1] * (*ksizes)[2] : 1;
    const Output x_shape = grad::ShapeOf(x);
    const Output batch = grad::ElementAt(x_shape, grad::IntScalar(g, 0));
    const Output depth = grad::ElementAt(x_shape, grad::IntScalar(g, 3));
    const Output rows_cols = slice(x_shape, {1}, {2});
    const Output pixels = reduce_prod(rows_cols);

    // [1, rows, cols, 1] pixel numbers through the op: [1, out_rows, out_cols, window].
    const Output numbers = reshape(grad::Op("Range", {grad::IntScalar(g, 1), add(pixels, grad::IntScalar(g, 1)),
                                                      grad::IntScalar(g, 1)}),
                                   concat({grad::IntVector(g, {1}), rows_cols, grad::IntVector(g, {1})}, 0));
    AttrMap attrs;
    for (const char* name : {"ksizes", "strides", "rates", "padding"}) attrs[name] = ctx.attrs().at(name);
    const Output sources = squeeze(grad::Op("ExtractImagePatches", {numbers}, attrs), {0});

    // dy [batch, out_rows, out_cols, window * depth] -> [out_rows, out_cols, window, batch, depth].
    const Output dy_split = reshape(dy, concat({slice(grad::ShapeOf(dy), {0}, {3}), grad::IntVector(g, {window}),
                                                depth}, 0));
    const Output summed = grad::Op("UnsortedSegmentSum", {transpose(dy_split, {1, 2, 3, 0, 4}), sources,
                                                          add(pixels, grad::IntScalar(g, 1))});
    const Output dx = reshape(slice(summed, {1, 0, 0}, {-1, -1, -1}), concat({rows_cols, batch, depth}, 0));
    return std::vector<Output>{transpose(dx, {2, 0, 1, 3})};
  });
}

}  // namespace tw
