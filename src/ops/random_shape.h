// The shape function of the random ops' "shape" input, shared by the stateful and the
// stateless random ops.
#ifndef TENSORWEAVE_SRC_OPS_RANDOM_SHAPE_H_
#define TENSORWEAVE_SRC_OPS_RANDOM_SHAPE_H_

#include "ops/ops.h"

namespace tw {

// Output 0's shape from input 0: exact when it is a Const, else as much as its own shape
// tells (a vector of length k gives rank k).
absl::Status RandomShape(InferenceContext& c);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_RANDOM_SHAPE_H_
