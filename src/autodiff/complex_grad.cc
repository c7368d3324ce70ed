// Gradients of the complex-number ops, as TensorFlow's math_grad.py defines them (the
// gradient of a real loss with respect to a complex value is d/dre + i d/dim).
#include "autodiff/grad_util.h"
#include "tensor/complex_dtype.h"

namespace tw {
namespace {

Output MakeComplex(const Output& re, const Output& im) {
  return grad::Op("Complex", {re, im}, {{"Tout", MakeAttr(ComplexOf(re.dtype()))}});
}
Output Part(const char* op, const Output& z) { return grad::Op(op, {z}, {{"Tout", MakeAttr(RealOf(z.dtype()))}}); }

}  // namespace

void RegisterComplexGradients(GradientRegistry& r) {
  r.Register("Real", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    return std::vector<Output>{MakeComplex(g, grad::ScalarLike(g, 0))};
  });
  r.Register("Imag", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    return std::vector<Output>{MakeComplex(grad::ScalarLike(g, 0), g)};
  });
  r.Register("Complex", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    return grad::UnbroadcastBoth(ctx, Part("Real", g), Part("Imag", g));
  });
  r.Register("Conj", [](const GradContext& ctx) {
    return std::vector<Output>{grad::Op("Conj", {ctx.grad_outputs[0]})};
  });
  // d|z|: z / |z| scaled by the incoming gradient, 0 where z is 0 (TensorFlow's div_no_nan).
  r.Register("ComplexAbs", [](const GradContext& ctx) {
    const Output scale = grad::Op("DivNoNan", {ctx.grad_outputs[0], ctx.output(0)});
    return std::vector<Output>{MakeComplex(scale, grad::ScalarLike(scale, 0)) * ctx.input(0)};
  });
  // d arg(z) = -g / (im + i re), TensorFlow's form.
  r.Register("Angle", [](const GradContext& ctx) {
    const Output& g = ctx.grad_outputs[0];
    const Output z = ctx.input(0);
    const Output swapped = grad::Op("Reciprocal", {MakeComplex(Part("Imag", z), Part("Real", z))});
    return std::vector<Output>{negative(MakeComplex(g, grad::ScalarLike(g, 0))) * swapped};
  });
}

}  // namespace tw
