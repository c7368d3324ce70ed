// Gradients through TF1's dataflow cond, built from the graph alone (no cond context):
// - Merge forwards input i when its value_index is i, so the gradient goes back to input i
//   through Switch(grad, value_index == i), live only on the branch that was taken.
// - Switch: the gradient of its data input merges the gradients of both outputs. The pass
//   gives an output nobody differentiated zeros_like(that output), which is live exactly
//   when that output is, so the Merge always has one live input: the untaken branch
//   contributes zeros.
#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "graph/attr_value.h"
#include "graph/graph.h"

namespace tw {

namespace {

[[noreturn]] std::vector<Output> RefuseLoopGradient(const GradContext& ctx) {
  const Node& node = *ctx.op.node();
  throw StatusError(absl::InvalidArgumentError(absl::StrCat(
      "gradients: op ", node.op(), " (node '", node.name(), "'): gradients through a while loop are built by the "
      "Python tf.gradients for loops made by tf.while_loop only")));
}

}  // namespace

void RegisterControlFlowGradients(GradientRegistry& r) {
  r.Register("Merge", [](const GradContext& ctx) {
    Graph& g = ctx.graph();
    const Output value_index = ctx.output(1);
    std::vector<Output> grads;
    for (int i = 0; i < ctx.op.node()->num_inputs(); ++i) {
      Output taken = equal(value_index, grad::IntScalar(g, i));
      Output routed = grad::Op("Switch", {ctx.grad_outputs[0], taken});
      grads.push_back(routed.op().output(1));
    }
    return grads;
  });
  r.Register("Switch", [](const GradContext& ctx) {
    Output merged = grad::Op("Merge", {ctx.grad_outputs[0], ctx.grad_outputs[1]}, {{"N", MakeAttr(int64_t{2})}});
    return std::vector<Output>{merged, Output()};
  });
  // A while loop's Exit: the Python tf.gradients differentiates the loop itself
  // (python/tensorweave/while_grad.py) and adds it to this pass, which treats the loop as a
  // constant; tf.while_loop marks its Exits for that. Any other Exit is refused.
  r.Register("Exit", [](const GradContext& ctx) {
    auto marked = GetBoolAttr(ctx.op.node()->attrs(), "_grad_in_python");
    if (!marked.ok() || !*marked) RefuseLoopGradient(ctx);
    return std::vector<Output>{Output()};
  });
  // The pass stops at a marked Exit, so it reaches a loop's Enter or NextIteration only on
  // a path into a loop that tf.while_loop did not build: refused, as such an Exit.
  r.Register("Enter", RefuseLoopGradient);
  r.Register("NextIteration", RefuseLoopGradient);
  r.RegisterNoGradient("VariableShape");  // As TF (NotDifferentiable).
}

}  // namespace tw
