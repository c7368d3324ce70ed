#include "tensor/tensor_eigen.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

TEST(TensorEigenTest, FlatViewSharesTheTensorsBytes) {
  auto t = *Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  auto flat = EigenFlat<float>(t);
  EXPECT_EQ(flat.size(), 4);
  EXPECT_FLOAT_EQ(flat.sum(), 10.0f);
  flat *= 2.0f;  // Writes through to the tensor.
  EXPECT_EQ(t.flat<float>()[3], 8.0f);
}

TEST(TensorEigenTest, MatrixViewIsRowMajor) {
  auto t = *Tensor::FromVector<double>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto m = EigenMatrix<double>(t);
  EXPECT_EQ(m.rows(), 2);
  EXPECT_EQ(m.cols(), 3);
  EXPECT_EQ(m(0, 2), 3.0);
  EXPECT_EQ(m(1, 0), 4.0);
  Tensor product(DType::kDouble, TensorShape({2, 2}));
  EigenMatrix<double>(product).noalias() = m * m.transpose();
  EXPECT_EQ(product.flat<double>()[0], 14.0);  // 1+4+9
  EXPECT_EQ(product.flat<double>()[3], 77.0);  // 16+25+36
}

TEST(TensorEigenTest, ZeroSizeTensorsGiveEmptyViews) {
  Tensor t(DType::kInt32, TensorShape({0, 5}));
  EXPECT_EQ(EigenFlat<int32_t>(t).size(), 0);
  EXPECT_EQ(EigenMatrix<int32_t>(t).rows(), 0);
}

}  // namespace
}  // namespace tw
