// Gradients of the softmax family and the bias ops.
#include "autodiff/grad_util.h"

namespace tw {
namespace {

Output LastAxis(Graph& g) { return grad::IntVector(g, {-1}); }

// The gradient through y = softmax(x): (g - sum(g * y, last axis)) * y.
Output SoftmaxBackprop(const Output& g, const Output& y) {
  return (g - grad::SumOver(g * y, LastAxis(*g.graph()), /*keep_dims=*/true)) * y;
}

// The gradient the pass fills in for an output nothing flowed into.
bool IsFilledZeros(const Output& g) { return g.op().type() == "ZerosLike"; }

std::string DataFormat(const GradContext& ctx) {
  auto format = GetStringAttr(ctx.attrs(), "data_format");
  return format.ok() ? *format : "NHWC";
}

// Loss = -sum(labels * log_softmax(logits)) per row, backprop = softmax - labels.
std::vector<Output> SoftmaxCrossEntropyGrad(const GradContext& ctx) {
  const Output logits = ctx.input(0);
  Output g_loss = expand_dims(ctx.grad_outputs[0], -1);
  Output g_logits = g_loss * ctx.output(1);
  Output g_labels = g_loss * negative(log_softmax(logits));
  // Second order: gradients that flowed into the backprop output itself.
  const Output& g_backprop = ctx.grad_outputs[1];
  if (!IsFilledZeros(g_backprop)) {
    g_logits = g_logits + SoftmaxBackprop(g_backprop, softmax(logits));
    g_labels = g_labels - g_backprop;
  }
  return {g_logits, g_labels};
}

std::vector<Output> BiasAddGradFn(const GradContext& ctx) {
  const Output& g = ctx.grad_outputs[0];
  return {g, grad::Op("BiasAddGrad", {g}, {{"data_format", MakeAttr(DataFormat(ctx))}})};
}

// BiasAddGrad sums over every dim but the channels, so its gradient is the incoming
// [C] gradient broadcast back over those dims.
std::vector<Output> BiasAddGradGrad(const GradContext& ctx) {
  const Output in = ctx.input(0);
  Output g = ctx.grad_outputs[0];
  if (DataFormat(ctx) == "NCHW") {
    // Channels are dim 1: make g [C, 1, ..., 1] so broadcasting aligns it there.
    Graph& gr = ctx.graph();
    const PartialShape s = in.shape();
    Output shape;
    if (s.known_rank()) {
      std::vector<int64_t> dims(s.rank() - 1, 1);
      dims[0] = -1;
      shape = grad::IntVector(gr, dims);
    } else {
      Output ones_dims = reshape(grad::RankOf(in) - grad::IntScalar(gr, 2), {1});
      Output ones = grad::Op("Fill", {ones_dims, grad::IntScalar(gr, 1)});
      shape = concat({grad::IntVector(gr, {-1}), ones}, 0);
    }
    g = reshape(g, shape);
  }
  return {grad::Op("BroadcastTo", {g, grad::ShapeOf(in)})};
}

}  // namespace

void RegisterNnGradients(GradientRegistry& r) {
  r.Register("Softmax", [](const GradContext& ctx) {
    return std::vector<Output>{SoftmaxBackprop(ctx.grad_outputs[0], ctx.output(0))};
  });
  r.Register("LogSoftmax", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    Output sum = grad::SumOver(g, LastAxis(ctx.graph()), /*keep_dims=*/true);
    return std::vector<Output>{g - sum * exp(ctx.output(0))};
  });
  r.Register("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropyGrad);
  r.Register("BiasAdd", BiasAddGradFn);
  r.Register("BiasAddV1", BiasAddGradFn);
  r.Register("BiasAddGrad", BiasAddGradGrad);
  // d(sum(t ** 2) / 2) / dt = t, times the scalar incoming gradient.
  r.Register("L2Loss", [](const GradContext& ctx) { return std::vector<Output>{ctx.input(0) * ctx.grad_outputs[0]}; });
  // TensorFlow keeps Relu's gradient with the nn gradients; the math family may already
  // have registered it (it runs first), in which case that one stays.
  if (!r.Find("Relu").ok()) {
    r.Register("Relu", [](const GradContext& ctx) {
      return std::vector<Output>{grad::Op("ReluGrad", {ctx.grad_outputs[0], ctx.output(0)})};
    });
  }
}

}  // namespace tw
