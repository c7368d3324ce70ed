// Gradient of MatrixSquareRoot, TensorFlow's (_MatrixSquareRootGrad): with R = sqrtm(A),
// dA = R dR + dR R, so the gradient X of A solves the Sylvester equation R^T X + X R^T = G.
// Row-major vectorized that is K vec(X) = vec(G) with K = R^T (x) I + I (x) R (TensorFlow
// vectorizes by columns, which permutes the same system): the Kronecker sum built by
// broadcasting, solved with MatrixSolve. Works for unknown batch dims and sizes.
#include "autodiff/grad_util.h"

namespace tw {

void RegisterMatrixSqrtGradients(GradientRegistry& r) {
  r.Register("MatrixSquareRoot", [](const GradContext& ctx) {
    Graph& g = ctx.graph();
    const Output root = ctx.output(0);
    const Output shape = grad::ShapeOf(root);
    const Output batch = strided_slice(shape, {0}, {-2}, {1});
    const Output m = grad::ElementAt(shape, grad::IntScalar(g, -1));
    const Output mm = multiply(m, m);
    const Output one = grad::IntVector(g, {1});
    auto shaped = [](const Output& x, const std::vector<Output>& dims) { return reshape(x, concat(dims, 0)); };
    const Output eye = grad::Op("MatrixDiag", {grad::Op("Fill", {m, grad::ScalarLike(root, 1)})});
    // R^T as eye * R^T (exact; works for any batch rank).
    const Output root_t = grad::Op("BatchMatMulV2", {eye, root}, {{"adj_x", MakeAttr(false)}, {"adj_y", MakeAttr(true)}});
    // [..., i, k, j, l]: R^T_ij delta_kl + delta_ij R_kl.
    const Output kron_sum = add(multiply(shaped(root_t, {batch, m, one, m, one}), shaped(eye, {one, m, one, m})),
                                multiply(shaped(eye, {m, one, m, one}), shaped(root, {batch, one, m, one, m})));
    const Output vec_x = grad::Op("MatrixSolve", {shaped(kron_sum, {batch, mm, mm}),
                                                  shaped(ctx.grad_outputs[0], {batch, mm, one})},
                                  {{"adjoint", MakeAttr(false)}});
    return std::vector<Output>{reshape(vec_x, shape)};
  });
}

}  // namespace tw
