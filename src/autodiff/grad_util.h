// Building blocks shared by gradient functions.
#ifndef TENSORWEAVE_SRC_AUTODIFF_GRAD_UTIL_H_
#define TENSORWEAVE_SRC_AUTODIFF_GRAD_UTIL_H_

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

}  // namespace tw::grad

#endif  // TENSORWEAVE_SRC_AUTODIFF_GRAD_UTIL_H_
