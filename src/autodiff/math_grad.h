// Pieces shared by the math gradient files. The entry point is RegisterMathGradients
// (gradient_registry.h), which registers the tables of every file.
#ifndef TENSORWEAVE_SRC_AUTODIFF_MATH_GRAD_H_
#define TENSORWEAVE_SRC_AUTODIFF_MATH_GRAD_H_

#include "autodiff/grad_util.h"

namespace tw::math_grad {

// `g` where `mask` holds and exact zeros elsewhere (the reverse when `where_true` is
// false), shaped like the broadcast of mask and g. Zeros come from a scalar constant, not
// ZerosLike, so no extra op lies on the path of a second-order gradient.
Output Masked(const Output& mask, const Output& g, bool where_true = true);

// Neg, Abs, Square, Sqrt, Rsqrt, Exp, Log, Tanh, Sigmoid, Relu, Reciprocal and the
// fused gradient ops ReluGrad, SigmoidGrad, TanhGrad (math_unary_grad.cc).
void RegisterUnaryGradients(GradientRegistry& r);

// Sin..Digamma, Atan2, DivNoNan, Xdivy/Xlogy/Xlog1py, Igamma(c), Zeta, Polygamma and the
// rounding, predicate and bitwise ops with no gradient (math_fn_grad.cc).
void RegisterFnGradients(GradientRegistry& r);

}  // namespace tw::math_grad

#endif  // TENSORWEAVE_SRC_AUTODIFF_MATH_GRAD_H_
