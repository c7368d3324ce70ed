#include <gtest/gtest.h>

#include "testing/test_util.h"

namespace tw {
namespace {

TEST(RunOpSmoke, IdentityReturnsItsInput) {
  Tensor out = testing::RunOpOk("Identity", {F32({2}, {1, 2})});
  EXPECT_TENSOR_EQ(out, F32({2}, {1, 2}));
}

TEST(RunOpSmoke, UnknownOpIsInvalidArgument) {
  EXPECT_STATUS(testing::RunOp("NoSuchOp", {}).status(), absl::StatusCode::kNotFound, "NoSuchOp");
}

}  // namespace
}  // namespace tw
