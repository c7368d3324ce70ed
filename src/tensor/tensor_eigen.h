// Eigen views over tensors and raw element ranges (no copies). Kept apart from
// tensor.h so only kernels pay Eigen's compile time; Core only (no Tensor module),
// which keeps each kernel file quick to build on 2 cores.
#ifndef TENSORWEAVE_SRC_TENSOR_TENSOR_EIGEN_H_
#define TENSORWEAVE_SRC_TENSOR_TENSOR_EIGEN_H_

#include <Eigen/Core>

#include "tensorweave/tensor.h"

namespace tw {

// A run of n elements as a 1-D Eigen array (vectorized elementwise math).
template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// All elements of a tensor as a 1-D Eigen array.
template <typename T>
ArrayMap<T> EigenFlat(const Tensor& t) {
  return ArrayMap<T>(t.data<T>(), t.NumElements());
}

// A rank-2 tensor as a row-major Eigen matrix (the tensor's own layout).
template <typename T>
Eigen::Map<RowMatrix<T>> EigenMatrix(const Tensor& t) {
  assert(t.rank() == 2);
  return Eigen::Map<RowMatrix<T>>(t.data<T>(), t.dim(0), t.dim(1));
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_TENSOR_EIGEN_H_
