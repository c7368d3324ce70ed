// Gradients of the segment reductions, TensorFlow's rules: SegmentSum hands each data row its
// segment's gradient; SegmentMean that divided by the segment's size; (Unsorted)SegmentMax/Min
// split a segment's gradient evenly over the rows equal to its extremum; (Unsorted)SegmentProd
// hands each row the product of the others (0 in a segment with two zeros). Rows with a
// negative id get 0.
#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

using grad::IntScalar;

Output GatherRows(const Output& params, const Output& ids) {
  return grad::Op("GatherV2", {params, ids, IntScalar(*params.graph(), 0)});
}

std::vector<Output> SegmentSumGrad(const GradContext& ctx) {
  return {GatherRows(ctx.grad_outputs[0], ctx.input(1)), Output()};
}

std::vector<Output> SegmentMeanGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const Output data = ctx.input(0), ids = ctx.input(1);
  // Ones shaped [n, 1, .., 1] (data's rank): each segment's size, broadcast over its row.
  const Output ones_shape = grad::Op(
      "ConcatV2", {grad::ShapeOf(ids), grad::Op("Fill", {reshape(grad::RankOf(data) - IntScalar(g, 1), {1}),
                                                         IntScalar(g, 1)}),
                   IntScalar(g, 0)});
  const Output ones = grad::Op("Fill", {ones_shape, grad::ScalarLike(data, 1)});
  const Output scaled = ctx.grad_outputs[0] / grad::Op("SegmentSum", {ones, ids});
  return {GatherRows(scaled, ids), Output()};
}

// The segments' rows of params for each data row; unsorted: rows of negative ids get 0.
Output GatherForRows(const GradContext& ctx, const Output& params, bool unsorted) {
  const Output ids = ctx.input(1);
  if (!unsorted) return GatherRows(params, ids);
  Graph& g = ctx.graph();
  const Output gathered = GatherRows(params, maximum(ids, zeros_like(ids)));
  const Output trailing =
      grad::Op("Fill", {reshape(grad::RankOf(gathered) - grad::RankOf(ids), {1}), IntScalar(g, 1)});
  const Output kept = grad::Op("Reshape", {greater_equal(ids, zeros_like(ids)),
                                           grad::Op("ConcatV2", {grad::ShapeOf(ids), trailing, IntScalar(g, 0)})});
  return grad::Op("SelectV2", {kept, gathered, zeros_like(gathered)});
}

// A segment sum or product over the op's own ids (and num_segments, unsorted).
Output SegmentOf(const GradContext& ctx, const char* sorted_op, const char* unsorted_op, const Output& data,
                 bool unsorted) {
  return unsorted ? grad::Op(unsorted_op, {data, ctx.input(1), ctx.input(2)})
                  : grad::Op(sorted_op, {data, ctx.input(1)});
}

// TensorFlow's _SegmentMinOrMaxGrad: the gradient split over the rows equal to the extremum.
template <bool kUnsorted>
std::vector<Output> SegmentExtremumGrad(const GradContext& ctx) {
  const Output data = ctx.input(0);
  const Output zeros = zeros_like(data);
  const Output selected = equal(data, GatherForRows(ctx, ctx.output(0), kUnsorted));
  const Output count = SegmentOf(ctx, "SegmentSum", "UnsortedSegmentSum", cast(selected, data.dtype()), kUnsorted);
  const Output share = GatherForRows(ctx, ctx.grad_outputs[0] / count, kUnsorted);
  std::vector<Output> out = {grad::Op("SelectV2", {selected, share, zeros}), Output()};
  if (kUnsorted) out.push_back(Output());
  return out;
}

// TensorFlow's _SegmentProdGrad / _UnsortedSegmentProdGrad: each row gets the product of its
// segment's others (the segment's product over the row when it is not 0; when it is, the
// product of the nonzero rows, and 0 where the segment has another zero).
template <bool kUnsorted>
std::vector<Output> SegmentProdGrad(const GradContext& ctx) {
  const Output data = ctx.input(0);
  const Output is_zero = equal(data, zeros_like(data));
  const Output zeros =
      SegmentOf(ctx, "SegmentSum", "UnsortedSegmentSum", cast(is_zero, DType::kInt32), kUnsorted);
  Output g = ctx.grad_outputs[0];
  g = grad::Op("SelectV2", {greater(zeros, ones_like(zeros)), zeros_like(g), g});
  const Output non_zero = grad::Op("SelectV2", {is_zero, ones_like(data), data});
  const Output non_zero_prod = SegmentOf(ctx, "SegmentProd", "UnsortedSegmentProd", non_zero, kUnsorted);
  const Output partial = grad::Op("SelectV2", {is_zero, GatherForRows(ctx, non_zero_prod, kUnsorted),
                                               GatherForRows(ctx, ctx.output(0), kUnsorted) / non_zero});
  std::vector<Output> out = {GatherForRows(ctx, g, kUnsorted) * partial, Output()};
  if (kUnsorted) out.push_back(Output());
  return out;
}

}  // namespace

void RegisterSegmentGradients(GradientRegistry& r) {
  r.Register("SegmentSum", SegmentSumGrad);
  r.Register("SegmentMean", SegmentMeanGrad);
  r.Register("UnsortedSegmentMax", SegmentExtremumGrad<true>);
  r.Register("UnsortedSegmentMin", SegmentExtremumGrad<true>);
  r.Register("SegmentMax", SegmentExtremumGrad<false>);
  r.Register("SegmentMin", SegmentExtremumGrad<false>);
  r.Register("SegmentProd", SegmentProdGrad<false>);
  r.Register("UnsortedSegmentProd", SegmentProdGrad<true>);
}

}  // namespace tw
