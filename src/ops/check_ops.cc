// Assert and CheckNumerics (TensorFlow's logging_ops and array_ops definitions); kernels
// in kernels/cpu/check_kernels.cc. Registered from RegisterMathOps (math_ops.cc).
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterCheckOps(OpRegistry& r) {
  // Stateful: never pruned or merged away, as a check must run where it was placed.
  r.Register(OpDefBuilder("Assert")
                 .Input("condition: bool")
                 .Input("data: T")
                 .Attr("T: list(type)")
                 .Attr("summarize: int = 3")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   const PartialShape& cond = c.input_shape(0);
                   if (cond.known_rank() && cond.rank() != 0) {
                     return absl::InvalidArgumentError("In[0] should be a scalar: " + cond.DebugString());
                   }
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("CheckNumerics")
                 .Input("tensor: T")
                 .Output("output: T")
                 .Attr("T: {float16, float32, float64}")
                 .Attr("message: string")
                 .SetStateful()
                 .SetShapeFn(UnchangedShape));
}

}  // namespace tw
