// Gradients of the matrix products. For C = op(A) op(B) the gradients are products of
// the incoming gradient with the other operand, transposed (adjoint, for BatchMatMul's
// complex values) as each case needs.
#include "autodiff/grad_util.h"

namespace tw {
namespace {

// The two gradients of a product whose transpose flags are `ta` and `tb`; `mul(p, q,
// tp, tq)` is the product op with those flags.
template <typename Mul>
std::vector<Output> ProductGrads(const Output& a, const Output& b, const Output& g, bool ta,
                                 bool tb, Mul mul) {
  if (!ta && !tb) return {mul(g, b, false, true), mul(a, g, true, false)};
  if (!ta && tb) return {mul(g, b, false, false), mul(g, a, true, false)};
  if (ta && !tb) return {mul(b, g, false, true), mul(a, g, false, false)};
  return {mul(b, g, true, true), mul(g, a, true, true)};
}

bool Flag(const GradContext& ctx, const char* name) {
  auto v = GetBoolAttr(ctx.attrs(), name);
  return v.ok() && *v;
}

std::vector<Output> BatchGrads(const GradContext& ctx) {
  auto mul = [&](const Output& p, const Output& q, bool adj_p, bool adj_q) {
    return grad::Op(ctx.op.type(), {p, q},
                    {{"adj_x", MakeAttr(adj_p)}, {"adj_y", MakeAttr(adj_q)}});
  };
  return ProductGrads(ctx.input(0), ctx.input(1), ctx.grad_outputs[0], Flag(ctx, "adj_x"),
                      Flag(ctx, "adj_y"), mul);
}

}  // namespace

void RegisterLinalgGradients(GradientRegistry& r) {
  r.Register("MatMul", [](const GradContext& ctx) {
    auto mul = [](const Output& p, const Output& q, bool tp, bool tq) {
      return matmul(p, q, tp, tq);
    };
    // MatMul's flags only transpose: complex operands are conjugated here (as TensorFlow's).
    return ProductGrads(grad::ConjIfComplex(ctx.input(0)), grad::ConjIfComplex(ctx.input(1)), ctx.grad_outputs[0],
                        Flag(ctx, "transpose_a"), Flag(ctx, "transpose_b"), mul);
  });
  // BatchMatMul needs equal batch dims, so the products already have the inputs' shapes.
  r.Register("BatchMatMul", BatchGrads);
  // V2 broadcasts the batch dims: sum each gradient over the dims its input was
  // broadcast along.
  r.Register("BatchMatMulV2", [](const GradContext& ctx) {
    std::vector<Output> grads = BatchGrads(ctx);
    return std::vector<Output>{grad::Unbroadcast(grads[0], ctx.input(0)),
                               grad::Unbroadcast(grads[1], ctx.input(1))};
  });
}

}  // namespace tw
