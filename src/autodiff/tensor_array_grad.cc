// Gradients of TF1's TensorArray ops, as TF's tensor_array_grad.py: the gradient of an
// array lives in its gradient array (TensorArrayGradV3, one per array and gradient call:
// the `source`), which sums the writes to one index. A read's gradient writes there, a
// write's gradient reads there (zeros where nothing was written), gather <-> scatter and
// concat <-> split likewise; the float flow orders them (the flow's gradient is the
// gradient array's flow). A write-like op's gradient waits for the op's own flow_out, so
// the gradient array is not made before the last forward write.
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "autodiff/grad_util.h"
#include "graph/attr_value.h"
#include "graph/graph.h"

namespace tw {
namespace {

// Which tf.gradients call this is: the current name scope up to its first component that
// starts with "gradients" (python/tensorweave/gradients.py opens one scope around a whole
// call that differentiates loops, so the loop's inner passes share the source).
std::string GradSource(const GradContext& ctx) {
  const std::string scope = ctx.graph().current_name_scope();
  std::vector<std::string> parts = absl::StrSplit(scope, '/');
  std::string source;
  for (const std::string& p : parts) {
    source = source.empty() ? p : source + "/" + p;
    if (absl::StartsWith(p, "gradients")) return source;
  }
  return scope.empty() ? "gradients" : scope;
}

// (the gradient array's handle, its flow) for the forward array `handle`.
std::pair<Output, Output> GradArray(const GradContext& ctx, const Output& handle, const Output& flow) {
  std::vector<Output> outs = grad::OpOutputs("TensorArrayGradV3", {handle, flow},
                                             {{"source", MakeAttr(GradSource(ctx))}});
  return {outs[0], outs[1]};
}

// The incoming flow gradient, once the op's own flow_out exists (the last forward write).
Output AfterForward(const GradContext& ctx, const Output& flow_grad, int flow_out) {
  Graph& g = ctx.graph();
  auto deps = g.control_dependencies({ctx.output(flow_out).op()});
  return identity(flow_grad);
}

// `grad` with the static shape of the forward input it is the gradient of (as TF's
// gradients set it): the gradient array does not know its element shape while building.
Output ShapedLike(const Output& grad, const Output& input) {
  const PartialShape want = input.shape();
  if (!want.known_rank() || grad.shape() == want) return grad;
  return grad::Op("EnsureShape", {grad}, {{"shape", MakeAttr(want)}});
}

DType AttrType(const GradContext& ctx, const char* name) {
  auto t = GetTypeAttr(ctx.attrs(), name);
  if (!t.ok()) throw StatusError(t.status());
  return *t;
}

}  // namespace

void RegisterTensorArrayGradients(GradientRegistry& r) {
  // value = read(index): d(array[index]) += dvalue.
  r.Register("TensorArrayReadV3", [](const GradContext& ctx) {
    auto [grad, flow] = GradArray(ctx, ctx.input(0), ctx.input(2));
    Output written = grad::Op("TensorArrayWriteV3", {grad, ctx.input(1), ctx.grad_outputs[0], flow});
    return std::vector<Output>{Output(), Output(), written};
  });
  // flow_out = write(index, value): dvalue = d(array[index]).
  r.Register("TensorArrayWriteV3", [](const GradContext& ctx) {
    Output flow_in = AfterForward(ctx, ctx.grad_outputs[0], 0);
    auto [grad, flow] = GradArray(ctx, ctx.input(0), flow_in);
    Output value = grad::Op("TensorArrayReadV3", {grad, ctx.input(1), flow},
                            {{"dtype", MakeAttr(AttrType(ctx, "T"))}});
    return std::vector<Output>{Output(), Output(), ShapedLike(value, ctx.input(2)), flow_in};
  });
  r.Register("TensorArrayGatherV3", [](const GradContext& ctx) {
    auto [grad, flow] = GradArray(ctx, ctx.input(0), ctx.input(2));
    Output scattered = grad::Op("TensorArrayScatterV3", {grad, ctx.input(1), ctx.grad_outputs[0], flow});
    return std::vector<Output>{Output(), Output(), scattered};
  });
  r.Register("TensorArrayScatterV3", [](const GradContext& ctx) {
    Output flow_in = AfterForward(ctx, ctx.grad_outputs[0], 0);
    auto [grad, flow] = GradArray(ctx, ctx.input(0), flow_in);
    Output value = grad::Op("TensorArrayGatherV3", {grad, ctx.input(1), flow},
                            {{"dtype", MakeAttr(AttrType(ctx, "T"))}});
    return std::vector<Output>{Output(), Output(), ShapedLike(value, ctx.input(2)), flow_in};
  });
  r.Register("TensorArrayConcatV3", [](const GradContext& ctx) {
    auto [grad, flow] = GradArray(ctx, ctx.input(0), ctx.input(1));
    Output split = grad::Op("TensorArraySplitV3", {grad, ctx.grad_outputs[0], ctx.output(1), flow});
    return std::vector<Output>{Output(), split};
  });
  r.Register("TensorArraySplitV3", [](const GradContext& ctx) {
    Output flow_in = AfterForward(ctx, ctx.grad_outputs[0], 0);
    auto [grad, flow] = GradArray(ctx, ctx.input(0), flow_in);
    Output value = grad::Op("TensorArrayConcatV3", {grad, flow}, {{"dtype", MakeAttr(AttrType(ctx, "T"))}});
    return std::vector<Output>{Output(), ShapedLike(value, ctx.input(1)), Output(), flow_in};
  });
  // As TF: NotDifferentiable.
  r.RegisterNoGradient("TensorArrayV3");
  r.RegisterNoGradient("TensorArrayGradV3");
  r.RegisterNoGradient("TensorArraySizeV3");
  r.RegisterNoGradient("TensorArrayCloseV3");
}

}  // namespace tw
