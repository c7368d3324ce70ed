#include "client/tensor_text.h"

#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace tw {
namespace {

TEST(TensorTextTest, ParsesScalarsAndNestedLists) {
  EXPECT_TENSOR_EQ(*ParseTensorText("3", DType::kInt32), Tensor::Scalar<int32_t>(3));
  EXPECT_TENSOR_EQ(*ParseTensorText(" [1.5, 2] ", DType::kFloat), testing::F32({2}, {1.5, 2}));
  EXPECT_TENSOR_EQ(*ParseTensorText("[[1,2],[3,4],[5,6]]", DType::kInt64),
                   testing::I64({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(*ParseTensorText("[true,false]", DType::kBool), testing::Bool({2}, {true, false}));
  EXPECT_TENSOR_EQ(*ParseTensorText("[]", DType::kFloat), testing::F32({0}, {}));
}

TEST(TensorTextTest, RejectsBadText) {
  EXPECT_STATUS(ParseTensorText("[[1,2],[3]]", DType::kInt32).status(), absl::StatusCode::kInvalidArgument,
                "ragged");
  EXPECT_STATUS(ParseTensorText("[1,[2]]", DType::kInt32).status(), absl::StatusCode::kInvalidArgument,
                "ragged");
  EXPECT_STATUS(ParseTensorText("1.5", DType::kInt32).status(), absl::StatusCode::kInvalidArgument,
                "'1.5' is not a valid int32");
  EXPECT_STATUS(ParseTensorText("[1,2", DType::kFloat).status(), absl::StatusCode::kInvalidArgument,
                "expected ',' or ']'");
  EXPECT_STATUS(ParseTensorText("[1] x", DType::kFloat).status(), absl::StatusCode::kInvalidArgument,
                "unexpected text");
}

}  // namespace
}  // namespace tw
