// Gradients of FusedBatchNorm(V2/V3), as TensorFlow's: FusedBatchNormGrad of the same
// version, fed the saved batch statistics (reserve spaces) when training and the given
// population mean and variance at inference. Gradients flowing into batch_mean /
// batch_variance are ignored and mean / variance get none, as in TensorFlow.
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

}  // namespace

void RegisterNormGradients(GradientRegistry& r) {
  r.Register("FusedBatchNorm", FusedBatchNormGradFn("FusedBatchNormGrad", false));
  r.Register("FusedBatchNormV2", FusedBatchNormGradFn("FusedBatchNormGradV2", false));
  r.Register("FusedBatchNormV3", FusedBatchNormGradFn("FusedBatchNormGradV3", true));
}

}  // namespace tw
