// Gradients of the matrix functions, TensorFlow's formulas (linalg_grad.py):
//   inverse:     dA = -inv(A)^T g inv(A)^T
//   determinant: dA = g det(A) inv(A)^T;  log|det|: dA = g inv(A)^T
//   solve:       dB = solve(A^T, g), dA = -dB X^T (triangular: cut to A's triangle)
//   cholesky:    dA = sym(L^-T Phi(L^T g) L^-1) / 2, Phi taking the lower triangle with a
//                halved diagonal.
#include "autodiff/grad_util.h"

namespace tw {
namespace {

bool Flag(const GradContext& ctx, const char* name) {
  auto v = GetBoolAttr(ctx.attrs(), name);
  return v.ok() && *v;
}

Output MatMul(const Output& p, const Output& q, bool adj_p = false, bool adj_q = false) {
  return grad::Op("BatchMatMulV2", {p, q}, {{"adj_x", MakeAttr(adj_p)}, {"adj_y", MakeAttr(adj_q)}});
}

Output Neg(const Output& x) { return grad::Op("Neg", {x}); }

Output Band(Graph& g, const Output& x, int64_t lower, int64_t upper) {
  return grad::Op("MatrixBandPart", {x, grad::IntScalar(g, lower), grad::IntScalar(g, upper)});
}

// A batch of values [...] as [..., 1, 1], to scale the matrices [..., M, M].
Output AsMatrixScale(Graph& g, const Output& x) {
  const Output last = grad::IntScalar(g, -1);
  return grad::Op("ExpandDims", {grad::Op("ExpandDims", {x, last}), last});
}

Output InverseAdjoint(const Output& a) { return grad::Op("MatrixInverse", {a}, {{"adjoint", MakeAttr(true)}}); }

// The gradients of a solve A X = B given dB, the solution X and the adjoint flag.
Output SolveGradA(const Output& grad_b, const Output& x, bool adjoint) {
  return Neg(adjoint ? MatMul(x, grad_b, false, true) : MatMul(grad_b, x, false, true));
}

}  // namespace

void RegisterLinalgDecompGradients(GradientRegistry& r) {
  r.Register("MatrixInverse", [](const GradContext& ctx) {
    const Output ainv = ctx.output(0);
    const bool adj = Flag(ctx, "adjoint");
    return std::vector<Output>{Neg(MatMul(ainv, MatMul(ctx.grad_outputs[0], ainv, adj, !adj), !adj))};
  });
  r.Register("MatrixDeterminant", [](const GradContext& ctx) {
    const Output scale = AsMatrixScale(ctx.graph(), grad::Op("Mul", {ctx.grad_outputs[0], ctx.output(0)}));
    return std::vector<Output>{grad::Op("Mul", {scale, InverseAdjoint(ctx.input(0))})};
  });
  r.Register("LogMatrixDeterminant", [](const GradContext& ctx) {
    // The sign is piecewise constant: only log|det| has a gradient.
    const Output scale = AsMatrixScale(ctx.graph(), ctx.grad_outputs[1]);
    return std::vector<Output>{grad::Op("Mul", {scale, InverseAdjoint(ctx.input(0))})};
  });
  r.Register("MatrixSolve", [](const GradContext& ctx) {
    const bool adj = Flag(ctx, "adjoint");
    const Output grad_b =
        grad::Op("MatrixSolve", {ctx.input(0), ctx.grad_outputs[0]}, {{"adjoint", MakeAttr(!adj)}});
    return std::vector<Output>{SolveGradA(grad_b, ctx.output(0), adj), grad_b};
  });
  r.Register("MatrixTriangularSolve", [](const GradContext& ctx) {
    const bool adj = Flag(ctx, "adjoint"), lower = Flag(ctx, "lower");
    const Output grad_b = grad::Op("MatrixTriangularSolve", {ctx.input(0), ctx.grad_outputs[0]},
                                   {{"lower", MakeAttr(lower)}, {"adjoint", MakeAttr(!adj)}});
    const Output grad_a = SolveGradA(grad_b, ctx.output(0), adj);
    return std::vector<Output>{lower ? Band(ctx.graph(), grad_a, -1, 0) : Band(ctx.graph(), grad_a, 0, -1), grad_b};
  });
  r.Register("Cholesky", [](const GradContext& ctx) {
    Graph& g = ctx.graph();
    const Output l = ctx.output(0);
    const Output eye = Band(g, grad::Op("OnesLike", {l}), 0, 0);
    const Output l_inv = grad::Op("MatrixTriangularSolve", {l, eye},
                                  {{"lower", MakeAttr(true)}, {"adjoint", MakeAttr(false)}});
    Output middle = MatMul(l, ctx.grad_outputs[0], true, false);
    middle = grad::Op("Sub", {Band(g, middle, -1, 0),
                              grad::Op("Mul", {grad::ScalarLike(middle, 0.5), Band(g, middle, 0, 0)})});
    const Output grad_a = MatMul(MatMul(l_inv, middle, true, false), l_inv);
    // grad_a + grad_a^T (the transpose as eye * grad_a^T: works for any batch rank).
    const Output sym = grad::Op("Add", {grad_a, MatMul(eye, grad_a, false, true)});
    return std::vector<Output>{grad::Op("Mul", {grad::ScalarLike(sym, 0.5), sym})};
  });
}

}  // namespace tw
