// RandomGamma's gradient with respect to alpha, TensorFlow's (random_grad.py): the implicit
// reparameterization d sample / d alpha = -(dF/dalpha) / f at the sample, F and f the
// gamma CDF (Igamma) and density (TensorFlow's RandomGammaGrad op; here composed from
// IgammaGradA, Lgamma, Log and Exp), times the incoming gradient and summed over the sample
// dims. RandomPoissonV2 has no gradient function, as in TensorFlow (tf.gradients through it fails).
#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

std::vector<Output> RandomGammaGrad(const GradContext& ctx) {
  Graph& g = ctx.graph();
  const PartialShape shape_shape = ctx.input(0).shape();
  if (!shape_shape.known_rank() || shape_shape.rank() != 1 || shape_shape.dim(0) < 0) {
    throw StatusError(absl::UnimplementedError("RandomGamma's gradient needs the length of `shape` while building"));
  }
  const int64_t k = shape_shape.dim(0);
  const Output alpha = ctx.input(1), sample = ctx.output(0);
  const Output ones = grad::IntVector(g, std::vector<int64_t>(k, 1));
  const Output a = grad::Op("Reshape", {alpha, grad::Op("ConcatV2", {ones, grad::ShapeOf(alpha), grad::IntScalar(g, 0)})});
  const Output log_density = grad::Op(
      "Sub", {grad::Op("Sub", {grad::Op("Mul", {grad::Op("Sub", {a, grad::ScalarLike(a, 1.0)}), grad::Op("Log", {sample})}),
                               sample}),
              grad::Op("Lgamma", {a})});
  const Output partial =
      grad::Op("Neg", {grad::Op("RealDiv", {grad::Op("IgammaGradA", {a, sample}), grad::Op("Exp", {log_density})})});
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < k; ++d) axes.push_back(d);
  return {Output(), grad::SumOver(grad::Op("Mul", {ctx.grad_outputs[0], partial}), grad::IntVector(g, axes))};
}

}  // namespace

void RegisterRandomGammaGradients(GradientRegistry& r) { r.Register("RandomGamma", RandomGammaGrad); }

}  // namespace tw
