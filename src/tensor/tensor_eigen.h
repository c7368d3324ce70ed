// Eigen views over tensors (no copies). Kept apart from tensor.h so only kernels pay
// Eigen's compile time.
#ifndef TENSORWEAVE_SRC_TENSOR_TENSOR_EIGEN_H_
#define TENSORWEAVE_SRC_TENSOR_TENSOR_EIGEN_H_

#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include "tensorweave/tensor.h"

namespace tw {

template <typename T>
using EigenVectorMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using EigenRowMatrixMap =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <typename T, int N>
using EigenTensorMap = Eigen::TensorMap<Eigen::Tensor<T, N, Eigen::RowMajor, Eigen::DenseIndex>>;

// All elements as a 1-D Eigen array.
template <typename T>
EigenVectorMap<T> EigenFlat(const Tensor& t) {
  return EigenVectorMap<T>(t.data<T>(), t.NumElements());
}

// A rank-2 tensor as a row-major Eigen matrix.
template <typename T>
EigenRowMatrixMap<T> EigenMatrix(const Tensor& t) {
  assert(t.rank() == 2);
  return EigenRowMatrixMap<T>(t.data<T>(), t.dim(0), t.dim(1));
}

// A rank-N tensor as an Eigen::TensorMap (row-major, like the tensor's layout).
template <typename T, int N>
EigenTensorMap<T, N> EigenTensor(const Tensor& t) {
  assert(t.rank() == N);
  Eigen::array<Eigen::DenseIndex, N> dims;
  for (int i = 0; i < N; ++i) dims[i] = t.dim(i);
  return EigenTensorMap<T, N>(t.data<T>(), dims);
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_TENSOR_EIGEN_H_
