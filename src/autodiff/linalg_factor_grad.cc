// Gradients of the factorizations, TensorFlow's formulas (linalg_grad.py), real dtypes:
//   qr (M >= N, thin):  dA = Q (dR + L R^-T) + (dQ - Q Q^T dQ) R^-T, where
//                       L = tril(Q^T dQ - dQ^T Q + R dR^T - dR R^T)
//   qr (M < N):         A = [X, Y], R = [U, V]: dY = Q dV, dX = the square case with
//                       dQ + Y dV^T and dU
//   eigh:               dA = V (diag(de) + F o (V^T dV)) V^T, F_ij = 1 / (e_j - e_i), then
//                       symmetrized onto the lower triangle (the op reads only that)
//   svd:                dA = U (diag(ds) + (F o U^T dU + ...) S + S (F o V^T dV + ...)) V^T
//                       + the M != N term, F_ij = 1 / (s_j^2 - s_i^2)
//   lu (P A = L U):     dA = P^T L^-T (tril_-1(L^T dL) + triu(dU U^T)) U^-T, dL and dU the
//                       strictly lower and the upper part of d(lu). TensorFlow registers no
//                       gradient for Lu; this is the derivative of the factors it returns.
// Like TensorFlow's they need static matrix dims, and fail for repeated eigen/singular values
// only through inf/NaN. Unsupported cases (as TensorFlow's: Qr with full_matrices and M > N,
// Svd with full_matrices and |M - N| > 1) are an error naming
// the op, as TensorFlow's NotImplementedError.
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "autodiff/grad_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

bool Flag(const GradContext& ctx, const char* name, bool fallback) {
  auto v = GetBoolAttr(ctx.attrs(), name);
  return v.ok() ? *v : fallback;
}

Output MatMul(const Output& p, const Output& q, bool adj_p = false, bool adj_q = false) {
  return grad::Op("BatchMatMulV2", {p, q}, {{"adj_x", MakeAttr(adj_p)}, {"adj_y", MakeAttr(adj_q)}});
}
Output Add(const Output& a, const Output& b) { return grad::Op("AddV2", {a, b}); }
Output Sub(const Output& a, const Output& b) { return grad::Op("Sub", {a, b}); }
Output Mul(const Output& a, const Output& b) { return grad::Op("Mul", {a, b}); }

// The static [rows, cols] of a batch of matrices, or an error naming `op`.
std::pair<int64_t, int64_t> MatrixDims(const Output& x, const char* op) {
  const PartialShape s = x.shape();
  if (!s.known_rank() || s.rank() < 2 || s.dim(s.rank() - 2) < 0 || s.dim(s.rank() - 1) < 0) {
    throw StatusError(absl::UnimplementedError(
        absl::StrCat(op, "'s gradient needs the matrices' dims known while building the graph, got ",
                     s.DebugString())));
  }
  return {s.dim(s.rank() - 2), s.dim(s.rank() - 1)};
}

// Each matrix transposed (the last two dims swapped); needs a static rank.
Output Adjoint(const Output& x) {
  const int rank = x.shape().rank();
  std::vector<int64_t> perm;
  for (int d = 0; d + 2 < rank; ++d) perm.push_back(d);
  perm.push_back(rank - 1);
  perm.push_back(rank - 2);
  return grad::Op("Transpose", {x, grad::IntVector(*x.graph(), perm)});
}

// Columns [begin, begin + size) of each matrix (size -1: to the end); static rank.
Output Columns(const Output& x, int64_t begin, int64_t size) {
  const int rank = x.shape().rank();
  std::vector<int64_t> b(rank, 0), s(rank, -1);
  b[rank - 1] = begin;
  s[rank - 1] = size;
  return grad::Op("Slice", {x, grad::IntVector(*x.graph(), b), grad::IntVector(*x.graph(), s)});
}

Output Diag(const Output& v) { return grad::Op("MatrixDiag", {v}); }

// x / (x^2 + 1e-20): 1/x away from 0, 0 at 0 (TensorFlow's _SafeReciprocal).
Output SafeReciprocal(const Output& x) {
  return Mul(x, grad::Op("Reciprocal", {Add(Mul(x, x), grad::ScalarLike(x, 1e-20))}));
}

// F_ij = 1 / (d_j - d_i) off the diagonal, 0 on it, for a batch of vectors d.
Output PairwiseReciprocal(const Output& d) {
  Graph& g = *d.graph();
  const Output row = grad::Op("ExpandDims", {d, grad::IntScalar(g, -2)});
  const Output col = grad::Op("ExpandDims", {d, grad::IntScalar(g, -1)});
  return grad::Op("MatrixSetDiag", {SafeReciprocal(Sub(row, col)), grad::Op("ZerosLike", {d})});
}

// x R^-T for an upper-triangular R: (R^-1 x^T)^T.
Output TimesInverseRT(const Output& x, const Output& r) {
  return Adjoint(grad::Op("MatrixTriangularSolve", {r, Adjoint(x)},
                          {{"lower", MakeAttr(false)}, {"adjoint", MakeAttr(false)}}));
}

Output QrGradDeep(const Output& q, const Output& r, const Output& dq, const Output& dr) {
  const Output qdq = MatMul(q, dq, true, false);
  const Output rdr = MatMul(r, dr, false, true);
  const Output tril = grad::Op("MatrixBandPart", {Add(Sub(qdq, Adjoint(qdq)), Sub(rdr, Adjoint(rdr))),
                                                  grad::IntScalar(*q.graph(), -1),
                                                  grad::IntScalar(*q.graph(), 0)});
  const Output grad_a = MatMul(q, Add(dr, TimesInverseRT(tril, r)));
  const Output grad_b = TimesInverseRT(Sub(dq, MatMul(q, qdq)), r);
  return Add(grad_a, grad_b);
}

std::vector<Output> QrGrad(const GradContext& ctx) {
  const Output q = ctx.output(0), r = ctx.output(1);
  const Output dq = ctx.grad_outputs[0], dr = ctx.grad_outputs[1];
  const int64_t m = MatrixDims(q, "Qr").first;
  const int64_t n = MatrixDims(r, "Qr").second;
  if (m > n && Flag(ctx, "full_matrices", false)) {
    throw StatusError(absl::UnimplementedError(
        "Qr's gradient is not implemented when nrows > ncols and full_matrices is true"));
  }
  if (m >= n) return {QrGradDeep(q, r, dq, dr)};
  // Wide: A = [X, Y] with X square; R = [U, V].
  const Output y = Columns(ctx.input(0), m, -1);
  const Output u = Columns(r, 0, m);
  const Output dv = Columns(dr, m, -1);
  const Output du = Columns(dr, 0, m);
  const Output dy = MatMul(q, dv);
  const Output dx = QrGradDeep(q, u, Add(dq, MatMul(y, dv, false, true)), du);
  return {grad::Op("ConcatV2", {dx, dy, grad::IntScalar(ctx.graph(), -1)})};
}

std::vector<Output> EigGrad(const GradContext& ctx) {
  const Output e = ctx.output(0);
  const Output de = ctx.grad_outputs[0];
  Output grad_a;
  if (Flag(ctx, "compute_v", true)) {
    const Output v = ctx.output(1);
    const Output inner = Add(Diag(de), Mul(PairwiseReciprocal(e), MatMul(v, ctx.grad_outputs[1], true, false)));
    grad_a = MatMul(v, MatMul(inner, v, false, true));
  } else {
    const Output v = grad::OpOutputs("SelfAdjointEigV2", {ctx.input(0)}, {{"compute_v", MakeAttr(true)}})[1];
    grad_a = MatMul(v, MatMul(Diag(de), v, false, true));
  }
  MatrixDims(grad_a, "SelfAdjointEigV2");
  Graph& g = ctx.graph();
  grad_a = grad::Op("MatrixBandPart", {Add(grad_a, Adjoint(grad_a)), grad::IntScalar(g, -1), grad::IntScalar(g, 0)});
  const Output half_diag = Mul(grad::ScalarLike(grad_a, 0.5), grad::Op("MatrixDiagPart", {grad_a}));
  return {grad::Op("MatrixSetDiag", {grad_a, half_diag})};
}

std::vector<Output> SvdGrad(const GradContext& ctx) {
  const Output a = ctx.input(0);
  const Output ds = ctx.grad_outputs[0];
  if (!Flag(ctx, "compute_uv", true)) {
    const std::vector<Output> usv = grad::OpOutputs("Svd", {a}, {{"compute_uv", MakeAttr(true)}});
    return {MatMul(usv[1], MatMul(Diag(ds), usv[2], false, true))};
  }
  auto [m, n] = MatrixDims(a, "Svd");
  const bool full = Flag(ctx, "full_matrices", false);
  if (full && std::abs(m - n) > 1) {
    throw StatusError(absl::UnimplementedError(absl::StrCat(
        "Svd's gradient is not implemented for full_matrices=True when the matrix dims differ by more than 1 (", m,
        "x", n, ")")));
  }
  const Output s = ctx.output(0);
  Output u = ctx.output(1), v = ctx.output(2);
  Output du = ctx.grad_outputs[1], dv = ctx.grad_outputs[2];
  // For M > N differentiate A^T = V S U^T and transpose at the end.
  const bool use_adjoint = m > n;
  if (use_adjoint) {
    std::swap(m, n);
    std::swap(u, v);
    std::swap(du, dv);
  }
  // V1: V's first M columns (all of V but with full matrices).
  const bool split = full && m != n;
  const Output v1 = split ? Columns(v, 0, m) : v, dv1 = split ? Columns(dv, 0, m) : dv;
  const Output s_mat = Diag(s);
  const Output f = PairwiseReciprocal(Mul(s, s));
  const Output f_u = Mul(f, MatMul(u, du, true, false));
  const Output f_v = Mul(f, MatMul(v1, dv1, true, false));
  const Output middle = Add(Add(Diag(ds), MatMul(Add(f_u, Adjoint(f_u)), s_mat)),
                            MatMul(s_mat, Add(f_v, Adjoint(f_v))));
  Output grad_a = MatMul(u, MatMul(middle, v1, false, true));
  if (m != n) {
    // U S^-1 (dV1^T - dV1^T V1 V1^T - (V1^T dV2) V2^T), the last term with full matrices only.
    const Output dvt = Adjoint(dv1);
    Output term = Sub(dvt, MatMul(MatMul(dvt, v1), v1, false, true));
    if (split) {
      const Output v2 = Columns(v, m, n - m), dv2 = Columns(dv, m, n - m);
      term = Sub(term, MatMul(MatMul(v1, dv2, true, false), v2, false, true));
    }
    grad_a = Add(grad_a, MatMul(MatMul(u, Diag(SafeReciprocal(s))), term));
  }
  return {use_adjoint ? Adjoint(grad_a) : grad_a};
}

Output BandPart(const Output& x, int64_t lower, int64_t upper) {
  Graph& g = *x.graph();
  return grad::Op("MatrixBandPart", {x, grad::IntScalar(g, lower), grad::IntScalar(g, upper)});
}

std::vector<Output> LuGrad(const GradContext& ctx) {
  const Output lu = ctx.output(0), perm = ctx.output(1);
  const Output dlu = ctx.grad_outputs[0];
  const int64_t n = MatrixDims(lu, "Lu").first;
  const Output diag = grad::Op("MatrixDiagPart", {lu});
  const Output l = grad::Op("MatrixSetDiag", {BandPart(lu, -1, 0), grad::Op("OnesLike", {diag})});
  const Output u = BandPart(lu, 0, -1);
  const Output dl = grad::Op("MatrixSetDiag", {BandPart(dlu, -1, 0), grad::Op("ZerosLike", {diag})});
  const Output du = BandPart(dlu, 0, -1);
  const Output inner = Add(grad::Op("MatrixSetDiag", {BandPart(MatMul(l, dl, true, false), -1, 0),
                                                      grad::Op("ZerosLike", {diag})}),
                           BandPart(MatMul(du, u, false, true), 0, -1));
  // L^-T inner U^-T, then rows back to the input's order: P^T with P = one_hot(p).
  const Output left = grad::Op("MatrixTriangularSolve", {l, inner}, {{"lower", MakeAttr(true)}, {"adjoint", MakeAttr(true)}});
  const Output p = grad::Op("OneHot", {perm, grad::IntScalar(ctx.graph(), n), grad::ScalarLike(lu, 1.0),
                                       grad::ScalarLike(lu, 0.0)});
  return {MatMul(p, TimesInverseRT(left, u), true, false)};
}

}  // namespace

void RegisterLinalgFactorGradients(GradientRegistry& r) {
  r.Register("Qr", QrGrad);
  r.Register("SelfAdjointEigV2", EigGrad);
  r.Register("Svd", SvdGrad);
  r.Register("Lu", LuGrad);
}

}  // namespace tw
