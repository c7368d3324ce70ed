// The gradient of BlockLSTM, as TensorFlow's rnn_grad.py: BlockLSTMGrad fed the forward
// inputs and outputs and the gradients of cs and h; those flowing into i, f, o, ci and co
// are ignored, and seq_len_max gets none.
#include <vector>

#include "autodiff/grad_util.h"
#include "graph/graph.h"

namespace tw {
namespace {

std::vector<Output> BlockLstmGrad(const GradContext& ctx) {
  std::vector<Output> inputs;
  for (int i = 0; i < 9; ++i) inputs.push_back(ctx.input(i));
  for (int i = 0; i < 7; ++i) inputs.push_back(ctx.output(i));
  inputs.push_back(ctx.grad_outputs[1]);
  inputs.push_back(ctx.grad_outputs[6]);
  AttrMap attrs;
  attrs["use_peephole"] = ctx.attrs().at("use_peephole");
  std::vector<Output> g = grad::OpOutputs("BlockLSTMGrad", inputs, attrs);
  g.insert(g.begin(), Output());
  return g;
}

}  // namespace

void RegisterRnnGradients(GradientRegistry& r) {
  r.Register("BlockLSTM", BlockLstmGrad);
  r.RegisterNoGradient("BlockLSTMGrad");  // TF registers none (no second order).
}

}  // namespace tw
