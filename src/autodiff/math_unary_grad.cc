// Gradients of the unary math functions, written with y = op's output where TensorFlow's
// fused *Grad kernels do, and of the fused gradient ops themselves so that gradients of
// gradients work.
#include "autodiff/math_grad.h"

namespace tw::math_grad {
namespace {

// dx from one tensor v (the op's input x or its output y) and the incoming gradient g.
using UnaryGrad = Output (*)(const Output& v, const Output& g);

GradFn FromInput(UnaryGrad f) {
  return [f](const GradContext& ctx) { return std::vector<Output>{f(ctx.input(0), ctx.grad_outputs[0])}; };
}

GradFn FromOutput(UnaryGrad f) {
  return [f](const GradContext& ctx) { return std::vector<Output>{f(ctx.output(0), ctx.grad_outputs[0])}; };
}

}  // namespace

void RegisterUnaryGradients(GradientRegistry& r) {
  r.Register("Neg", FromInput([](const Output&, const Output& g) { return negative(g); }));
  // Sign has no gradient, so the second derivative of |x| is 0 away from the kink.
  r.Register("Abs", FromInput([](const Output& x, const Output& g) { return g * grad::Op("Sign", {x}); }));
  r.Register("Square", FromInput([](const Output& x, const Output& g) { return g * (grad::ConjIfComplex(x) * 2.0); }));
  r.Register("Log", FromInput([](const Output& x, const Output& g) { return g / grad::ConjIfComplex(x); }));
  r.Register("Exp", FromOutput([](const Output& y, const Output& g) { return g * grad::ConjIfComplex(y); }));
  // d sqrt(x) = 1 / 2y; d x^(-1/2) = -y^3 / 2; d (1/x) = -y^2.
  r.Register("Sqrt", FromOutput([](const Output& y, const Output& g) { return (g * 0.5) / grad::ConjIfComplex(y); }));
  r.Register("Rsqrt", FromOutput([](const Output& y, const Output& g) { return (g * -0.5) * (square(y) * y); }));
  r.Register("Reciprocal",
             FromOutput([](const Output& y, const Output& g) { return negative(g) * square(grad::ConjIfComplex(y)); }));
  // The fused kernels take (y, dy) for Tanh and Sigmoid and (gradients, features) for
  // Relu, where the output is positive exactly where the features are.
  r.Register("Tanh", FromOutput([](const Output& y, const Output& g) { return grad::Op("TanhGrad", {y, g}); }));
  r.Register("Sigmoid",
             FromOutput([](const Output& y, const Output& g) { return grad::Op("SigmoidGrad", {y, g}); }));
  r.Register("Relu", FromOutput([](const Output& y, const Output& g) { return grad::Op("ReluGrad", {g, y}); }));

  // ReluGrad(dy, f) = dy where f > 0: linear in dy, piecewise constant in f.
  r.Register("ReluGrad", [](const GradContext& ctx) {
    const Output features = ctx.input(1);
    return std::vector<Output>{grad::Op("ReluGrad", {ctx.grad_outputs[0], features}), zeros_like(features)};
  });
  // SigmoidGrad(y, dy) = dy y (1 - y): d/dy = dy (1 - 2y), d/d(dy) = y (1 - y).
  r.Register("SigmoidGrad", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output y = ctx.input(0), dy = ctx.input(1);
    const Output g_dy = g * dy;
    return std::vector<Output>{g_dy - (g_dy * 2.0) * y, grad::Op("SigmoidGrad", {y, g})};
  });
  // TanhGrad(y, dy) = dy (1 - y^2): d/dy = -2 dy y, d/d(dy) = 1 - y^2.
  r.Register("TanhGrad", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output y = ctx.input(0), dy = ctx.input(1);
    return std::vector<Output>{(g * -2.0) * dy * y, grad::Op("TanhGrad", {y, g})};
  });
}

}  // namespace tw::math_grad
