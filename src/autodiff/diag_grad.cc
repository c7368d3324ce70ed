// Gradients of the diagonal ops, as TensorFlow's: a diagonal's gradient is the gradient's
// diagonal and the other way round; MatrixSetDiag sends the diagonal's part to the new
// diagonal and the rest to the input. LinSpace is not differentiable (as in TensorFlow).
#include "autodiff/grad_util.h"

namespace tw {

void RegisterDiagGradients(GradientRegistry& r) {
  r.Register("Diag", [](const GradContext& ctx) {
    return std::vector<Output>{grad::Op("DiagPart", {ctx.grad_outputs[0]})};
  });
  r.Register("DiagPart", [](const GradContext& ctx) {
    return std::vector<Output>{grad::Op("Diag", {ctx.grad_outputs[0]})};
  });
  r.Register("MatrixDiag", [](const GradContext& ctx) {
    return std::vector<Output>{grad::Op("MatrixDiagPart", {ctx.grad_outputs[0]})};
  });
  r.Register("MatrixDiagPart", [](const GradContext& ctx) {
    // Also right for non-square matrices, where MatrixDiag would not fit.
    return std::vector<Output>{
        grad::Op("MatrixSetDiag", {grad::Op("ZerosLike", {ctx.input(0)}), ctx.grad_outputs[0]})};
  });
  r.Register("MatrixSetDiag", [](const GradContext& ctx) {
    const Output g = ctx.grad_outputs[0];
    return std::vector<Output>{grad::Op("MatrixSetDiag", {g, grad::Op("ZerosLike", {ctx.input(1)})}),
                               grad::Op("MatrixDiagPart", {g})};
  });
  r.RegisterNoGradient("LinSpace");
}

}  // namespace tw
