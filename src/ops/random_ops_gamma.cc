// RandomGamma and RandomPoissonV2: one sample per element of `shape` for every parameter
// (alpha or rate), the output shaped shape ++ parameter's shape; TensorFlow's seed attrs.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status SampleShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  const PartialShape& param = c.input_shape(1);
  std::vector<int64_t> dims;
  if (!c.ConstantIntVector(0, &dims) || !param.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension must be non-negative, got ", d));
  }
  DimVector out(dims.begin(), dims.end());
  out.insert(out.end(), param.dims().begin(), param.dims().end());
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomGammaOps(OpRegistry& r) {
  r.Register(OpDefBuilder("RandomGamma")
                 .Input("shape: S")
                 .Input("alpha: T")
                 .Output("output: T")
                 .Attr("seed: int = 0")
                 .Attr("seed2: int = 0")
                 .Attr("S: {int32, int64}")
                 .Attr("T: {float32, float64}")
                 .SetStateful()
                 .SetShapeFn(SampleShape));
  r.Register(OpDefBuilder("RandomPoissonV2")
                 .Input("shape: S")
                 .Input("rate: R")
                 .Output("output: dtype")
                 .Attr("seed: int = 0")
                 .Attr("seed2: int = 0")
                 .Attr("S: {int32, int64}")
                 .Attr("R: {float32, float64, int32, int64} = float64")
                 .Attr("dtype: {float32, float64, int32, int64} = int64")
                 .SetStateful()
                 .SetShapeFn(SampleShape));
}

}  // namespace tw
