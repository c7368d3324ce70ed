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
  const AttrMap one_batch_dim = {{"batch_dims", MakeAttr(int64_t{1})}};
  EXPECT_TRUE(FailsBoth("GatherV2", {params, I32({3, 1}, {0, 0, 0}), Axis(0)}, one_batch_dim,
                        "batch_dims (1) must be less than or equal to axis (0)."));
  EXPECT_TRUE(FailsBoth("GatherV2", {params, I32({2, 1}, {0, 0}), Axis(1)}, one_batch_dim,
                        "params.shape[0]: 3 should be equal to indices.shape[0]: 2"));
  EXPECT_TRUE(FailsBoth("GatherV2", {params, I32({3}, {0, 0, 0}), Axis(1)}, {{"batch_dims", MakeAttr(int64_t{2})}},
                        "Expected batch_dims in the range [-1, 1], but got 2"));
  EXPECT_TRUE(FailsBoth("GatherV2", {F32({3}, {1, 2, 3}), I32({3}, {0, 0, 0}), Axis(0)}, one_batch_dim,
                        "batch_dims (1) must be less than rank(params) (1)."));
  // The index check counts in the flattened indices.
  EXPECT_TRUE(FailsFed("GatherV2", {params, I32({3, 1}, {0, 2, 1}), Axis(1)}, one_batch_dim,
                       "indices[1] = 2 is not in [0, 2)"));
}

TEST(ArrayGatherOps, BatchDimsGatherWithinEachBatchRow) {
  // params [2, 3], indices [2, 2], batch_dims 1, axis 1: out[b, k] = params[b, idx[b, k]].
  const Tensor params = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {params, I32({2, 2}, {2, 0, 1, 1}), Axis(1)},
                            {{"batch_dims", MakeAttr(int64_t{1})}}),
                   F32({2, 2}, {3, 1, 5, 5}));
  // batch_dims -1 on indices of rank 2 is 1; axis 2 past the batch dim keeps dim 1 as outer:
  // params [2, 2, 2] -> out[b, o, k] = params[b, o, idx[b, k]].
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {I64({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), I64({2, 1}, {1, 0}), Axis(2)},
                            {{"batch_dims", MakeAttr(int64_t{-1})}}),
                   I64({2, 2, 1}, {2, 4, 5, 7}));
}

TEST(ArrayGatherOps, UnsortedSegmentSumAddsRowsAndDropsNegativeIds) {
  const Tensor data = F32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_TENSOR_EQ(RunBoth1("UnsortedSegmentSum", {data, I32({4}, {0, 2, 0, -1}), Tensor::Scalar<int32_t>(3)}),
                   F32({3, 2}, {6, 8, 0, 0, 3, 4}));
  // segment_ids of rank 2 over data [2, 2, 1]; int64 everywhere.
  EXPECT_TENSOR_EQ(RunBoth1("UnsortedSegmentSum", {I64({2, 2, 1}, {1, 2, 3, 4}), I64({2, 2}, {1, 1, 0, 1}),
                                                  Tensor::Scalar<int64_t>(2)}),
                   I64({2, 1}, {3, 7}));
  // int32 sums wrap, as in TensorFlow.
  EXPECT_TENSOR_EQ(RunBoth1("UnsortedSegmentSum", {I32({2}, {2147483647, 1}), I32({2}, {0, 0}),
                                                  Tensor::Scalar<int32_t>(1)}),
                   I32({1}, {-2147483647 - 1}));
}

TEST(ArrayGatherOps, UnsortedSegmentSumErrors) {
  const Tensor data = F32({3}, {1, 2, 3});
  EXPECT_TRUE(FailsFed("UnsortedSegmentSum", {data, I32({3}, {0, 3, 1}), Tensor::Scalar<int32_t>(3)}, {},
                       "segment_ids[1] = 3 is out of range [0, 3)"));
  EXPECT_TRUE(FailsBoth("UnsortedSegmentSum", {data, I32({2}, {0, 1}), Tensor::Scalar<int32_t>(3)}, {},
                        "is not a prefix of data's shape [3]"));
  EXPECT_TRUE(FailsBoth("UnsortedSegmentSum", {data, I32({3}, {0, 1, 1}), Tensor::Scalar<int32_t>(-1)}, {},
                        "num_segments must be non-negative, got -1"));
}

}  // namespace
}  // namespace tw
