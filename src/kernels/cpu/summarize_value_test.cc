// SummarizeValue against what TensorFlow 2.20's Assert printed for the same tensors
// (test_check_ops.py compares whole messages live; these pin the formatting rules).
#include "kernels/cpu/summarize_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Str;

TEST(SummarizeValueTest, FloatsPrintShortestRoundTrip) {
  EXPECT_EQ(SummarizeValue(F32({5}, {0.1f, 1e-5f, 3e38f, 1.0f / 3, 100.5f}), -1), "0.1 1e-05 3e+38 0.333333343 100.5");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(SummarizeValue(F64({8}, {0.1, 1e-5, nan, -inf, -0.0, 123456789.0, 1e16, 1.5e-300}), -1),
            "0.1 1e-05 nan -inf -0 123456789 1e+16 1.5e-300");
}

TEST(SummarizeValueTest, LimitsAndNesting) {
  EXPECT_EQ(SummarizeValue(F32({6}, {1.5f, -2, 3.25f, 1e10f, 0.1f, 7}), 4), "1.5 -2 3.25 1e+10...");
  EXPECT_EQ(SummarizeValue(I32({2, 3}, {1, 2, 3, 4, 5, 6}), 4), "[1 2 3][4...]...");
  std::vector<int64_t> v(30);
  for (int i = 0; i < 30; ++i) v[i] = i;
  Tensor t(DType::kInt64, TensorShape({2, 3, 5}));
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  EXPECT_EQ(SummarizeValue(t, 3), "[[0 1 2...]]...");
  EXPECT_EQ(SummarizeValue(I64({2, 2, 1}, {0, 1, 2, 3}), -1), "[[0][1]][[2][3]]");
  EXPECT_EQ(SummarizeValue(I64({}, {-5}), 3), "-5");
  EXPECT_EQ(SummarizeValue(F32({0, 3}, {}), 3), "");
}

TEST(SummarizeValueTest, BoolsAndEscapedStrings) {
  EXPECT_EQ(SummarizeValue(Bool({2}, {true, false}), 3), "1 0");
  EXPECT_EQ(SummarizeValue(Str({2, 2}, {"a", "b", "c", "d"}), -1), "[a b][c d]");
  EXPECT_EQ(SummarizeValue(Str({2}, {"a\n", "b"}), 3), "a\\n b");
  EXPECT_EQ(SummarizeValue(Str({}, {"x must be positive"}), 3), "x must be positive");
  EXPECT_EQ(SummarizeValue(Tensor(DType::kComplex128, TensorShape({2, 2})), 3), "? ? ?...");  // no complex printer
}

TEST(LogicalReductionTest, AllAnyOverAxesAndEmptySets) {
  const Tensor b = Bool({2, 3}, {true, false, true, true, true, true});
  EXPECT_TENSOR_EQ(RunOpOk("All", {b, I32({1}, {1})}), Bool({2}, {false, true}));
  EXPECT_TENSOR_EQ(RunOpOk("Any", {b, I32({1}, {0})}), Bool({3}, {true, true, true}));
  EXPECT_TENSOR_EQ(RunOpOk("All", {Bool({0, 2}, {}), I32({1}, {0})}), Bool({2}, {true, true}));
  EXPECT_TENSOR_EQ(RunOpOk("Any", {Bool({0, 2}, {}), I32({1}, {0})}), Bool({2}, {false, false}));
}

}  // namespace
}  // namespace tw
