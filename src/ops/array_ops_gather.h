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
// batch_dims in [0, indices_rank] (negative counts from the end of indices' dims), checked
// as TensorFlow checks it: below params' rank, at most the axis, leading dims equal (unknown
// dims, -1, match anything). Errors carry TensorFlow's messages.
absl::StatusOr<int> GatherBatchDims(int64_t batch_dims, absl::Span<const int64_t> params,
                                    absl::Span<const int64_t> indices, int axis);
// params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:] (unknown dims
// stay -1 unless indices knows a batch dim).
DimVector GatherDims(absl::Span<const int64_t> params, absl::Span<const int64_t> indices, int axis,
                     int batch_dims = 0);

}  // namespace array_util
}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_GATHER_H_
