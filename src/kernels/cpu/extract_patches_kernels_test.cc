// Tests of ExtractImagePatches: values for VALID and SAME padding, strides and rates, and
// TensorFlow's errors.
#include <gtest/gtest.h>

#include "testing/op_test_util.h"

namespace tw {
namespace {

AttrMap Patches(std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> r, const char* padding) {
  return {{"ksizes", IntList(std::move(k))}, {"strides", IntList(std::move(s))},
          {"rates", IntList(std::move(r))}, {"padding", MakeAttr(padding)}};
}

const Tensor kImage = F32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});

TEST(ExtractImagePatches, ValidWindowsInRowMajorOrder) {
  EXPECT_TENSOR_EQ(RunBoth1("ExtractImagePatches", {kImage}, Patches({1, 2, 2, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID")),
                   F32({1, 2, 2, 4}, {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
  // Rate 2 spreads the 2x2 window over 3x3 pixels: the corners.
  EXPECT_TENSOR_EQ(RunBoth1("ExtractImagePatches", {kImage}, Patches({1, 2, 2, 1}, {1, 1, 1, 1}, {1, 2, 2, 1}, "VALID")),
                   F32({1, 1, 1, 4}, {1, 3, 7, 9}));
}

TEST(ExtractImagePatches, SamePadsWithZerosAfterTheImage) {
  EXPECT_TENSOR_EQ(RunBoth1("ExtractImagePatches", {kImage}, Patches({1, 2, 2, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME")),
                   F32({1, 2, 2, 4}, {1, 2, 4, 5, 3, 0, 6, 0, 7, 8, 0, 0, 9, 0, 0, 0}));
  // Channels stay together within a window position; other dtypes are moved as they are.
  EXPECT_TENSOR_EQ(RunBoth1("ExtractImagePatches", {I64({1, 1, 2, 2}, {1, 2, 3, 4})},
                            Patches({1, 1, 3, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME")),
                   I64({1, 1, 2, 6}, {0, 0, 1, 2, 3, 4, 1, 2, 3, 4, 0, 0}));
}

TEST(ExtractImagePatches, Errors) {
  EXPECT_TRUE(FailsBoth("ExtractImagePatches", {F32({1, 1, 1, 1}, {1})},
                        Patches({1, 3, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
                        "Computed output size would be negative: -1 [input_size: 1, effective_filter_size: 3, "
                        "stride: 1]"));
  EXPECT_TRUE(FailsFed("ExtractImagePatches", {F32({3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
                       Patches({1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"), "input must be 4-dimensional"));
  // The lists' entries are the kernel's to check, with TensorFlow's codes.
  EXPECT_TRUE(FailsFed("ExtractImagePatches", {kImage}, Patches({2, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"),
                       "Only support ksizes across space.", absl::StatusCode::kUnimplemented));
  EXPECT_TRUE(FailsFed("ExtractImagePatches", {kImage}, Patches({1, 1, 1, 1}, {1, 0, 1, 1}, {1, 1, 1, 1}, "SAME"),
                       "strides is out of range.", absl::StatusCode::kOutOfRange));
  EXPECT_STATUS(InferShape("ExtractImagePatches", {kImage}, Patches({1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"))
                    .status(),
                absl::StatusCode::kInvalidArgument, "Length for attr 'ksizes' of 3 must be at least minimum 4");
  EXPECT_STATUS(InferShape("ExtractImagePatches", {kImage}, Patches({1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, "FULL"))
                    .status(),
                absl::StatusCode::kInvalidArgument, "is not in the list of allowed values");
}

TEST(ExtractImagePatches, ShapeWithUnknownDims) {
  auto s = InferShape("ExtractImagePatches", {OpInput(DType::kFloat, PartialShape({-1, 5, 7, 3}))},
                      Patches({1, 2, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({-1, 2, 3, 18}));
  s = InferShape("ExtractImagePatches", {OpInput(DType::kFloat, PartialShape({2, -1, 7, 3}))},
                 Patches({1, 2, 3, 1}, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({2, -1, -1, 18}));
}

}  // namespace
}  // namespace tw
