// Gradients of GatherV2 and UnsortedSegmentSum, each the other's adjoint: a gather's
// gradient sums the incoming rows back into the rows they came from (dense, through
// UnsortedSegmentSum; TensorFlow's IndexedSlices come with the embeddings work), and a
// segment sum's gradient gathers each row's gradient (zeros for dropped negative ids).
#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

using grad::IntScalar;
using grad::IntVector;

// Permutation that moves dim `from` of a rank-`rank` tensor to position `to`.
std::vector<int64_t> MoveDim(int rank, int from, int to) {
  std::vector<int64_t> perm;
  for (int d = 0; d < rank; ++d) {
    if (d != from) perm.push_back(d);
  }
  perm.insert(perm.begin() + to, from);
  return perm;
}

// Slice [begin, end) of a shape vector (end -1: to its end).
Output Dims(Graph& g, const Output& shape, int begin, int end) {
  return grad::Op("Slice", {shape, IntVector(g, {begin}), IntVector(g, {end < 0 ? -1 : end - begin})});
}

// With b = batch_dims, dz is [B.., O.., I.., In..] for params [B.., O.., N, In..] (B the
// batch dims, O those before the axis, I indices' dims after the batch ones). Moving the
// index dims before O and offsetting batch row r's indices by r * N makes it one segment
// sum over B * N rows, reshaped and moved back.
Output BatchGatherGrad(const GradContext& ctx, int rank, int axis, int b) {
  Graph& g = ctx.graph();
  const Output params_shape = grad::ShapeOf(ctx.input(0));
  const Output batch = Dims(g, params_shape, 0, b), outer = Dims(g, params_shape, b, axis);
  const Output inner = Dims(g, params_shape, axis + 1, -1);
  const Output rows = reshape(grad::ElementAt(params_shape, IntScalar(g, axis)), Axes{});
  const Output batch_size = grad::Op("Prod", {batch, IntScalar(g, 0)});
  Output values = grad::Op("Reshape", {ctx.grad_outputs[0], grad::Op("ConcatV2", {batch, outer, IntVector(g, {-1}),
                                                                                  inner, IntScalar(g, 0)})});
  values = transpose(values, MoveDim(rank, axis, b));
  values = grad::Op("Reshape", {values, grad::Op("ConcatV2", {IntVector(g, {-1}), outer, inner, IntScalar(g, 0)})});
  const Output offsets = grad::Op("Range", {IntScalar(g, 0), batch_size * rows, rows});
  Output ids = grad::Op("Reshape", {grad::ToInt32(ctx.input(1)), grad::Op("Pack", {batch_size, IntScalar(g, -1)})});
  ids = reshape(ids + reshape(offsets, {-1, 1}), {-1});
  Output summed = grad::Op("UnsortedSegmentSum", {values, ids, batch_size * rows});
  summed = grad::Op("Reshape", {summed, grad::Op("ConcatV2", {batch, reshape(rows, {1}), outer, inner,
                                                              IntScalar(g, 0)})});
  return transpose(summed, MoveDim(rank, b, axis));
}

// z = gather(params, indices, axis): dparams[.., indices[k], ..] += dz[.., k, ..]. The
// gathered axis is moved first, summed into its rows, and moved back.
std::vector<Output> GatherV2Grad(const GradContext& ctx) {
  const Output params = ctx.input(0), indices = ctx.input(1);
  const auto axis_value = grad::ConstInts(ctx.input(2));
  const PartialShape& pshape = params.shape();
  const int64_t batch_dims = GetIntAttr(ctx.attrs(), "batch_dims").value_or(0);
  if (batch_dims != 0) {
    if (!axis_value || axis_value->size() != 1 || !pshape.known_rank() || !indices.shape().known_rank()) {
      throw StatusError(absl::UnimplementedError(absl::StrCat(
          "gradient of GatherV2 '", ctx.op.name(), "' with batch_dims needs a constant axis and params and "
          "indices of known rank")));
    }
    const int rank = pshape.rank(), irank = indices.shape().rank();
    const int axis = static_cast<int>((*axis_value)[0] < 0 ? (*axis_value)[0] + rank : (*axis_value)[0]);
    const int b = static_cast<int>(batch_dims < 0 ? batch_dims + irank : batch_dims);
    return {BatchGatherGrad(ctx, rank, axis, b), Output(), Output()};
  }
  // Axis 0 (embeddings, a variable's read of unknown static shape) needs no permutation;
  // another axis needs the rank to move it first and back.
  const bool axis_zero = axis_value && axis_value->size() == 1 && (*axis_value)[0] == 0;
  if (!axis_value || axis_value->size() != 1 || (!axis_zero && !pshape.known_rank())) {
    throw StatusError(absl::UnimplementedError(absl::StrCat(
        "gradient of GatherV2 '", ctx.op.name(), "' needs a constant axis, and params of known rank "
        "unless the axis is 0")));
  }
  const int rank = pshape.known_rank() ? pshape.rank() : -1;
  const int axis = static_cast<int>((*axis_value)[0] < 0 ? (*axis_value)[0] + rank : (*axis_value)[0]);
  Graph& g = ctx.graph();
  const Output params_shape = grad::ShapeOf(params);
  const Output ids = reshape(grad::ToInt32(indices), {-1});
  // dz has shape params[:axis] + indices.shape + params[axis+1:]; fold indices' dims into one.
  const Output outer = grad::Op("Slice", {params_shape, IntVector(g, {0}), IntVector(g, {axis})});
  const Output inner = grad::Op("Slice", {params_shape, IntVector(g, {axis + 1}), IntVector(g, {-1})});
  const Output values_shape = grad::Op("ConcatV2", {outer, IntVector(g, {-1}), inner, IntScalar(g, 0)});
  Output values = grad::Op("Reshape", {ctx.grad_outputs[0], values_shape});
  if (axis != 0) values = transpose(values, MoveDim(rank, axis, 0));
  const Output rows = grad::ElementAt(params_shape, IntScalar(g, axis));
  Output summed = grad::Op("UnsortedSegmentSum", {values, ids, reshape(rows, Axes{})});
  if (axis != 0) summed = transpose(summed, MoveDim(rank, 0, axis));
  return {summed, Output(), Output()};
}

// z[s] = sum over {i: ids[i] = s} of data[i]: ddata[i] = dz[ids[i]], 0 where ids[i] < 0.
std::vector<Output> UnsortedSegmentSumGrad(const GradContext& ctx) {
  const Output ids = ctx.input(1);
  const Output clipped = maximum(ids, zeros_like(ids));
  Output gathered = grad::Op("GatherV2", {ctx.grad_outputs[0], clipped, IntScalar(ctx.graph(), 0)});
  // The mask has ids' shape; broadcast it over the trailing dims of the gathered rows.
  Output keep = greater_equal(ids, zeros_like(ids));
  const Output ones = grad::Op("Fill", {reshape(grad::RankOf(gathered) - grad::RankOf(ids), {1}),
                                        IntScalar(ctx.graph(), 1)});
  keep = grad::Op("Reshape", {keep, grad::Op("ConcatV2", {grad::ShapeOf(ids), ones, IntScalar(ctx.graph(), 0)})});
  const Output zero = grad::ScalarLike(gathered, 0);
  return {grad::Op("SelectV2", {keep, gathered, zero}), Output(), Output()};
}

}  // namespace

void RegisterGatherGradients(GradientRegistry& r) {
  r.Register("GatherV2", GatherV2Grad);
  r.Register("UnsortedSegmentSum", UnsortedSegmentSumGrad);
}

}  // namespace tw
