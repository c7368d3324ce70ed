// Bitcast: a tensor's bytes read as another dtype. The shape rule, shared by the schema
// (array_ops_bitcast.cc) and the kernel (kernels/cpu/bitcast_kernel.cc), is TensorFlow's.
#ifndef TENSORWEAVE_SRC_OPS_ARRAY_OPS_BITCAST_H_
#define TENSORWEAVE_SRC_OPS_ARRAY_OPS_BITCAST_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/op_registry.h"
#include "tensorweave/tensor_shape.h"

namespace tw {

void RegisterArrayBitcastOps(OpRegistry& r);

namespace array_util {

// Same-size types keep the shape; a wider input gains a last dim of in/out elements; a
// narrower input must end in out/in elements (or an unknown -1), which is dropped.
absl::StatusOr<DimVector> BitcastDims(absl::Span<const int64_t> input, size_t in_size, size_t out_size);

}  // namespace array_util
}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_BITCAST_H_
