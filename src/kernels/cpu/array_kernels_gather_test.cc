// Tests of GatherV2.
#include <gtest/gtest.h>

#include "testing/op_test_util.h"

namespace tw {
namespace {

Tensor Axis(int32_t a) { return Tensor::Scalar<int32_t>(a); }

TEST(ArrayGatherOps, GathersRowsAlongAxisZero) {
  const Tensor params = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I32({3}, {2, 0, 2}), Axis(0)}),
                   F32({3, 2}, {5, 6, 1, 2, 5, 6}));
  // Indices of any shape: the output is params[:axis] + indices.shape + params[axis+1:].
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I64({2, 2}, {1, 1, 0, 2}), Axis(0)}),
                   F32({2, 2, 2}, {3, 4, 3, 4, 1, 2, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, Tensor::Scalar<int32_t>(1), Axis(0)}), F32({2}, {3, 4}));
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I32({0}, {}), Axis(0)}), F32({0, 2}, {}));
}

TEST(ArrayGatherOps, GathersAlongInnerAndNegativeAxes) {
  const Tensor params = I64({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor along1 = I64({2, 2, 2}, {4, 5, 0, 1, 10, 11, 6, 7});
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I32({2}, {2, 0}), Axis(1)}), along1);
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I32({2}, {2, 0}), Axis(-2)}), along1);
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I32({1}, {1}), Axis(2)}),
                   I64({2, 3, 1}, {1, 3, 5, 7, 9, 11}));
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {Bool({3}, {true, false, true}), I32({2}, {1, 2}), Axis(0)}),
                   Bool({2}, {false, true}));
}

TEST(ArrayGatherOps, Errors) {
  const Tensor params = F32({3, 2}, {1, 2, 3, 4, 5, 6});
  // Index values are the kernel's to check (as in TensorFlow, whose shape function does not).
  EXPECT_TRUE(FailsFed("GatherV2", {params, I32({2}, {0, 3}), Axis(0)}, {}, "indices[1] = 3 is not in [0, 3)"));
  EXPECT_TRUE(FailsFed("GatherV2", {params, I32({1}, {-1}), Axis(0)}, {}, "indices[0] = -1 is not in [0, 3)"));
  EXPECT_TRUE(FailsBoth("GatherV2", {params, I32({1}, {0}), Axis(2)}, {},
                        "Expected axis in the range [-2, 2), but got 2"));
  EXPECT_TRUE(FailsBoth("GatherV2", {Tensor::Scalar<float>(1), I32({1}, {0}), Axis(0)}, {},
                        "params must be at least 1 dimensional"));
  EXPECT_TRUE(FailsBoth("GatherV2", {params, I32({1}, {0}), I32({1}, {0})}, {},
                        "axis must be a scalar, but got shape [1]"));
  EXPECT_STATUS(RunOp("GatherV2", {params, I32({1}, {0}), Axis(0)}, {{"batch_dims", MakeAttr(int64_t{1})}})
                    .status(),
                absl::StatusCode::kInvalidArgument, "batch_dims = 1 is not supported (only 0)");
}

}  // namespace
}  // namespace tw
