// Helpers shared by the batched matrix kernels (linalg_decomp_kernels.cc,
// linalg_factor_kernels.cc, matrix_sqrt_kernels.cc): row-major Eigen maps over a tensor's
// matrices, the batch count, the square-matrix check, and a parallel loop over the batch whose first failure becomes the status.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_LINALG_BATCH_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_LINALG_BATCH_H_

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/op_kernel.h"

namespace tw::linalg_batch {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const Matrix<T>>;
template <typename T>
using Map = Eigen::Map<Matrix<T>>;

// The number of matrices in a [..., rows, cols] tensor.
inline int64_t BatchCount(const TensorShape& s) {
  int64_t n = 1;
  for (int d = 0; d + 2 < s.rank(); ++d) n *= s.dim(d);
  return n;
}

// TensorFlow's checks of a batch of square matrices, input `index` of the kernel.
inline absl::Status CheckSquare(const Tensor& x, int index) {
  if (x.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor ", index, " must have rank >= 2, got ", x.shape().DebugString()));
  }
  if (x.dim(x.rank() - 2) != x.dim(x.rank() - 1)) {
    return absl::InvalidArgumentError("Input matrix must be square.");
  }
  return absl::OkStatus();
}

// Runs fn(b, fail) for every matrix b of the batch on the pool, `cost` per matrix; the
// first message fn reports through `fail` becomes the kernel's InvalidArgument.
template <typename Fn>
absl::Status ForEachMatrix(OpKernelContext& ctx, int64_t batches, int64_t cost, Fn fn) {
  std::atomic<bool> failed{false};
  std::string message;
  std::atomic_flag claimed = ATOMIC_FLAG_INIT;
  auto fail = [&](std::string m) {
    if (!claimed.test_and_set()) message = std::move(m);
    failed = true;
  };
  ctx.ParallelFor(batches, std::max<int64_t>(1, cost), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end && !failed; ++b) fn(b, fail);
  });
  if (failed) return absl::InvalidArgumentError(message);
  return absl::OkStatus();
}

}  // namespace tw::linalg_batch

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_LINALG_BATCH_H_
