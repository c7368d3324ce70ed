// Tests of Concat, ConcatV2, Pack, Unpack, Split and SplitV.
#include <gtest/gtest.h>

#include "testing/op_test_util.h"

namespace tw {
namespace {

AttrMap Axis(int64_t axis) { return {{"axis", MakeAttr(axis)}}; }

TEST(ArrayJoinOps, ConcatV2) {
  const Tensor a = F32({2, 2}, {1, 2, 3, 4}), b = F32({2, 1}, {5, 6}), c = F32({1, 2}, {7, 8});
  EXPECT_TENSOR_EQ(RunBoth1("ConcatV2", {a, b, Tensor::Scalar<int32_t>(1)}),
                   F32({2, 3}, {1, 2, 5, 3, 4, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("ConcatV2", {a, c, Tensor::Scalar<int64_t>(-2)}),
                   F32({3, 2}, {1, 2, 3, 4, 7, 8}));
  EXPECT_TENSOR_EQ(RunBoth1("ConcatV2", {a, F32({2, 0}, {}), b, Tensor::Scalar<int32_t>(-1)}),
                   F32({2, 3}, {1, 2, 5, 3, 4, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("ConcatV2", {Bool({1}, {true}), Bool({2}, {false, true}),
                                         Tensor::Scalar<int32_t>(0)}),
                   Bool({3}, {true, false, true}));
  EXPECT_TENSOR_EQ(RunBoth1("ConcatV2", {I64({0, 3}, {}), I64({0, 2}, {}), Tensor::Scalar<int32_t>(1)}),
                   I64({0, 5}, {}));
}

TEST(ArrayJoinOps, ConcatTf1ArgumentOrder) {
  EXPECT_TENSOR_EQ(RunBoth1("Concat", {Tensor::Scalar<int32_t>(0), F64({1, 2}, {1, 2}),
                                       F64({1, 2}, {3, 4}), F64({1, 2}, {5, 6})}),
                   F64({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Concat", {Tensor::Scalar<int32_t>(1), I32({1, 1}, {1}), I32({1, 2}, {2, 3})}),
                   I32({1, 3}, {1, 2, 3}));
}

TEST(ArrayJoinOps, ConcatErrors) {
  const Tensor a = F32({2, 2}, {1, 2, 3, 4});
  EXPECT_TRUE(FailsBoth("ConcatV2", {a, F32({3, 1}, {1, 2, 3}), Tensor::Scalar<int32_t>(1)}, {},
                        "Dimension 0 in both shapes must be equal: shape[0] = [2,2] vs. shape[1] = [3,1]"));
  EXPECT_TRUE(FailsBoth("ConcatV2", {a, a, F32({2}, {1, 2}), Tensor::Scalar<int32_t>(0)}, {},
                        "Ranks of all input tensors should match: shape[0] = [2,2] vs. shape[2] = [2]"));
  EXPECT_TRUE(FailsBoth("ConcatV2", {a, a, Tensor::Scalar<int32_t>(2)}, {},
                        "Expected concatenating dimensions in the range [-2, 2), but got 2"));
  EXPECT_TRUE(FailsBoth("ConcatV2", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2),
                                     Tensor::Scalar<int32_t>(0)}, {},
                        "Can't concatenate scalars (use tf.stack instead)"));
  EXPECT_TRUE(FailsBoth("ConcatV2", {a, a, I32({1}, {0})}, {},
                        "Concat dim tensor should be a scalar integer, but got shape [1]"));
  EXPECT_TRUE(FailsBoth("Concat", {Tensor::Scalar<int32_t>(0), a, F32({2, 3}, {1, 2, 3, 4, 5, 6})}, {},
                        "Dimension 1 in both shapes must be equal"));
}

TEST(ArrayJoinOps, ConcatInferenceWithUnknownAxis) {
  auto s = InferShapes("ConcatV2", {{DType::kFloat, PartialShape({2, 3})},
                                    {DType::kFloat, PartialShape({-1, 3})},
                                    {DType::kInt32, PartialShape({})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::Unknown(2));
  s = InferShapes("ConcatV2", {{DType::kFloat, PartialShape({-1, 3})},
                               {DType::kFloat, PartialShape({4, -1})}, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({-1, 3}));
}

TEST(ArrayJoinOps, Pack) {
  const Tensor a = I32({2}, {1, 2}), b = I32({2}, {3, 4}), c = I32({2}, {5, 6});
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {a, b, c}), I32({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {a, b, c}, Axis(1)), I32({2, 3}, {1, 3, 5, 2, 4, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {a, b, c}, Axis(-1)), I32({2, 3}, {1, 3, 5, 2, 4, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {Tensor::Scalar<double>(1), Tensor::Scalar<double>(2)}),
                   F64({2}, {1, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {Bool({1}, {true})}), Bool({1, 1}, {true}));
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {F32({0, 2}, {}), F32({0, 2}, {})}, Axis(1)), F32({0, 2, 2}, {}));
}

TEST(ArrayJoinOps, PackErrors) {
  EXPECT_TRUE(FailsBoth("Pack", {I32({2}, {1, 2}), I32({3}, {1, 2, 3})}, {},
                        "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]"));
  EXPECT_TRUE(FailsBoth("Pack", {I32({2}, {1, 2}), I32({2}, {1, 2})}, Axis(2), "axis = 2 not in [-2, 2)"));
  EXPECT_TRUE(FailsBoth("Pack", {I32({2}, {1, 2}), I32({2}, {1, 2})}, Axis(-3), "axis = -3 not in [-2, 2)"));
}

TEST(ArrayJoinOps, Unpack) {
  const Tensor x = I32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = RunBoth("Unpack", {x}, {{"num", MakeAttr(int64_t{3})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TENSOR_EQ(out[0], I32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(out[2], I32({2}, {5, 6}));
  out = RunBoth("Unpack", {x}, {{"num", MakeAttr(int64_t{2})}, {"axis", MakeAttr(int64_t{-1})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], I32({3}, {1, 3, 5}));
  EXPECT_TENSOR_EQ(out[1], I32({3}, {2, 4, 6}));
  out = RunBoth("Unpack", {Bool({2}, {true, false})}, {{"num", MakeAttr(int64_t{2})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[1], Bool({}, {false}));
  out = RunBoth("Unpack", {F32({2, 0}, {})}, {{"num", MakeAttr(int64_t{2})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[1], F32({0}, {}));
  out = RunBoth("Unpack", {F32({0, 3}, {})}, {{"num", MakeAttr(int64_t{0})}});
  EXPECT_TRUE(out.empty());
}

TEST(ArrayJoinOps, UnpackErrors) {
  const Tensor x = I32({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(FailsBoth("Unpack", {x}, {{"num", MakeAttr(int64_t{2})}},
                        "Input shape axis 0 must equal 2, got shape [3,2]"));
  EXPECT_TRUE(FailsBoth("Unpack", {x}, {{"num", MakeAttr(int64_t{3})}, {"axis", MakeAttr(int64_t{2})}},
                        "axis = 2 not in [-2, 2)"));
  EXPECT_TRUE(FailsBoth("Unpack", {Tensor::Scalar<float>(1)}, {{"num", MakeAttr(int64_t{1})}},
                        "axis = 0 not in [0, 0)"));
}

TEST(ArrayJoinOps, Split) {
  const Tensor x = F32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto out = RunBoth("Split", {Tensor::Scalar<int32_t>(1), x}, {{"num_split", MakeAttr(int64_t{2})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], F32({2, 2}, {1, 2, 5, 6}));
  EXPECT_TENSOR_EQ(out[1], F32({2, 2}, {3, 4, 7, 8}));
  out = RunBoth("Split", {Tensor::Scalar<int32_t>(-2), x}, {{"num_split", MakeAttr(int64_t{2})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[1], F32({1, 4}, {5, 6, 7, 8}));
  out = RunBoth("Split", {Tensor::Scalar<int32_t>(0), Bool({3}, {true, false, true})},
                {{"num_split", MakeAttr(int64_t{3})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TENSOR_EQ(out[1], Bool({1}, {false}));
  out = RunBoth("Split", {Tensor::Scalar<int32_t>(0), I64({0, 2}, {})}, {{"num_split", MakeAttr(int64_t{2})}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[1], I64({0, 2}, {}));
  out = RunBoth("Split", {Tensor::Scalar<int32_t>(0), x}, {{"num_split", MakeAttr(int64_t{1})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TENSOR_EQ(out[0], x);
}

TEST(ArrayJoinOps, SplitErrors) {
  const Tensor x = F32({2, 5}, std::vector<float>(10));
  EXPECT_TRUE(FailsBoth("Split", {Tensor::Scalar<int32_t>(1), x}, {{"num_split", MakeAttr(int64_t{2})}},
                        "Number of ways to split should evenly divide the split dimension, but got "
                        "split_dim 1 (size = 5) and num_split 2"));
  EXPECT_TRUE(FailsBoth("Split", {Tensor::Scalar<int32_t>(2), x}, {{"num_split", MakeAttr(int64_t{2})}},
                        "split_dim 2 is out of range for a tensor of rank 2"));
  EXPECT_TRUE(FailsBoth("Split", {I32({1}, {0}), x}, {{"num_split", MakeAttr(int64_t{2})}},
                        "split_dim tensor should be a scalar integer, but got shape [1]"));
}

TEST(ArrayJoinOps, SplitV) {
  const Tensor x = I32({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto out = RunBoth("SplitV", {x, I64({3}, {1, 3, 1}), Tensor::Scalar<int32_t>(1)},
                     {{"num_split", MakeAttr(int64_t{3})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TENSOR_EQ(out[0], I32({2, 1}, {0, 5}));
  EXPECT_TENSOR_EQ(out[1], I32({2, 3}, {1, 2, 3, 6, 7, 8}));
  EXPECT_TENSOR_EQ(out[2], I32({2, 1}, {4, 9}));
  out = RunBoth("SplitV", {x, I32({3}, {2, -1, 0}), Tensor::Scalar<int32_t>(-1)},
                {{"num_split", MakeAttr(int64_t{3})}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TENSOR_EQ(out[1], I32({2, 3}, {2, 3, 4, 7, 8, 9}));
  EXPECT_TENSOR_EQ(out[2], I32({2, 0}, {}));
}

TEST(ArrayJoinOps, SplitVErrors) {
  const Tensor x = I32({5}, {0, 1, 2, 3, 4});
  auto attrs = AttrMap{{"num_split", MakeAttr(int64_t{2})}};
  EXPECT_TRUE(FailsBoth("SplitV", {x, I64({2}, {-1, -1}), Tensor::Scalar<int32_t>(0)}, attrs,
                        "There can only be one -1 in the input."));
  EXPECT_TRUE(FailsBoth("SplitV", {x, I64({2}, {2, 2}), Tensor::Scalar<int32_t>(0)}, attrs,
                        "Determined shape must either match input shape along split_dim exactly"));
  EXPECT_TRUE(FailsBoth("SplitV", {x, I64({2}, {7, -1}), Tensor::Scalar<int32_t>(0)}, attrs,
                        "Got: 7 for a dimension of size 5"));
  EXPECT_TRUE(FailsBoth("SplitV", {x, I64({2}, {-2, 7}), Tensor::Scalar<int32_t>(0)}, attrs,
                        "Split size at index 0 must be >= 0. Got: -2"));
  EXPECT_TRUE(FailsBoth("SplitV", {x, I64({3}, {1, 2, 2}), Tensor::Scalar<int32_t>(0)}, attrs,
                        "size_splits must have num_split = 2 elements, but has 3"));
}

}  // namespace
}  // namespace tw
