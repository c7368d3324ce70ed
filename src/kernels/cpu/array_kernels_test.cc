// Tests of the shape-query and reshape array ops: Shape, Size, Rank, Reshape, Squeeze,
// ExpandDims, BroadcastTo, BroadcastGradientArgs.
#include <gtest/gtest.h>

#include "testing/op_test_util.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

using absl::StatusCode;

TEST(ArrayShapeOps, ShapeSizeRank) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunBoth1("Shape", {x}), I32({2}, {2, 3}));
  EXPECT_TENSOR_EQ(RunBoth1("Shape", {x}, {{"out_type", MakeAttr(DType::kInt64)}}), I64({2}, {2, 3}));
  EXPECT_TENSOR_EQ(RunBoth1("Size", {x}), Tensor::Scalar<int32_t>(6));
  EXPECT_TENSOR_EQ(RunBoth1("Size", {x}, {{"out_type", MakeAttr(DType::kInt64)}}),
                   Tensor::Scalar<int64_t>(6));
  EXPECT_TENSOR_EQ(RunBoth1("Rank", {x}), Tensor::Scalar<int32_t>(2));
}

TEST(ArrayShapeOps, ShapeOfScalarsEmptyAndBool) {
  EXPECT_TENSOR_EQ(RunBoth1("Shape", {Tensor::Scalar<double>(1)}), I32({0}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Rank", {Tensor::Scalar<double>(1)}), Tensor::Scalar<int32_t>(0));
  EXPECT_TENSOR_EQ(RunBoth1("Size", {Tensor::Scalar<double>(1)}), Tensor::Scalar<int32_t>(1));
  const Tensor empty = Bool({4, 0, 2}, {});
  EXPECT_TENSOR_EQ(RunBoth1("Shape", {empty}), I32({3}, {4, 0, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("Size", {empty}), Tensor::Scalar<int32_t>(0));
}

TEST(ArrayShapeOps, ShapeInt32Overflow) {
  const Tensor huge(DType::kFloat, TensorShape({3000000000, 0}));  // No elements, big dim.
  EXPECT_TRUE(FailsFed("Shape", {huge}, {}, "3000000000 does not fit the 32-bit output type"));
  EXPECT_TENSOR_EQ(
      *RunOpFed("Shape", {huge}, {{"out_type", MakeAttr(DType::kInt64)}}).value().begin(),
      I64({2}, {3000000000, 0}));
}

// Kernels that only look at metadata run inline; ones that copy elements do not.
TEST(ArrayShapeOps, MetadataKernelsAreCheap) {
  const Tensor x = F32({1, 2}, {1, 2});
  const std::vector<std::pair<std::string, std::vector<OpInput>>> cases = {
      {"Shape", {x}},         {"Size", {x}},
      {"Rank", {x}},          {"Reshape", {x, I32({1}, {2})}},
      {"Squeeze", {x}},       {"ExpandDims", {x, Tensor::Scalar<int32_t>(0)}},
      {"Tile", {x, I32({2}, {2, 2})}}};
  for (const auto& [op, inputs] : cases) {
    FlowGraph graph;
    auto node = testing::BuildOp(graph, op, inputs, {}, false);
    ASSERT_TRUE(node.ok()) << node.status();
    auto kernel = KernelRegistry::Global().Create(**node, "cpu", kDeviceCpu, nullptr);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->IsExpensive(), op == "Tile") << op;
  }
}

TEST(ArrayShapeOps, ShapeInference) {
  auto s = InferShapes("Shape", {{DType::kFloat, PartialShape({-1, 3})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({2}));
  s = InferShapes("Shape", {{DType::kFloat, PartialShape::UnknownRank()}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({-1}));
  s = InferShapes("Size", {{DType::kFloat, PartialShape::UnknownRank()}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({}));
}

TEST(ArrayShapeOps, Reshape) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {x, I32({2}, {3, 2})}), F32({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {x, I64({3}, {-1, 1, 2})}), F32({3, 1, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {x, I32({1}, {-1})}), F32({6}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {x, Tensor::Scalar<int32_t>(-1)}),
                   F32({6}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {F64({1}, {7}), I32({0}, {})}), Tensor::Scalar<double>(7));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {Bool({2}, {true, false}), I32({2}, {2, 1})}),
                   Bool({2, 1}, {true, false}));
  // A 0 among the sizes: the -1 comes from the input's non-zero dims, as in TensorFlow.
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {I64({0, 3}, {}), I32({3}, {3, -1, 0})}), I64({3, 1, 0}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {I64({0, 3}, {}), I32({2}, {0, -1})}), I64({0, 3}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {I64({0, 3}, {}), I32({2}, {-1, 3})}), I64({0, 3}, {}));
}

TEST(ArrayShapeOps, ReshapeIsZeroCopy) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = RunOpFed("Reshape", {x, I32({2}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 2}));
}

TEST(ArrayShapeOps, ReshapeErrors) {
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(FailsBoth("Reshape", {x, I32({2}, {2, 4})}, {},
                        "Input to reshape is a tensor with 6 values, but the requested shape has 8"));
  EXPECT_TRUE(FailsBoth("Reshape", {x, I32({2}, {-1, -1})}, {},
                        "Only one input size may be -1, not both 0 and 1"));
  EXPECT_TRUE(FailsBoth("Reshape", {x, I32({2}, {3, -2})}, {}, "Size 1 must be non-negative, not -2"));
  EXPECT_TRUE(FailsBoth("Reshape", {x, I32({2}, {-1, 4})}, {},
                        "Input to reshape is a tensor with 6 values, but the requested shape "
                        "requires a multiple of 4"));
  EXPECT_TRUE(FailsBoth("Reshape", {x, I32({2}, {-1, 0})}, {},
                        "Input to reshape is a tensor with 6 values, but the requested shape has 0"));
  EXPECT_TRUE(FailsBoth("Reshape", {x, I32({2, 1}, {6, 1})}, {}, "sizes input must be 1-D, not [2,1]"));
  EXPECT_TRUE(FailsBoth("Reshape", {x, I64({3}, {int64_t{1} << 40, int64_t{1} << 40, 6})}, {},
                        "has more than 1099511627776"));
}

TEST(ArrayShapeOps, ReshapeInference) {
  auto s = InferShapes("Reshape", {{DType::kFloat, PartialShape({-1, 3})}, I32({2}, {-1, 6})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({-1, 6}));
  s = InferShapes("Reshape", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), {DType::kInt32, PartialShape({3})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::Unknown(3));
  s = InferShapes("Reshape", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), {DType::kInt32, PartialShape({-1})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::UnknownRank());
}

TEST(ArrayShapeOps, Squeeze) {
  const Tensor x = I32({1, 2, 1, 3, 1}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunBoth1("Squeeze", {x}), I32({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Squeeze", {x}, {{"squeeze_dims", IntList({2, -1})}}),
                   I32({1, 2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunBoth1("Squeeze", {Bool({1, 1}, {true})}), Bool({}, {true}));
  EXPECT_TENSOR_EQ(RunBoth1("Squeeze", {F32({0, 1}, {})}), F32({0}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Squeeze", {Tensor::Scalar<float>(3)}), Tensor::Scalar<float>(3));
  auto out = RunOpFed("Squeeze", {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
}

TEST(ArrayShapeOps, SqueezeErrorsAndInference) {
  const Tensor x = I32({1, 2}, {1, 2});
  EXPECT_TRUE(FailsBoth("Squeeze", {x}, {{"squeeze_dims", IntList({1})}},
                        "Can not squeeze dim[1], expected a dimension of 1, got 2"));
  EXPECT_TRUE(FailsBoth("Squeeze", {x}, {{"squeeze_dims", IntList({2})}},
                        "Tried to squeeze dim index 2 for tensor with 2 dimensions."));
  EXPECT_TRUE(FailsBoth("Squeeze", {x}, {{"squeeze_dims", IntList({-3})}},
                        "Tried to squeeze dim index -3"));
  auto s = InferShapes("Squeeze", {{DType::kFloat, PartialShape({1, -1, 3})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::UnknownRank());  // The unknown dim might be 1.
  s = InferShapes("Squeeze", {{DType::kFloat, PartialShape({1, -1, 3})}},
                  {{"squeeze_dims", IntList({1})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({1, 3}));
}

TEST(ArrayShapeOps, ExpandDims) {
  const Tensor x = F64({2}, {1, 2});
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {x, Tensor::Scalar<int32_t>(0)}), F64({1, 2}, {1, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {x, Tensor::Scalar<int32_t>(1)}), F64({2, 1}, {1, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {x, Tensor::Scalar<int64_t>(-1)}), F64({2, 1}, {1, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {x, I32({1}, {-2})}), F64({1, 2}, {1, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {Tensor::Scalar<bool>(true), Tensor::Scalar<int32_t>(0)}),
                   Bool({1}, {true}));
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {I32({0, 2}, {}), Tensor::Scalar<int32_t>(1)}),
                   I32({0, 1, 2}, {}));
  auto out = RunOpFed("ExpandDims", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
}

TEST(ArrayShapeOps, ExpandDimsErrors) {
  const Tensor x = F64({2}, {1, 2});
  EXPECT_TRUE(FailsBoth("ExpandDims", {x, Tensor::Scalar<int32_t>(2)}, {},
                        "Tried to expand dim index 2 for tensor with 1 dimensions."));
  EXPECT_TRUE(FailsBoth("ExpandDims", {x, Tensor::Scalar<int32_t>(-3)}, {},
                        "Tried to expand dim index -3 for tensor with 1 dimensions."));
  EXPECT_TRUE(FailsBoth("ExpandDims", {x, I32({2}, {0, 1})}, {},
                        "'dim' must be a tensor with a single value"));
}

TEST(ArrayShapeOps, BroadcastTo) {
  EXPECT_TENSOR_EQ(RunBoth1("BroadcastTo", {F32({3}, {1, 2, 3}), I32({2}, {2, 3})}),
                   F32({2, 3}, {1, 2, 3, 1, 2, 3}));
  EXPECT_TENSOR_EQ(RunBoth1("BroadcastTo", {I64({2, 1}, {1, 2}), I64({3}, {2, 2, 3})}),
                   I64({2, 2, 3}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("BroadcastTo", {Tensor::Scalar<bool>(true), I32({2}, {1, 2})}),
                   Bool({1, 2}, {true, true}));
  EXPECT_TENSOR_EQ(RunBoth1("BroadcastTo", {F32({1}, {5}), I32({2}, {0, 4})}), F32({0, 4}, {}));
  const Tensor same = F32({2}, {1, 2});
  auto out = RunOpFed("BroadcastTo", {same, I32({1}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(same));  // Nothing to broadcast: shared.
}

TEST(ArrayShapeOps, BroadcastToErrors) {
  EXPECT_TRUE(FailsBoth("BroadcastTo", {F32({3}, {1, 2, 3}), I32({2}, {2, 2})}, {},
                        "Unable to broadcast tensor of shape [3] to tensor of shape [2,2]"));
  EXPECT_TRUE(FailsBoth("BroadcastTo", {F32({1, 3}, {1, 2, 3}), I32({1}, {3})}, {},
                        "Rank of input (2) must be no greater than rank of output shape (1)."));
  EXPECT_TRUE(FailsBoth("BroadcastTo", {F32({1}, {1}), I32({2}, {2, -2})}, {},
                        "negative dimension"));
}

TEST(ArrayShapeOps, BroadcastGradientArgs) {
  auto run = [](Tensor s0, Tensor s1) { return RunBoth("BroadcastGradientArgs", {s0, s1}); };
  auto out = run(I32({2}, {2, 3}), I32({1}, {3}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], I32({0}, {}));
  EXPECT_TENSOR_EQ(out[1], I32({1}, {0}));
  out = run(I64({3}, {2, 1, 4}), I64({3}, {1, 3, 1}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], I64({1}, {1}));
  EXPECT_TENSOR_EQ(out[1], I64({2}, {0, 2}));
  out = run(I32({2}, {1, 1}), I32({3}, {5, 1, 1}));  // Dims of 1 on both sides reduce both.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], I32({3}, {0, 1, 2}));
  EXPECT_TENSOR_EQ(out[1], I32({2}, {1, 2}));
  out = run(I32({2}, {2, 3}), I32({2}, {2, 3}));  // Equal shapes: nothing to reduce.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], I32({0}, {}));
  EXPECT_TENSOR_EQ(out[1], I32({0}, {}));
  out = run(I32({0}, {}), I32({2}, {4, 5}));  // A scalar against a matrix.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TENSOR_EQ(out[0], I32({2}, {0, 1}));
  EXPECT_TENSOR_EQ(out[1], I32({0}, {}));
}

TEST(ArrayShapeOps, BroadcastGradientArgsErrors) {
  EXPECT_TRUE(FailsBoth("BroadcastGradientArgs", {I32({2}, {2, 3}), I32({1}, {4})}, {},
                        "Incompatible shapes: [2,3] vs. [4]"));
  EXPECT_TRUE(FailsFed("BroadcastGradientArgs", {I32({1, 1}, {2}), I32({1}, {4})}, {},
                       "s0 must be a vector, but got shape [1,1]"));
  EXPECT_TRUE(FailsBoth("BroadcastGradientArgs", {I32({1}, {-2}), I32({1}, {4})}, {},
                        "s0 has a negative dimension"));
}

}  // namespace
}  // namespace tw
