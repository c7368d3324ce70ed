// Multinomial: num_samples class indices per row of logits (unnormalized log-probabilities),
// with TensorFlow's seed attrs.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterRandomMultinomialOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Multinomial")
                 .Input("logits: T")
                 .Input("num_samples: int32")
                 .Output("output: output_dtype")
                 .Attr("seed: int = 0")
                 .Attr("seed2: int = 0")
                 .Attr("T: {float32, float64}")
                 .Attr("output_dtype: {int32, int64} = int64")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(0, 2));
                   TW_RETURN_IF_ERROR(c.WithRank(1, 0));
                   const PartialShape& logits = c.input_shape(0);
                   std::vector<int64_t> n;
                   const int64_t samples = c.ConstantIntVector(1, &n) && n.size() == 1 ? n[0] : -1;
                   if (c.input_tensor(1) != nullptr && samples < 0) {
                     return absl::InvalidArgumentError(
                         absl::StrCat("num_samples should be non-negative, got ", samples));
                   }
                   c.set_output(0, PartialShape({logits.known_rank() ? logits.dim(0) : -1, samples}));
                   return absl::OkStatus();
                 }));
}

}  // namespace tw
