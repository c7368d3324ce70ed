// The client builders and the gradient functions narrow int64 shape values to int32 through
// one checked path (client::IntVector / IntScalar): out of range fails, never wraps around.
#include <gtest/gtest.h>

#include "autodiff/grad_util.h"
#include "client/op_builder.h"
#include "tensorweave/session.h"
#include "testing/test_util.h"

namespace tw {
namespace {

TEST(CheckedIntsTest, ClientAndGradientHelpersShareTheRangeCheck) {
  Graph g;
  const int64_t too_big = int64_t{1} << 40;
  EXPECT_STATUS(testing::ErrorOf([&] { client::IntVector(g, {1, too_big}, "dims"); }),
                absl::StatusCode::kInvalidArgument, "dims: value 1099511627776 out of int32 range");
  EXPECT_STATUS(testing::ErrorOf([&] { grad::IntVector(g, {too_big}); }), absl::StatusCode::kInvalidArgument,
                "value 1099511627776 out of int32 range");
  EXPECT_STATUS(testing::ErrorOf([&] { grad::IntScalar(g, -too_big); }), absl::StatusCode::kInvalidArgument,
                "value -1099511627776 out of int32 range");
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(grad::IntVector(g, {INT32_MIN, INT32_MAX})), testing::I32({2}, {INT32_MIN, INT32_MAX}));
  EXPECT_TENSOR_EQ(sess.run(grad::IntScalar(g, -7)), Tensor::Scalar(int32_t{-7}));
}

}  // namespace
}  // namespace tw
