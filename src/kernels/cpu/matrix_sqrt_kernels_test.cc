// Tests of MatrixSquareRoot: principal roots of batches (real and complex), NaN where no
// real root exists (as TensorFlow), and TensorFlow's shape errors.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "testing/op_test_util.h"

namespace tw {
namespace {

TEST(MatrixSquareRoot, PrincipalRootsOfABatch) {
  // diag(4, 9); [[5, 4], [4, 5]] = [[2, 1], [1, 2]]^2; an upper triangular [[4, 5], [0, 9]].
  EXPECT_TENSOR_NEAR(RunBoth1("MatrixSquareRoot", {F64({3, 2, 2}, {4, 0, 0, 9, 5, 4, 4, 5, 4, 5, 0, 9})}),
                     F64({3, 2, 2}, {2, 0, 0, 3, 2, 1, 1, 2, 2, 1, 0, 3}), 1e-12, 1e-12);
  EXPECT_TENSOR_NEAR(RunBoth1("MatrixSquareRoot", {F32({1, 1}, {16})}), F32({1, 1}, {4}));
  EXPECT_TENSOR_EQ(RunBoth1("MatrixSquareRoot", {F32({2, 0, 0}, {})}), F32({2, 0, 0}, {}));
  // A rotation by 90 degrees has the rotation by 45 degrees as its principal root.
  const double h = std::sqrt(0.5);
  EXPECT_TENSOR_NEAR(RunBoth1("MatrixSquareRoot", {F64({2, 2}, {0, -1, 1, 0})}), F64({2, 2}, {h, -h, h, h}),
                     1e-12, 1e-12);
}

TEST(MatrixSquareRoot, ComplexMatrices) {
  using C = std::complex<double>;
  // [[-4, 0], [0, 9]]: 2i and 3 on the diagonal.
  const Tensor x = testing::Make<C>({2, 2}, {C(-4, 0), C(0, 0), C(0, 0), C(9, 0)});
  EXPECT_TENSOR_NEAR(RunBoth1("MatrixSquareRoot", {x}),
                     testing::Make<C>({2, 2}, {C(0, 2), C(0, 0), C(0, 0), C(3, 0)}), 1e-12, 1e-12);
}

TEST(MatrixSquareRoot, NoRealRootGivesNaN) {
  const Tensor out = RunBoth1("MatrixSquareRoot", {F64({2, 2}, {-1, 0, 0, 4})});
  ASSERT_EQ(out.NumElements(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(out.data<double>()[i])) << i;
}

TEST(MatrixSquareRoot, Errors) {
  EXPECT_TRUE(FailsFed("MatrixSquareRoot", {F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {}, "Input matrix must be square."));
  // The shape function's words (TensorFlow's too) when the shape is known at graph build.
  EXPECT_STATUS(InferShape("MatrixSquareRoot", {F32({2, 3}, {1, 2, 3, 4, 5, 6})}).status(),
                absl::StatusCode::kInvalidArgument, "Dimensions must be equal, but are 2 and 3");
  EXPECT_TRUE(FailsFed("MatrixSquareRoot", {F64({3}, {1, 2, 3})}, {}, "must have rank >= 2"));
}

}  // namespace
}  // namespace tw
