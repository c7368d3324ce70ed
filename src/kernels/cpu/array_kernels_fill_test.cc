// Tests of Fill, ZerosLike, OnesLike, Range and OneHot.
#include <gtest/gtest.h>

#include "testing/op_test_util.h"

namespace tw {
namespace {

using absl::StatusCode;

TEST(ArrayFillOps, Fill) {
  EXPECT_TENSOR_EQ(RunBoth1("Fill", {I32({2}, {2, 3}), Tensor::Scalar<float>(1.5f)}),
                   F32({2, 3}, {1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f}));
  EXPECT_TENSOR_EQ(RunBoth1("Fill", {I64({1}, {3}), Tensor::Scalar<int64_t>(-7)}), I64({3}, {-7, -7, -7}));
  EXPECT_TENSOR_EQ(RunBoth1("Fill", {I32({1}, {2}), Tensor::Scalar<bool>(true)}), Bool({2}, {true, true}));
  EXPECT_TENSOR_EQ(RunBoth1("Fill", {I32({0}, {}), Tensor::Scalar<double>(2)}), Tensor::Scalar<double>(2));
  EXPECT_TENSOR_EQ(RunBoth1("Fill", {I32({2}, {0, 5}), Tensor::Scalar<int32_t>(1)}), I32({0, 5}, {}));
  // Large enough to be split over the thread pool.
  Tensor big = RunBoth1("Fill", {I32({1}, {300000}), Tensor::Scalar<int32_t>(0x01020304)});
  ASSERT_EQ(big.NumElements(), 300000);
  for (int64_t i = 0; i < big.NumElements(); i += 997) ASSERT_EQ(big.data<int32_t>()[i], 0x01020304);
  EXPECT_EQ(big.data<int32_t>()[299999], 0x01020304);
}

TEST(ArrayFillOps, FillErrors) {
  EXPECT_TRUE(FailsBoth("Fill", {I32({2}, {2, -1}), Tensor::Scalar<float>(1)}, {},
                        "shape [2,-1] has a negative dimension"));
  EXPECT_TRUE(FailsBoth("Fill", {I32({1}, {2}), F32({1}, {1})}, {},
                        "value must be a scalar, but got shape [1]"));
  EXPECT_TRUE(FailsBoth("Fill", {I32({1, 1}, {2}), Tensor::Scalar<float>(1)}, {},
                        "dims must be a vector, but got shape [1,1]"));
  // Checked before allocating: 2^30 * 2^30 elements.
  auto status = RunOpFed("Fill", {I64({2}, {1 << 30, 1 << 30}), Tensor::Scalar<float>(1)}).status();
  EXPECT_STATUS(status, StatusCode::kResourceExhausted, "more than 1099511627776 elements");
}

TEST(ArrayFillOps, ZerosLikeOnesLike) {
  EXPECT_TENSOR_EQ(RunBoth1("ZerosLike", {F32({2}, {3, -4})}), F32({2}, {0, 0}));
  EXPECT_TENSOR_EQ(RunBoth1("OnesLike", {F32({2}, {3, -4})}), F32({2}, {1, 1}));
  EXPECT_TENSOR_EQ(RunBoth1("OnesLike", {F64({1, 2}, {3, -4})}), F64({1, 2}, {1, 1}));
  EXPECT_TENSOR_EQ(RunBoth1("OnesLike", {I32({3}, {0, 5, 9})}), I32({3}, {1, 1, 1}));
  EXPECT_TENSOR_EQ(RunBoth1("ZerosLike", {I64({2}, {7, 8})}), I64({2}, {0, 0}));
  EXPECT_TENSOR_EQ(RunBoth1("OnesLike", {I64({2}, {7, 8})}), I64({2}, {1, 1}));
  EXPECT_TENSOR_EQ(RunBoth1("ZerosLike", {Bool({2}, {true, true})}), Bool({2}, {false, false}));
  EXPECT_TENSOR_EQ(RunBoth1("OnesLike", {Bool({2}, {false, true})}), Bool({2}, {true, true}));
  EXPECT_TENSOR_EQ(RunBoth1("ZerosLike", {Tensor::Scalar<double>(5)}), Tensor::Scalar<double>(0));
  EXPECT_TENSOR_EQ(RunBoth1("OnesLike", {F32({0, 3}, {})}), F32({0, 3}, {}));
}

TEST(ArrayFillOps, Range) {
  auto i32 = [](int32_t v) { return Tensor::Scalar<int32_t>(v); };
  EXPECT_TENSOR_EQ(RunBoth1("Range", {i32(0), i32(5), i32(1)}), I32({5}, {0, 1, 2, 3, 4}));
  EXPECT_TENSOR_EQ(RunBoth1("Range", {i32(1), i32(8), i32(3)}), I32({3}, {1, 4, 7}));
  EXPECT_TENSOR_EQ(RunBoth1("Range", {i32(5), i32(-1), i32(-2)}), I32({3}, {5, 3, 1}));
  EXPECT_TENSOR_EQ(RunBoth1("Range", {i32(3), i32(3), i32(1)}), I32({0}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Range", {Tensor::Scalar<int64_t>(-3), Tensor::Scalar<int64_t>(0),
                                      Tensor::Scalar<int64_t>(2)}),
                   I64({2}, {-3, -1}));
  // Sizes of floating ranges are ceil((limit - start) / delta).
  EXPECT_TENSOR_NEAR(RunBoth1("Range", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1),
                                        Tensor::Scalar<float>(0.3f)}),
                     F32({4}, {0, 0.3f, 0.6f, 0.9f}));
  EXPECT_TENSOR_NEAR(RunBoth1("Range", {Tensor::Scalar<double>(1), Tensor::Scalar<double>(0),
                                        Tensor::Scalar<double>(-0.5)}),
                     F64({2}, {1, 0.5}));
  // Extreme int64 bounds: the difference overflows int64 but not the computation.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  EXPECT_TENSOR_EQ(RunBoth1("Range", {Tensor::Scalar<int64_t>(lo), Tensor::Scalar<int64_t>(hi),
                                      Tensor::Scalar<int64_t>(hi)}),
                   I64({3}, {lo, -1, hi - 1}));
}

TEST(ArrayFillOps, RangeErrors) {
  auto i32 = [](int32_t v) { return Tensor::Scalar<int32_t>(v); };
  EXPECT_TRUE(FailsBoth("Range", {i32(0), i32(5), i32(0)}, {}, "Requires delta != 0: 0"));
  EXPECT_TRUE(FailsBoth("Range", {i32(5), i32(2), i32(1)}, {},
                        "Requires start <= limit when delta > 0: 5/2"));
  EXPECT_TRUE(FailsBoth("Range", {i32(2), i32(5), i32(-1)}, {},
                        "Requires start >= limit when delta < 0: 2/5"));
  EXPECT_TRUE(FailsBoth("Range", {I32({1}, {0}), i32(5), i32(1)}, {},
                        "start must be a scalar, but got shape [1]"));
  EXPECT_TRUE(FailsBoth("Range", {Tensor::Scalar<int64_t>(0), Tensor::Scalar<int64_t>(int64_t{1} << 50),
                                  Tensor::Scalar<int64_t>(1)}, {},
                        "Requires ((limit - start) / delta) <= 1099511627776"));
  EXPECT_TRUE(FailsBoth("Range", {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1e30f),
                                  Tensor::Scalar<float>(1e-10f)}, {},
                        "Requires ((limit - start) / delta) <= 1099511627776"));
  EXPECT_TRUE(FailsBoth("Range", {Tensor::Scalar<double>(0), Tensor::Scalar<double>(NAN),
                                  Tensor::Scalar<double>(1)}, {},
                        "Requires ((limit - start) / delta)"));
}

TEST(ArrayFillOps, OneHot) {
  auto on = Tensor::Scalar<float>(1), off = Tensor::Scalar<float>(0);
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {I64({3}, {0, 2, 1}), Tensor::Scalar<int32_t>(3), on, off}),
                   F32({3, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0}));
  // Out-of-range and negative indices give rows of off_value.
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {I32({3}, {-1, 3, 0}), Tensor::Scalar<int32_t>(3),
                                       Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(-1)}),
                   I32({3, 3}, {-1, -1, -1, -1, -1, -1, 5, -1, -1}));
  // axis 0: the depth dim comes first.
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {I64({2}, {1, 0}), Tensor::Scalar<int32_t>(2), on, off},
                            {{"axis", MakeAttr(int64_t{0})}}),
                   F32({2, 2}, {0, 1, 1, 0}));
  // Matrix of indices, axis 1: output [2, depth, 2].
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {I64({2, 2}, {0, 1, 1, 1}), Tensor::Scalar<int32_t>(2),
                                       Tensor::Scalar<double>(9), Tensor::Scalar<double>(0)},
                            {{"axis", MakeAttr(int64_t{1})}}),
                   F64({2, 2, 2}, {9, 0, 0, 9, 0, 0, 9, 9}));
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {Tensor::Scalar<int64_t>(1), Tensor::Scalar<int32_t>(2),
                                       Tensor::Scalar<bool>(true), Tensor::Scalar<bool>(false)}),
                   Bool({2}, {false, true}));
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {I64({0}, {}), Tensor::Scalar<int32_t>(4), on, off}), F32({0, 4}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("OneHot", {I64({2}, {0, 1}), Tensor::Scalar<int32_t>(0), on, off}), F32({2, 0}, {}));
}

TEST(ArrayFillOps, OneHotErrorsAndInference) {
  auto on = Tensor::Scalar<float>(1), off = Tensor::Scalar<float>(0);
  const Tensor idx = I64({2}, {0, 1});
  EXPECT_TRUE(FailsBoth("OneHot", {idx, Tensor::Scalar<int32_t>(-1), on, off}, {},
                        "depth must be non-negative, got: -1"));
  EXPECT_TRUE(FailsBoth("OneHot", {idx, Tensor::Scalar<int32_t>(2), on, off}, {{"axis", MakeAttr(int64_t{2})}},
                        "Expected axis to be -1 or between [0, 2).  But received: 2"));
  EXPECT_TRUE(FailsBoth("OneHot", {idx, I32({1}, {2}), on, off}, {}, "depth must be a scalar, but got shape [1]"));
  EXPECT_TRUE(FailsBoth("OneHot", {idx, Tensor::Scalar<int32_t>(2), F32({1}, {1}), off}, {},
                        "on_value must be a scalar, but got shape [1]"));
  auto s = InferShapes("OneHot", {{DType::kInt64, PartialShape({-1, 3})}, {DType::kInt32, PartialShape({})},
                                  on, off});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({-1, 3, -1}));
}

}  // namespace
}  // namespace tw
