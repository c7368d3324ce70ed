// Assert, Print and CheckNumerics (TensorFlow's logging_ops and array_ops definitions); kernels
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
  // tf.Print: input passed through; message and the data summarized written to stderr (the
  // first first_n times when first_n >= 0).
  r.Register(OpDefBuilder("Print")
                 .Input("input: T")
                 .Input("data: U")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("U: list(type) >= 0")
                 .Attr("message: string = ''")
                 .Attr("first_n: int = -1")
                 .Attr("summarize: int = 3")
                 .SetStateful()
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("CheckNumerics")
                 .Input("tensor: T")
                 .Output("output: T")
                 .Attr("T: {float16, float32, float64}")
                 .Attr("message: string")
                 .SetStateful()
                 .SetShapeFn(UnchangedShape));
}

}  // namespace tw
