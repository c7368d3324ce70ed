// Gradients of the segment reductions, TensorFlow's rules: SegmentSum hands each data row its
// segment's gradient; SegmentMean that divided by the segment's size; UnsortedSegmentMax/Min
// split a segment's gradient evenly over the rows equal to its extremum (rows with a negative
// id get 0).
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

std::vector<Output> UnsortedSegmentExtremumGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const Output data = ctx.input(0), ids = ctx.input(1);
  const Output clipped = maximum(ids, zeros_like(ids));
  // ids' positivity, shaped [ids dims] + [1] * (data rank - ids rank) to broadcast over rows.
  const Output trailing = grad::Op("Fill", {reshape(grad::RankOf(data) - grad::RankOf(ids), {1}), IntScalar(g, 1)});
  const Output kept = grad::Op("Reshape", {greater_equal(ids, zeros_like(ids)),
                                           grad::Op("ConcatV2", {grad::ShapeOf(ids), trailing, IntScalar(g, 0)})});
  const Output zeros = zeros_like(data);
  const Output extremum = grad::Op("SelectV2", {kept, GatherRows(ctx.output(0), clipped), zeros});
  const Output selected = logical_and(equal(data, extremum), kept);
  const Output count = grad::Op("UnsortedSegmentSum", {cast(selected, data.dtype()), ids, ctx.input(2)});
  const Output share = GatherRows(ctx.grad_outputs[0] / count, clipped);
  return {grad::Op("SelectV2", {selected, share, zeros}), Output(), Output()};
}

}  // namespace

void RegisterSegmentGradients(GradientRegistry& r) {
  r.Register("SegmentSum", SegmentSumGrad);
  r.Register("SegmentMean", SegmentMeanGrad);
  r.Register("UnsortedSegmentMax", UnsortedSegmentExtremumGrad);
  r.Register("UnsortedSegmentMin", UnsortedSegmentExtremumGrad);
}

}  // namespace tw
