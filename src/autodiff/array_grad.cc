// Gradients of the array ops: reshapes undo the reshape, slices pad the gradient back
// into zeros, joins slice it apart, splits join it, transposes and tiles invert.
#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

using grad::IntScalar;
using grad::IntVector;

AttrValue Attr(const GradContext& ctx, const char* name) { return ctx.attrs().at(name); }

// The five mask attrs of a StridedSlice or StridedSliceGrad.
AttrMap SliceMasks(const GradContext& ctx) {
  AttrMap masks;
  for (const char* mask :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    masks[mask] = Attr(ctx, mask);
  }
  return masks;
}

// Reshape, Squeeze, ExpandDims: the gradient reshaped to the input's shape; the shape or
// dim input (if any) gets none.
std::vector<Output> ReshapeBack(const GradContext& ctx) {
  std::vector<Output> grads(ctx.op.node()->num_inputs());
  grads[0] = reshape(ctx.grad_outputs[0], grad::ShapeOf(ctx.input(0)));
  return grads;
}

// Slice: pad the gradient with begin zeros before and the rest after, per dim.
std::vector<Output> SliceGrad(const GradContext& ctx) {
  const Output x = ctx.input(0);
  Output begin = grad::ToInt32(ctx.input(1));
  Output after = grad::ShapeOf(x) - begin - grad::ShapeOf(ctx.output(0));
  Output paddings = stack({begin, after}, 1);
  return {grad::Op("Pad", {ctx.grad_outputs[0], paddings}), Output(), Output()};
}

std::vector<Output> StridedSliceGradFn(const GradContext& ctx) {
  const Output begin = ctx.input(1);
  Output shape = grad::ShapeOf(ctx.input(0));
  if (begin.dtype() == DType::kInt64) shape = cast(shape, DType::kInt64);
  const AttrMap attrs = SliceMasks(ctx);
  Output dx = grad::Op("StridedSliceGrad",
                       {shape, begin, ctx.input(2), ctx.input(3), ctx.grad_outputs[0]}, attrs);
  return {dx, Output(), Output(), Output()};
}

// Second order: StridedSliceGrad is linear in dy, and slicing undoes the scatter.
std::vector<Output> StridedSliceGradGrad(const GradContext& ctx) {
  const AttrMap attrs = SliceMasks(ctx);
  Output ddy = grad::Op("StridedSlice",
                        {ctx.grad_outputs[0], ctx.input(1), ctx.input(2), ctx.input(3)}, attrs);
  return {Output(), Output(), Output(), Output(), ddy};
}

// Pad: the gradient of the interior.
std::vector<Output> PadGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const Output x = ctx.input(0);
  Output paddings = grad::ToInt32(ctx.input(1));
  Output before =
      reshape(grad::Op("Slice", {paddings, IntVector(g, {0, 0}), IntVector(g, {-1, 1})}), {-1});
  return {grad::Op("Slice", {ctx.grad_outputs[0], before, grad::ShapeOf(x)}), Output()};
}

// The gradients of the joined `values` from the gradient `g` of their concatenation
// along `axis`: split g by each value's size along the axis.
std::vector<Output> SplitByInputs(const Output& g, const std::vector<Output>& values,
                                  const Output& axis) {
  if (values.size() == 1) return {g};
  Graph& gr = *g.graph();
  const auto const_axis = grad::ConstInts(axis);
  std::vector<int64_t> known_sizes;
  std::vector<Output> sizes;
  for (const Output& v : values) {
    const PartialShape s = v.shape();
    if (const_axis && const_axis->size() == 1 && s.known_rank()) {
      const int64_t a = (*const_axis)[0] < 0 ? (*const_axis)[0] + s.rank() : (*const_axis)[0];
      if (a >= 0 && a < s.rank() && s.dim(static_cast<int>(a)) >= 0) {
        known_sizes.push_back(s.dim(static_cast<int>(a)));
        sizes.push_back(IntVector(gr, {known_sizes.back()}));
        continue;
      }
    }
    sizes.push_back(grad::ElementAt(grad::ShapeOf(v), grad::ToInt32(axis)));
  }
  Output size_splits =
      known_sizes.size() == values.size() ? IntVector(gr, known_sizes) : concat(sizes, 0);
  return grad::OpOutputs("SplitV", {g, size_splits, grad::ToInt32(axis)},
                         {{"num_split", MakeAttr(static_cast<int64_t>(values.size()))}});
}

std::vector<Output> ConcatV2Grad(const GradContext& ctx) {
  const int n = ctx.op.node()->num_inputs() - 1;
  std::vector<Output> values;
  for (int i = 0; i < n; ++i) values.push_back(ctx.input(i));
  std::vector<Output> grads = SplitByInputs(ctx.grad_outputs[0], values, ctx.input(n));
  grads.push_back(Output());
  return grads;
}

std::vector<Output> ConcatGrad(const GradContext& ctx) {
  const int n = ctx.op.node()->num_inputs() - 1;
  std::vector<Output> values;
  for (int i = 1; i <= n; ++i) values.push_back(ctx.input(i));
  std::vector<Output> grads = SplitByInputs(ctx.grad_outputs[0], values, ctx.input(0));
  grads.insert(grads.begin(), Output());
  return grads;
}

// Concatenates the gradients of every piece of a split along `axis`.
Output JoinPieces(const GradContext& ctx, const Output& axis) {
  if (ctx.grad_outputs.size() == 1) return ctx.grad_outputs[0];
  std::vector<Output> inputs = ctx.grad_outputs;
  inputs.push_back(axis);
  return grad::Op("ConcatV2", inputs);
}

// The inverse of the permutation `perm`: inv[perm[j]] = j.
Output InvertPermutation(const Output& perm) {
  Graph& g = *perm.graph();
  if (auto p = grad::ConstInts(perm)) {
    const int64_t n = static_cast<int64_t>(p->size());
    std::vector<int64_t> inv(n, -1);
    bool valid = true;  // Transpose has checked it; stay safe if not.
    for (int64_t j = 0; j < n && valid; ++j) {
      const int64_t k = (*p)[j];
      valid = k >= 0 && k < n && inv[k] < 0;
      if (valid) inv[k] = j;
    }
    if (valid) return IntVector(g, inv);
  }
  // inv[i] = sum_j j * (perm[j] == i), built as an [n, n] comparison.
  Output p = grad::ToInt32(perm);
  Output idx = grad::Op("Range", {IntScalar(g, 0), size(p), IntScalar(g, 1)});
  Output hits = cast(equal(reshape(p, {1, -1}), reshape(idx, {-1, 1})), DType::kInt32);
  return grad::SumOver(hits * reshape(idx, {1, -1}), IntVector(g, {1}));
}

// Tile: view the gradient as [m0, d0, m1, d1, ...] and sum over the multiples.
std::vector<Output> TileGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const Output x = ctx.input(0);
  Output multiples = grad::ToInt32(ctx.input(1));
  Output split_shape = reshape(stack({multiples, grad::ShapeOf(x)}, 1), {-1});
  Output axes;
  if (x.shape().known_rank()) {
    std::vector<int64_t> even;
    for (int i = 0; i < x.shape().rank(); ++i) even.push_back(2 * i);
    axes = IntVector(g, even);
  } else {
    axes = grad::Op("Range", {IntScalar(g, 0), size(split_shape), IntScalar(g, 2)});
  }
  Output summed = grad::SumOver(reshape(ctx.grad_outputs[0], split_shape), axes);
  return {reshape(summed, grad::ShapeOf(x)), Output()};
}

}  // namespace

void RegisterArrayGradients(GradientRegistry& r) {
  for (const char* op : {"Reshape", "Squeeze", "ExpandDims"}) r.Register(op, ReshapeBack);
  r.Register("Slice", SliceGrad);
  r.Register("StridedSlice", StridedSliceGradFn);
  r.Register("StridedSliceGrad", StridedSliceGradGrad);
  r.Register("Pad", PadGrad);
  r.Register("ConcatV2", ConcatV2Grad);
  r.Register("Concat", ConcatGrad);
  r.Register("Pack", [](const GradContext& ctx) {
    return grad::OpOutputs("Unpack", {ctx.grad_outputs[0]},
                           {{"num", MakeAttr(static_cast<int64_t>(ctx.op.node()->num_inputs()))},
                            {"axis", Attr(ctx, "axis")}});
  });
  r.Register("Unpack", [](const GradContext& ctx) {
    if (ctx.grad_outputs.empty()) return std::vector<Output>{zeros_like(ctx.input(0))};
    return std::vector<Output>{grad::Op("Pack", ctx.grad_outputs, {{"axis", Attr(ctx, "axis")}})};
  });
  r.Register("Split", [](const GradContext& ctx) {
    return std::vector<Output>{Output(), JoinPieces(ctx, ctx.input(0))};
  });
  r.Register("SplitV", [](const GradContext& ctx) {
    return std::vector<Output>{JoinPieces(ctx, ctx.input(2)), Output(), Output()};
  });
  r.Register("Transpose", [](const GradContext& ctx) {
    Output inverse = InvertPermutation(ctx.input(1));
    return std::vector<Output>{grad::Op("Transpose", {ctx.grad_outputs[0], inverse}), Output()};
  });
  r.Register("Tile", TileGrad);
  r.Register("BroadcastTo", [](const GradContext& ctx) {
    return std::vector<Output>{grad::Unbroadcast(ctx.grad_outputs[0], ctx.input(0)), Output()};
  });
  r.Register("Fill", [](const GradContext& ctx) {
    Output flat = reshape(ctx.grad_outputs[0], {-1});
    return std::vector<Output>{Output(), grad::SumOver(flat, IntVector(ctx.graph(), {0}))};
  });
  for (const char* op : {"ZerosLike", "OnesLike", "Shape", "Size", "Rank", "Range", "OneHot",
                         "BroadcastGradientArgs", "Bitcast"}) {
    r.RegisterNoGradient(op);
  }
}

}  // namespace tw
