// Tests of Pad and StridedSliceGrad.
#include <gtest/gtest.h>

#include <numeric>

#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Bool;
using testing::F32;
using testing::F64;
using testing::FailsBoth;
using testing::FailsFed;
using testing::I32;
using testing::I64;
using testing::InferShapes;
using testing::RunBoth1;
using testing::RunOpFed;

Tensor Iota(std::initializer_list<int64_t> shape) {
  Tensor t(DType::kInt32, TensorShape(shape));
  std::iota(t.data<int32_t>(), t.data<int32_t>() + t.NumElements(), 1);
  return t;
}

TEST(ArrayPadOps, Pad) {
  EXPECT_TENSOR_EQ(RunBoth1("Pad", {Iota({2, 2}), I32({2, 2}, {1, 0, 0, 2})}),
                   I32({3, 4}, {0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0}));
  EXPECT_TENSOR_EQ(RunBoth1("Pad", {F64({3}, {1.5, 2, 3}), I64({1, 2}, {2, 1})}),
                   F64({6}, {0, 0, 1.5, 2, 3, 0}));
  EXPECT_TENSOR_EQ(RunBoth1("Pad", {Bool({1}, {true}), I32({1, 2}, {1, 1})}),
                   Bool({3}, {false, true, false}));
  EXPECT_TENSOR_EQ(RunBoth1("Pad", {Tensor::Scalar<float>(2), I32({0, 2}, {})}),
                   Tensor::Scalar<float>(2));
  // Padding an empty tensor gives zeros; zero paddings share the input.
  EXPECT_TENSOR_EQ(RunBoth1("Pad", {F32({0, 2}, {}), I32({2, 2}, {1, 0, 0, 1})}),
                   F32({1, 3}, {0, 0, 0}));
  const Tensor x = Iota({2, 3});
  auto out = RunOpFed("Pad", {x, I32({2, 2}, {0, 0, 0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
  // A rank-3 interior window.
  Tensor padded = RunBoth1("Pad", {Iota({1, 2, 2}), I32({3, 2}, {1, 1, 0, 1, 1, 0})});
  ASSERT_EQ(padded.shape(), TensorShape({3, 3, 3}));
  std::vector<int32_t> expected(27, 0);
  expected[9 + 1] = 1, expected[9 + 2] = 2, expected[9 + 4] = 3, expected[9 + 5] = 4;
  EXPECT_TENSOR_EQ(padded, testing::Make<int32_t>({3, 3, 3}, expected));
}

TEST(ArrayPadOps, PadErrors) {
  EXPECT_TRUE(FailsBoth("Pad", {Iota({2, 2}), I32({2, 2}, {1, -1, 0, 0})}, {},
                        "Paddings must be non-negative: 1 -1"));
  EXPECT_TRUE(
      FailsBoth("Pad", {Iota({2, 2}), I32({3, 2}, {0, 0, 0, 0, 0, 0})}, {},
                "The first dimension of paddings must be the rank of inputs: paddings shape [3,2], "
                "input shape [2,2]"));
  EXPECT_TRUE(FailsBoth("Pad", {Iota({2, 2}), I32({2, 3}, {0, 0, 0, 0, 0, 0})}, {},
                        "paddings must be a matrix with 2 columns, got shape [2,3]"));
  EXPECT_TRUE(FailsBoth("Pad", {Iota({2}), I32({2}, {0, 0})}, {},
                        "paddings must be a matrix with 2 columns, got shape [2]"));
  EXPECT_TRUE(FailsBoth("Pad", {Iota({2}), I64({1, 2}, {int64_t{1} << 41, 0})}, {},
                        "Padded dimension 0 is larger"));
}

TEST(ArrayPadOps, PadInference) {
  auto s = InferShapes("Pad", {{DType::kFloat, PartialShape({-1, 3})}, I32({2, 2}, {1, 1, 0, 2})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({-1, 5}));
  s = InferShapes("Pad",
                  {{DType::kFloat, PartialShape::UnknownRank()}, I32({3, 2}, {0, 0, 0, 0, 1, 1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::Unknown(3));
  s = InferShapes("Pad",
                  {{DType::kFloat, PartialShape({2, 2})}, {DType::kInt32, PartialShape({-1, 2})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::Unknown(2));
}

AttrMap Masks(int64_t begin, int64_t end, int64_t ellipsis, int64_t new_axis, int64_t shrink) {
  return {{"begin_mask", MakeAttr(begin)},
          {"end_mask", MakeAttr(end)},
          {"ellipsis_mask", MakeAttr(ellipsis)},
          {"new_axis_mask", MakeAttr(new_axis)},
          {"shrink_axis_mask", MakeAttr(shrink)}};
}

TEST(ArrayPadOps, StridedSliceGrad) {
  // The gradient of x[1:, ::2] for x of shape [2, 4].
  EXPECT_TENSOR_EQ(RunBoth1("StridedSliceGrad",
                            {I32({2}, {2, 4}), I32({2}, {1, 0}), I32({2}, {0, 0}), I32({2}, {1, 2}),
                             I32({1, 2}, {7, 8})},
                            Masks(0b10, 0b11, 0, 0, 0)),
                   I32({2, 4}, {0, 0, 0, 0, 7, 0, 8, 0}));
  // Negative stride: v[5:0:-2] of a [6] vector, int64 indices.
  EXPECT_TENSOR_EQ(
      RunBoth1("StridedSliceGrad",
               {I64({1}, {6}), I64({1}, {5}), I64({1}, {0}), I64({1}, {-2}), F64({3}, {1, 2, 3})},
               Masks(0, 0, 0, 0, 0)),
      F64({6}, {0, 3, 0, 2, 0, 1}));
  // x[newaxis, 1, ..., -1] on [2, 3, 2]: new axis, shrink and ellipsis together.
  EXPECT_TENSOR_EQ(RunBoth1("StridedSliceGrad",
                            {I32({3}, {2, 3, 2}), I32({4}, {0, 1, 0, -1}), I32({4}, {0, 2, 0, 0}),
                             I32({4}, {1, 1, 1, 1}), F32({1, 3}, {4, 5, 6})},
                            Masks(0, 0, 0b0100, 0b0001, 0b1010)),
                   F32({2, 3, 2}, {0, 0, 0, 0, 0, 0, 0, 4, 0, 5, 0, 6}));
  // The whole input: dy comes back as it is, reshaped.
  EXPECT_TENSOR_EQ(RunBoth1("StridedSliceGrad",
                            {I32({2}, {2, 2}), I32({2}, {0, 0}), I32({2}, {0, 0}), I32({2}, {1, 1}),
                             I32({2, 2}, {1, 2, 3, 4})},
                            Masks(0b11, 0b11, 0, 0, 0)),
                   I32({2, 2}, {1, 2, 3, 4}));
  // An empty slice gives zeros.
  EXPECT_TENSOR_EQ(
      RunBoth1("StridedSliceGrad",
               {I32({1}, {3}), I32({1}, {2}), I32({1}, {1}), I32({1}, {1}), F32({0}, {})},
               Masks(0, 0, 0, 0, 0)),
      F32({3}, {0, 0, 0}));
}

TEST(ArrayPadOps, StridedSliceGradErrors) {
  EXPECT_TRUE(FailsBoth("StridedSliceGrad",
                        {I32({2}, {2, 4}), I32({2}, {1, 0}), I32({2}, {0, 0}), I32({2}, {1, 2}),
                         I32({2, 2}, {1, 2, 3, 4})},
                        Masks(0b10, 0b11, 0, 0, 0), "shape of dy was [2,2] instead of [1,2]"));
  EXPECT_TRUE(FailsBoth(
      "StridedSliceGrad",
      {I32({1}, {4}), I32({1}, {0}), I32({1}, {4}), I32({1}, {0}), F32({4}, {1, 2, 3, 4})},
      Masks(0, 0, 0, 0, 0), "strides[0] must be non-zero"));
  EXPECT_TRUE(FailsBoth(
      "StridedSliceGrad",
      {I32({1}, {-4}), I32({1}, {0}), I32({1}, {4}), I32({1}, {1}), F32({4}, {1, 2, 3, 4})},
      Masks(0, 0, 0, 0, 0), "-4"));
  EXPECT_TRUE(FailsBoth(
      "StridedSliceGrad",
      {I32({1, 1}, {4}), I32({1}, {0}), I32({1}, {4}), I32({1}, {1}), F32({4}, {1, 2, 3, 4})},
      Masks(0, 0, 0, 0, 0), "shape must be a vector, but got shape [1,1]"));
}

TEST(ArrayPadOps, StridedSliceGradInference) {
  auto s = InferShapes("StridedSliceGrad",
                       {{DType::kInt32, PartialShape({3})},
                        I32({3}, {0, 0, 0}),
                        I32({3}, {1, 1, 1}),
                        I32({3}, {1, 1, 1}),
                        {DType::kFloat, PartialShape::UnknownRank()}},
                       Masks(0, 0, 0, 0, 0));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape::Unknown(3));
}

}  // namespace
}  // namespace tw
