// Tensor helpers the dataset kernels share: one row of a tensor (slicing), rows stacked
// into a batch (with padding for padded_batch).
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_DATASET_UTIL_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_DATASET_UTIL_H_

#include <vector>

#include "absl/status/statusor.h"
#include "tensorweave/tensor.h"

namespace tw {

// Row i of `t` along its first dimension.
absl::StatusOr<Tensor> TensorRow(const Tensor& t, int64_t i);
// The rows stacked along a new first dimension; all must have one shape, else
// InvalidArgument in TF's words naming `component`.
absl::StatusOr<Tensor> StackRows(const std::vector<Tensor>& rows, int component);
// The rows padded to `shape` (each dim at least the rows') with `pad`, then stacked.
absl::StatusOr<Tensor> StackPadded(const std::vector<Tensor>& rows, const TensorShape& shape, const Tensor& pad,
                                   int component);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_DATASET_UTIL_H_
