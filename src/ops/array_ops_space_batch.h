// SpaceToBatchND / BatchToSpaceND (and their 4-D, one-block-size forerunners SpaceToBatch /
// BatchToSpace): the spatial dims split into blocks whose offsets move into the batch and
// back. Shape rules shared by the schemas (array_ops_space_batch.cc) and the kernel
// (kernels/cpu/space_batch_kernels.cc), with TensorFlow's checks and messages.
#ifndef TENSORWEAVE_SRC_OPS_ARRAY_OPS_SPACE_BATCH_H_
#define TENSORWEAVE_SRC_OPS_ARRAY_OPS_SPACE_BATCH_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/op_registry.h"
#include "tensorweave/tensor_shape.h"

namespace tw {

void RegisterArraySpaceBatchOps(OpRegistry& r);

namespace array_util {

// The output dims of SpaceToBatchND (to_batch) or BatchToSpaceND for `input` dims (-1 when
// unknown, kept unknown), `block` (M values) and `edges` (paddings or crops, M x 2 values,
// flattened). Checks the ranks and values as TensorFlow's kernels do.
absl::StatusOr<DimVector> SpaceBatchDims(bool to_batch, absl::Span<const int64_t> input,
                                         absl::Span<const int64_t> block, absl::Span<const int64_t> edges);

}  // namespace array_util
}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_SPACE_BATCH_H_
