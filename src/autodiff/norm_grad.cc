// Gradients of FusedBatchNorm(V2/V3), as TensorFlow's: FusedBatchNormGrad of the same
// version, fed the saved batch statistics (reserve spaces) when training and the given
// population mean and variance at inference. Gradients flowing into batch_mean /
// batch_variance are ignored and mean / variance get none, as in TensorFlow.
// FusedBatchNormGrad's own gradient, as TF's: the same backprop written with basic ops,
// differentiated in (y_backprop, x, scale).
#include <string>

#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

GradFn FusedBatchNormGradFn(const std::string& grad_op, bool v3) {
  return [grad_op, v3](const GradContext& ctx) -> std::vector<Output> {
    AttrMap attrs;
    for (const char* name : {"epsilon", "data_format", "is_training"}) attrs[name] = ctx.attrs().at(name);
    const bool training = GetBoolAttr(ctx.attrs(), "is_training").value_or(true);
    std::vector<Output> inputs = {ctx.grad_outputs[0], ctx.input(0), ctx.input(1)};
    if (training) {
      inputs.push_back(ctx.output(3));
      inputs.push_back(ctx.output(4));
    } else {
      inputs.push_back(ctx.input(3));
      inputs.push_back(ctx.input(4));
    }
    if (v3) inputs.push_back(ctx.output(5));
    const std::vector<Output> g = grad::OpOutputs(grad_op, inputs, attrs);
    return {g[0], g[1], g[2], Output(), Output()};
  };
}

// FusedBatchNormGrad's outputs (x, scale and offset backprops) from basic ops. Statistics
// keep their reduced dims, and per-channel vectors are reshaped to broadcast in the data
// format; when training the batch statistics are recomputed from x (so they are
// differentiated too), at inference the population ones are constants.
std::vector<Output> BatchNormBackprop(const GradContext& ctx, const Output& dy, const Output& x, const Output& scale) {
  Graph& g = ctx.graph();
  const bool nchw = GetStringAttr(ctx.attrs(), "data_format").value_or("NHWC") == "NCHW";
  const bool training = GetBoolAttr(ctx.attrs(), "is_training").value_or(true);
  const Output eps = grad::ScalarLike(x, GetFloatAttr(ctx.attrs(), "epsilon").value_or(1e-4f));
  const Output axes = grad::IntVector(g, nchw ? std::vector<int64_t>{0, 2, 3} : std::vector<int64_t>{0, 1, 2});
  const Output per_channel = grad::IntVector(g, nchw ? std::vector<int64_t>{1, -1, 1, 1} : std::vector<int64_t>{1, 1, 1, -1});
  const Output flat = grad::IntVector(g, {-1});
  const AttrMap keep = {{"keep_dims", MakeAttr(true)}};
  auto mean = [&](const Output& t) { return grad::Op("Mean", {t, axes}, keep); };
  auto sum = [&](const Output& t) { return grad::Op("Sum", {t, axes}, keep); };
  auto bcast = [&](const Output& v) { return grad::Op("Reshape", {v, per_channel}); };
  auto vec = [&](const Output& t) { return grad::Op("Reshape", {t, flat}); };
  auto op = [](const char* name, const Output& a, const Output& b) { return grad::Op(name, {a, b}); };
  const Output offset_backprop = vec(sum(dy));
  if (!training) {
    const Output rs = grad::Op("Rsqrt", {op("Add", bcast(ctx.input(4)), eps)});
    const Output x_hat = op("Mul", op("Sub", x, bcast(ctx.input(3))), rs);
    return {op("Mul", dy, op("Mul", bcast(scale), rs)), vec(sum(op("Mul", dy, x_hat))), offset_backprop};
  }
  const Output x_off = op("Sub", x, mean(x));
  const Output var_eps = op("Add", mean(grad::Op("Square", {x_off})), eps);
  const Output rs = grad::Op("Rsqrt", {var_eps});
  const Output dy_x_off = op("Mul", dy, x_off);
  const Output centered = op("Sub", op("Sub", dy, mean(dy)),
                             op("Mul", op("Mul", grad::Op("Reciprocal", {var_eps}), mean(dy_x_off)), x_off));
  return {op("Mul", op("Mul", bcast(scale), rs), centered), vec(op("Mul", rs, sum(dy_x_off))), offset_backprop};
}

std::vector<Output> FusedBatchNormGradGrad(const GradContext& ctx) {
  // Identities cut the backprop off from the graph above: dy usually depends on x, and the
  // inner pass must differentiate in each input alone (TF's tape.watch), leaving the paths
  // between them to the outer pass.
  const Output dy = grad::Op("Identity", {ctx.input(0)}), x = grad::Op("Identity", {ctx.input(1)}),
               scale = grad::Op("Identity", {ctx.input(2)});
  const std::vector<Output> backprop = BatchNormBackprop(ctx, dy, x, scale);
  const std::vector<Output> g = ComputeGradients(GradientRegistry::Global(), backprop, {dy, x, scale},
                                                 {ctx.grad_outputs[0], ctx.grad_outputs[1], ctx.grad_outputs[2]});
  std::vector<Output> result = {g[0], g[1], g[2]};
  result.resize(ctx.op.node()->num_inputs());  // none for the reserve spaces
  return result;
}

}  // namespace

void RegisterNormGradients(GradientRegistry& r) {
  r.Register("FusedBatchNorm", FusedBatchNormGradFn("FusedBatchNormGrad", false));
  r.Register("FusedBatchNormV2", FusedBatchNormGradFn("FusedBatchNormGradV2", false));
  r.Register("FusedBatchNormV3", FusedBatchNormGradFn("FusedBatchNormGradV3", true));
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    r.Register(op, FusedBatchNormGradGrad);
  }
}

}  // namespace tw
