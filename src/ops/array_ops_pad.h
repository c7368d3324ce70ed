// Pad and StridedSliceGrad: ops that write a smaller tensor into a zero tensor (the
// gradients of Slice and StridedSlice). Shape checks shared by the schemas in
// array_ops_pad.cc and the kernels in kernels/cpu/array_kernels_pad.cc.
#ifndef TENSORWEAVE_SRC_OPS_ARRAY_OPS_PAD_H_
#define TENSORWEAVE_SRC_OPS_ARRAY_OPS_PAD_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/op_registry.h"
#include "tensorweave/tensor_shape.h"

namespace tw {

void RegisterArrayPadOps(OpRegistry& r);  // Pad, StridedSliceGrad

namespace array_util {

// Pad: paddings must be a [rank, 2] matrix (unknown parts pass).
absl::Status CheckPaddingsShape(const PartialShape& input, const PartialShape& paddings);
// Pad: the output dims for `paddings` given row-major as [before0, after0, before1, ...];
// unknown (-1) input dims stay unknown.
absl::StatusOr<DimVector> PaddedDims(absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> paddings);
// StridedSliceGrad: dy must have the shape the slice produces.
absl::Status CheckSliceGradShape(const PartialShape& dy, absl::Span<const int64_t> final_dims);

}  // namespace array_util
}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_PAD_H_
