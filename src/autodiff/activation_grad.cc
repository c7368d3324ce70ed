// Gradients of Relu6, Elu, Selu, LeakyRelu, Softplus and Softsign through TensorFlow's
// fused *Grad ops, and of those ops themselves (second order) as TensorFlow defines them.
// Elu, Selu and Relu6 pass their output to the fused op (it tells the branch apart, and
// exp(x) - 1 + 1 is the slope); the others pass the input.
#include "autodiff/grad_util.h"

namespace tw {
namespace {

Output Fused(const std::string& op, const Output& g, const Output& v, const GradContext& ctx) {
  AttrMap attrs;
  if (auto alpha = GetFloatAttr(ctx.attrs(), "alpha"); alpha.ok()) attrs["alpha"] = MakeAttr(*alpha);
  return grad::Op(op, {g, v}, attrs);
}

// The forward op's gradient: op + "Grad"(g, its output or its input).
GradFn Forward(const std::string& op, bool from_output) {
  return [op, from_output](const GradContext& ctx) {
    const Output v = from_output ? ctx.output(0) : ctx.input(0);
    return std::vector<Output>{Fused(op + "Grad", ctx.grad_outputs[0], v, ctx)};
  };
}

// A fused op piecewise constant in its second input: linear in the gradient, and no
// gradient to the second input.
GradFn PiecewiseLinear(const std::string& grad_op) {
  return [grad_op](const GradContext& ctx) {
    const Output v = ctx.input(1);
    return std::vector<Output>{Fused(grad_op, ctx.grad_outputs[0], v, ctx), zeros_like(v)};
  };
}

// EluGrad/SeluGrad(dy, y) = dy * (y + c) where y < 0 (else a constant times dy): the
// slope in y is dy there, 0 elsewhere.
GradFn ExpBranch(const std::string& grad_op) {
  return [grad_op](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output dy = ctx.input(0), y = ctx.input(1);
    const Output zeros = zeros_like(y);
    Output d_y = grad::Op("SelectV2", {less(y, zeros), g * dy, zeros});
    return std::vector<Output>{grad::Op(grad_op, {g, y}), d_y};
  };
}

}  // namespace

void RegisterActivationGradients(GradientRegistry& r) {
  r.Register("Relu6", Forward("Relu6", /*from_output=*/true));
  r.Register("Elu", Forward("Elu", /*from_output=*/true));
  r.Register("Selu", Forward("Selu", /*from_output=*/true));
  r.Register("LeakyRelu", Forward("LeakyRelu", /*from_output=*/false));
  r.Register("Softplus", Forward("Softplus", /*from_output=*/false));
  r.Register("Softsign", Forward("Softsign", /*from_output=*/false));

  r.Register("Relu6Grad", PiecewiseLinear("Relu6Grad"));
  r.Register("LeakyReluGrad", PiecewiseLinear("LeakyReluGrad"));
  r.Register("EluGrad", ExpBranch("EluGrad"));
  r.Register("SeluGrad", ExpBranch("SeluGrad"));
  // SoftplusGrad(dy, x) = dy * sigmoid(x): d/dx = dy * sigmoid'(x) = dy / (e^-x + 2 + e^x).
  r.Register("SoftplusGrad", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output dy = ctx.input(0), x = ctx.input(1);
    Output d_x = g * dy / ((exp(negative(x)) + 2.0) + exp(x));
    return std::vector<Output>{grad::Op("SoftplusGrad", {g, x}), d_x};
  });
  // SoftsignGrad(dy, x) = dy / (1 + |x|)^2. TensorFlow defines no gradient for it; ours
  // (d/dx = -2 dy sign(x) / (1 + |x|)^3) is checked against finite differences.
  r.Register("SoftsignGrad", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output dy = ctx.input(0), x = ctx.input(1);
    const Output d = grad::Op("Abs", {x}) + 1.0;
    Output d_x = (g * dy * -2.0) * grad::Op("Sign", {x}) / (d * d * d);
    return std::vector<Output>{grad::Op("SoftsignGrad", {g, x}), d_x};
  });
}

}  // namespace tw
