// GatherV2: slices of `params` along `axis` picked by `indices`. Shape rules shared by
// the schema (array_ops_gather.cc) and the kernel (kernels/cpu/array_kernels_gather.cc).
#ifndef TENSORWEAVE_SRC_OPS_ARRAY_OPS_GATHER_H_
#define TENSORWEAVE_SRC_OPS_ARRAY_OPS_GATHER_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/op_registry.h"
#include "tensorweave/tensor_shape.h"

namespace tw {

void RegisterArrayGatherOps(OpRegistry& r);  // GatherV2, UnsortedSegmentSum

namespace array_util {

// The axis in [0, params_rank): negative axes count from the end, as in TensorFlow.
absl::StatusOr<int> GatherAxis(int64_t axis, int params_rank);
// params.shape[:axis] + indices.shape + params.shape[axis + 1:] (unknown dims stay -1).
DimVector GatherDims(absl::Span<const int64_t> params, absl::Span<const int64_t> indices, int axis);

}  // namespace array_util
}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_GATHER_H_
