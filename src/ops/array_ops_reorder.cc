// Ops that move elements without changing them: ReverseV2, Roll, InvertPermutation, and
// MatrixBandPart (zeroes what lies outside a band), with TensorFlow's names and attrs.
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Output 0 is shaped as input 0, which must have rank >= 2 (a batch of matrices).
absl::Status MatrixShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRankAtLeast(0, 2));
  return UnchangedShape(c);
}

absl::Status VectorShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  return UnchangedShape(c);
}

}  // namespace

void RegisterArrayReorderOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ReverseV2")
                 .Input("tensor: T")
                 .Input("axis: Tidx")
                 .Output("output: T")
                 .Attr("Tidx: {int32, int64} = int32")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("Roll")
                 .Input("input: T")
                 .Input("shift: Tshift")
                 .Input("axis: Taxis")
                 .Output("output: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .Attr("Tshift: {int32, int64}")
                 .Attr("Taxis: {int32, int64}")
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("InvertPermutation")
                 .Input("x: T")
                 .Output("y: T")
                 .Attr("T: {int32, int64} = int32")
                 .SetShapeFn(VectorShape));
  r.Register(OpDefBuilder("MatrixBandPart")
                 .Input("input: T")
                 .Input("num_lower: Tindex")
                 .Input("num_upper: Tindex")
                 .Output("band: T")
                 .Attr("T: {bool, float32, float64, int32, int64}")
                 .Attr("Tindex: {int32, int64} = int64")
                 .SetShapeFn(MatrixShape));
}

}  // namespace tw
