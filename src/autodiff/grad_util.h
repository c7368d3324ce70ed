// Building blocks shared by gradient functions.
#ifndef TENSORWEAVE_SRC_AUTODIFF_GRAD_UTIL_H_
#define TENSORWEAVE_SRC_AUTODIFF_GRAD_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "autodiff/gradient_registry.h"
#include "graph/attr_value.h"
#include "tensorweave/ops.h"

namespace tw::grad {

// Adds op `op` with these inputs and attrs (type attrs inferred) and returns output 0.
Output Op(const std::string& op, const std::vector<Output>& inputs, AttrMap attrs = {});
// Sum of `x` over the axes in the int32 vector tensor `axes`.
Output SumOver(const Output& x, const Output& axes, bool keep_dims = false);
// `grad` (shaped like the broadcast result) reduced and reshaped to the shape of `x`:
// the gradient of one input of a broadcasting binary op. Returns `grad` as it is when the
// static shapes show no broadcasting happened.
Output Unbroadcast(const Output& grad, const Output& x);
// Both inputs' gradients of a broadcasting binary op, from each input's raw gradient.
std::vector<Output> UnbroadcastBoth(const GradContext& ctx, const Output& gx, const Output& gy);
// A scalar of x's dtype.
Output ScalarLike(const Output& x, double value);
// conj(x) for complex x, x itself otherwise: TensorFlow's gradients of holomorphic ops
// multiply by the conjugate of the derivative.
Output ConjIfComplex(const Output& x);

// ---- integer shape arithmetic in the graph. Results are int32; each is a Const when
// the answer is known while building, which keeps the shapes of later ops static.

// An int32 vector or scalar Const.
Output IntVector(Graph& g, const std::vector<int64_t>& values);
Output IntScalar(Graph& g, int64_t value);
// The values of `t` when it is a Const int32/int64 scalar or vector.
std::optional<std::vector<int64_t>> ConstInts(const Output& t);
// `t` (int32 or int64) as int32.
Output ToInt32(const Output& t);
// Shape(x) and Rank(x) as int32.
Output ShapeOf(const Output& x);
Output RankOf(const Output& x);
// The shape of reducing x over `axes` with keep_dims: reduced dims become 1. Works for
// unknown shapes, negative axes and int64 axes.
Output ReducedShape(const Output& x, const Output& axes);
// Element `i` (an int32 scalar, negative counts from the end) of the vector `v`, as a
// 1-element vector.
Output ElementAt(const Output& v, const Output& i);
// All outputs of a new op (grad::Op returns only the first).
std::vector<Output> OpOutputs(const std::string& op, const std::vector<Output>& inputs,
                              AttrMap attrs = {});

}  // namespace tw::grad

#endif  // TENSORWEAVE_SRC_AUTODIFF_GRAD_UTIL_H_
