// The schema of Bitcast, with TensorFlow's shape rule and messages (over the dtypes we have:
// TensorFlow also lists bfloat16, uint32, uint64 and the quantized types).
#include "ops/array_ops_bitcast.h"

#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace array_util {

absl::StatusOr<DimVector> BitcastDims(absl::Span<const int64_t> input, size_t in_size, size_t out_size) {
  DimVector dims(input.begin(), input.end());
  if (in_size > out_size) {
    dims.push_back(static_cast<int64_t>(in_size / out_size));
  } else if (in_size < out_size) {
    if (dims.empty()) return absl::InvalidArgumentError("Shape must be at least rank 1 but is rank 0");
    const int64_t divisor = static_cast<int64_t>(out_size / in_size);
    if (dims.back() >= 0 && dims.back() != divisor) {
      return absl::InvalidArgumentError(
          absl::StrCat("Cannot bitcast due to shape. ", dims.back(), " does not match ", divisor));
    }
    dims.pop_back();
  }
  return dims;
}

}  // namespace array_util

namespace {

absl::Status BitcastShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(DType from, GetTypeAttr(c.attrs(), "T"));
  TW_ASSIGN_OR_RETURN(DType to, GetTypeAttr(c.attrs(), "type"));
  TW_ASSIGN_OR_RETURN(DimVector dims, array_util::BitcastDims(in.dims(), DTypeSize(from), DTypeSize(to)));
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayBitcastOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Bitcast")
                 .Input("input: T")
                 .Output("output: type")
                 .Attr("T: {float16, float32, float64, int64, int32, uint8, uint16, int8, int16, complex64, complex128}")
                 .Attr("type: {float16, float32, float64, int64, int32, uint8, uint16, int8, int16, complex64, "
                       "complex128}")
                 .SetShapeFn(BitcastShape));
}

}  // namespace tw
