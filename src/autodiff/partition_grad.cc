// Gradients of the row-routing ops, TensorFlow's rules: Gather (v1) sums the incoming rows
// back into the rows they came from (as GatherV2 on axis 0); DynamicStitch hands each data
// input the rows of the merged gradient its indices picked; DynamicPartition stitches the
// partitions' gradients back into data's order.
#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

using grad::IntScalar;
using grad::IntVector;

std::vector<Output> GatherV1Grad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const Output params_shape = grad::ShapeOf(ctx.input(0));
  const Output ids = reshape(grad::ToInt32(ctx.input(1)), {-1});
  const Output inner = grad::Op("Slice", {params_shape, IntVector(g, {1}), IntVector(g, {-1})});
  const Output values = grad::Op(
      "Reshape", {ctx.grad_outputs[0], grad::Op("ConcatV2", {IntVector(g, {-1}), inner, IntScalar(g, 0)})});
  const Output rows = reshape(grad::ElementAt(params_shape, IntScalar(g, 0)), Axes{});
  return {grad::Op("UnsortedSegmentSum", {values, ids, rows}), Output()};
}

std::vector<Output> DynamicStitchGrad(const GradContext& ctx) {
  const int n = ctx.op.node()->num_inputs() / 2;
  std::vector<Output> grads(n);  // indices: no gradient
  for (int m = 0; m < n; ++m) {
    grads.push_back(grad::Op("GatherV2", {ctx.grad_outputs[0], grad::ToInt32(ctx.input(m)), IntScalar(ctx.graph(), 0)}));
  }
  return grads;
}

std::vector<Output> DynamicPartitionGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const Output partitions = ctx.input(1);
  const Output prefix_shape = grad::ShapeOf(partitions);
  const Output count = grad::Op("Prod", {prefix_shape, IntVector(g, {0})});
  const Output positions =
      grad::Op("Reshape", {grad::Op("Range", {IntScalar(g, 0), count, IntScalar(g, 1)}), prefix_shape});
  const int n = static_cast<int>(ctx.grad_outputs.size());
  std::vector<Output> routed = grad::OpOutputs("DynamicPartition", {positions, partitions},
                                               {{"num_partitions", MakeAttr(int64_t{n})}});
  std::vector<Output> stitch_inputs = routed;
  stitch_inputs.insert(stitch_inputs.end(), ctx.grad_outputs.begin(), ctx.grad_outputs.end());
  const Output merged = grad::Op("ParallelDynamicStitch", stitch_inputs);
  return {grad::Op("Reshape", {merged, grad::ShapeOf(ctx.input(0))}), Output()};
}

// z = gather_nd(params, indices): dparams = scatter_nd(indices, dz, shape(params)).
std::vector<Output> GatherNdGrad(const GradContext& ctx) {
  const Output indices = ctx.input(1);
  Output shape = grad::ShapeOf(ctx.input(0));
  if (indices.dtype() == DType::kInt64) shape = cast(shape, DType::kInt64);
  return {grad::Op("ScatterNd", {indices, ctx.grad_outputs[0], shape}), Output()};
}

// z = scatter_nd(indices, updates, shape): dupdates = gather_nd(dz, indices).
std::vector<Output> ScatterNdGrad(const GradContext& ctx) {
  return {Output(), grad::Op("GatherNd", {ctx.grad_outputs[0], ctx.input(0)}), Output()};
}

// z = tensor_scatter_update(x, indices, u): dx = dz with the updated slices zeroed,
// du = gather_nd(dz, indices). Add passes dz to x; Sub negates du.
std::vector<Output> TensorScatterUpdateGrad(const GradContext& ctx) {
  const Output& dz = ctx.grad_outputs[0];
  const Output zeros = grad::Op("ZerosLike", {ctx.input(2)});
  return {grad::Op("TensorScatterUpdate", {dz, ctx.input(1), zeros}), Output(),
          grad::Op("GatherNd", {dz, ctx.input(1)})};
}

std::vector<Output> TensorScatterAddGrad(const GradContext& ctx) {
  const Output& dz = ctx.grad_outputs[0];
  return {dz, Output(), grad::Op("GatherNd", {dz, ctx.input(1)})};
}

std::vector<Output> TensorScatterSubGrad(const GradContext& ctx) {
  const Output& dz = ctx.grad_outputs[0];
  return {dz, Output(), grad::Op("Neg", {grad::Op("GatherNd", {dz, ctx.input(1)})})};
}

// z = tensor_scatter_min/max(x, indices, u): dz goes to whichever of x and the updates
// equal the result, split evenly between ties (TensorFlow's _TensorScatterMinOrMaxGrad).
std::vector<Output> TensorScatterMinOrMaxGrad(const GradContext& ctx) {
  const Output& dz = ctx.grad_outputs[0];
  const Output x = ctx.input(0), indices = ctx.input(1), u = ctx.input(2), z = ctx.output(0);
  const DType dt = dz.dtype();
  const Output x_ind = cast(grad::Op("Equal", {x, z}), dt);
  const Output u_ind = cast(grad::Op("Equal", {u, grad::Op("GatherNd", {z, indices})}), dt);
  Output shape = grad::ShapeOf(x);
  if (indices.dtype() == DType::kInt64) shape = cast(shape, DType::kInt64);
  const Output ind = grad::Op("AddV2", {x_ind, grad::Op("ScatterNd", {indices, u_ind, shape})});
  const Output x_grad = grad::Op("RealDiv", {grad::Op("Mul", {dz, x_ind}), ind});
  const Output u_grad = grad::Op("Mul", {grad::Op("GatherNd", {grad::Op("RealDiv", {dz, ind}), indices}), u_ind});
  return {x_grad, Output(), u_grad};
}

// z = sparse_to_dense(indices, shape, values, default): dvalues = gather_nd(dz, indices),
// ddefault = sum(dz) - sum(dvalues), as TensorFlow's gradient.
std::vector<Output> SparseToDenseGrad(const GradContext& ctx) {
  const Output& dz = ctx.grad_outputs[0];
  const Output values_grad = grad::Op("GatherNd", {dz, ctx.input(0)});
  return {Output(), Output(), values_grad, reduce_sum(dz) - reduce_sum(values_grad)};
}

// z = resource_gather(var, indices): the variable's gradient (through its handle) sums the
// rows back, as Gather's; Python hands it out as IndexedSlices (indexed_slices.py).
std::vector<Output> ResourceGatherGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const DType dtype = ctx.output(0).dtype();
  const Output value = grad::Op("ReadVariableOp", {ctx.input(0)}, {{"dtype", MakeAttr(dtype)}});
  const Output params_shape = grad::ShapeOf(value);
  const Output ids = reshape(grad::ToInt32(ctx.input(1)), {-1});
  const Output inner = grad::Op("Slice", {params_shape, IntVector(g, {1}), IntVector(g, {-1})});
  const Output values = grad::Op(
      "Reshape", {ctx.grad_outputs[0], grad::Op("ConcatV2", {IntVector(g, {-1}), inner, IntScalar(g, 0)})});
  const Output rows = reshape(grad::ElementAt(params_shape, IntScalar(g, 0)), Axes{});
  return {grad::Op("UnsortedSegmentSum", {values, ids, rows}), Output()};
}

}  // namespace

void RegisterPartitionGradients(GradientRegistry& r) {
  r.Register("Gather", GatherV1Grad);
  r.Register("DynamicStitch", DynamicStitchGrad);
  r.Register("ParallelDynamicStitch", DynamicStitchGrad);
  r.Register("DynamicPartition", DynamicPartitionGrad);
  r.Register("GatherNd", GatherNdGrad);
  r.Register("ResourceGather", ResourceGatherGrad);
  r.Register("ScatterNd", ScatterNdGrad);
  r.Register("TensorScatterUpdate", TensorScatterUpdateGrad);
  r.Register("TensorScatterAdd", TensorScatterAddGrad);
  r.Register("TensorScatterSub", TensorScatterSubGrad);
  r.Register("TensorScatterMin", TensorScatterMinOrMaxGrad);
  r.Register("TensorScatterMax", TensorScatterMinOrMaxGrad);
  r.Register("SparseToDense", SparseToDenseGrad);
}

}  // namespace tw
