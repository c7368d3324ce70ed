// Unary math kernels and their gradient helpers, Select, Cast and AddN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testing/op_test_util.h"

namespace tw {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// Applies `f` (computed in double) to every element of a float tensor.
template <typename Fn>
Tensor MapF32(const Tensor& x, Fn f) {
  Tensor y(DType::kFloat, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    y.data<float>()[i] = static_cast<float>(f(static_cast<double>(x.data<float>()[i])));
  }
  return y;
}

TEST(MathUnaryTest, NumericOpsEveryDtype) {
  EXPECT_TENSOR_EQ(RunOpOk("Neg", {F32({3}, {1, -2, 0})}), F32({3}, {-1, 2, -0.0f}));
  EXPECT_TENSOR_EQ(RunOpOk("Neg", {I64({2}, {5, -6})}), I64({2}, {-5, 6}));
  EXPECT_TENSOR_EQ(RunOpOk("Abs", {F64({3}, {-1.5, 2, -0.0})}), F64({3}, {1.5, 2, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Abs", {I32({3}, {-7, 7, 0})}), I32({3}, {7, 7, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Square", {I32({2, 2}, {1, -2, 3, 0})}), I32({2, 2}, {1, 4, 9, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Square", {F32({2}, {-1.5f, 3})}), F32({2}, {2.25f, 9}));
  EXPECT_TENSOR_EQ(RunOpOk("Relu", {F32({4}, {-1, 0, 2, kNaN})}), F32({4}, {0, 0, 2, kNaN}));
  EXPECT_TENSOR_EQ(RunOpOk("Relu", {I64({3}, {-3, 3, 0})}), I64({3}, {0, 3, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Sign", {F32({4}, {-2, 0, 3, kNaN})}), F32({4}, {-1, 0, 1, kNaN}));
  EXPECT_TENSOR_EQ(RunOpOk("Sign", {I32({3}, {-9, 0, 4})}), I32({3}, {-1, 0, 1}));
  // The most negative integer wraps instead of being undefined behaviour.
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_TENSOR_EQ(RunOpOk("Neg", {I32({1}, {min32})}), I32({1}, {min32}));
  EXPECT_TENSOR_EQ(RunOpOk("Abs", {I32({1}, {min32})}), I32({1}, {min32}));
}

TEST(MathUnaryTest, ScalarsAndZeroSize) {
  EXPECT_TENSOR_EQ(RunOpOk("Neg", {F32({}, {3})}), F32({}, {-3}));
  EXPECT_TENSOR_EQ(RunOpOk("Exp", {F64({}, {0})}), F64({}, {1}));
  EXPECT_TENSOR_EQ(RunOpOk("Exp", {F32({0, 3}, {})}), F32({0, 3}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("Abs", {I32({2, 0}, {})}), I32({2, 0}, {}));
}

TEST(MathUnaryTest, FloatFunctionsMatchLibm) {
  Tensor x = F32({2, 4}, {0.25f, 0.5f, 1, 2, 3, 10, 100, 1e-3f});
  EXPECT_TENSOR_NEAR(RunOpOk("Sqrt", {x}), MapF32(x, [](double v) { return std::sqrt(v); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Rsqrt", {x}), MapF32(x, [](double v) { return 1 / std::sqrt(v); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Log", {x}), MapF32(x, [](double v) { return std::log(v); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Reciprocal", {x}), MapF32(x, [](double v) { return 1 / v; }));
  Tensor s = F32({8}, {-20, -3, -1, -0.1f, 0, 0.1f, 1, 5});
  EXPECT_TENSOR_NEAR(RunOpOk("Exp", {s}), MapF32(s, [](double v) { return std::exp(v); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Tanh", {s}), MapF32(s, [](double v) { return std::tanh(v); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Sigmoid", {s}),
                     MapF32(s, [](double v) { return 1 / (1 + std::exp(-v)); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Log", {F32({3}, {0, -1, kInf})}), F32({3}, {-kInf, kNaN, kInf}));
  EXPECT_TENSOR_NEAR(RunOpOk("Sqrt", {F64({3}, {4, 0, 2})}), F64({3}, {2, 0, std::sqrt(2.0)}),
                     1e-12, 1e-12);
  EXPECT_TENSOR_NEAR(RunOpOk("Exp", {F64({2}, {1, -1})}), F64({2}, {std::exp(1.0), std::exp(-1.0)}),
                     1e-12, 1e-12);
  EXPECT_TENSOR_NEAR(RunOpOk("Tanh", {F64({2}, {0.5, -2})}),
                     F64({2}, {std::tanh(0.5), std::tanh(-2.0)}), 1e-12, 1e-12);
}

TEST(MathUnaryTest, SigmoidAndTanhAreStableForLargeInputs) {
  Tensor x = F32({6}, {-1000, -100, -30, 30, 100, 1000});
  Tensor sig = RunOpOk("Sigmoid", {x});
  EXPECT_TENSOR_NEAR(sig, F32({6}, {0, 0, 9.357623e-14f, 1, 1, 1}), 1e-20, 1e-4);
  EXPECT_TENSOR_NEAR(RunOpOk("Tanh", {x}), F32({6}, {-1, -1, -1, 1, 1, 1}));
  Tensor sig64 = RunOpOk("Sigmoid", {F64({4}, {-1000, -40, 40, 1000})});
  EXPECT_TENSOR_NEAR(sig64, F64({4}, {0, std::exp(-40.0), 1, 1}), 1e-30, 1e-9);
}

TEST(MathUnaryTest, LargeTensorRunsInParallel) {
  Tensor x(DType::kFloat, TensorShape({1 << 20}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = (i % 1000) * 0.01f - 5;
  EXPECT_TENSOR_NEAR(RunOpOk("Tanh", {x}), MapF32(x, [](double v) { return std::tanh(v); }));
  EXPECT_TENSOR_NEAR(RunOpOk("Neg", {x}), MapF32(x, [](double v) { return -v; }));
}

TEST(MathUnaryTest, FloatOnlyOpsRejectIntegers) {
  for (const char* op : {"Sqrt", "Rsqrt", "Exp", "Log", "Tanh", "Sigmoid", "Reciprocal"}) {
    EXPECT_STATUS(RunOp(op, {I32({1}, {1})}).status(), kInvalid, "int32") << op;
  }
  EXPECT_STATUS(RunOp("Neg", {Bool({1}, {true})}).status(), kInvalid, "bool");
}

TEST(MathGradTest, ReluSigmoidTanhGrads) {
  EXPECT_TENSOR_EQ(RunOpOk("ReluGrad", {F32({4}, {1, 2, 3, 4}), F32({4}, {-1, 0, 0.5f, 2})}),
                   F32({4}, {0, 0, 3, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("ReluGrad", {I32({2}, {5, 6}), I32({2}, {1, -1})}), I32({2}, {5, 0}));
  // SigmoidGrad(y, dy) = dy * y * (1 - y); TanhGrad(y, dy) = dy * (1 - y^2).
  EXPECT_TENSOR_NEAR(RunOpOk("SigmoidGrad", {F32({3}, {0.5f, 0.25f, 1}), F32({3}, {2, 4, 3})}),
                     F32({3}, {0.5f, 0.75f, 0}));
  EXPECT_TENSOR_NEAR(RunOpOk("TanhGrad", {F64({3}, {0.5, -1, 0}), F64({3}, {2, 3, 4})}),
                     F64({3}, {1.5, 0, 4}));
  EXPECT_STATUS(RunOp("TanhGrad", {I32({1}, {1}), I32({1}, {1})}).status(), kInvalid, "int32");
}

TEST(MathGradTest, GradInputsMustHaveTheSameShape) {
  EXPECT_STATUS(RunOp("ReluGrad", {F32({2}, {1, 2}), F32({3}, {1, 2, 3})}).status(), kInvalid,
                "gradients and features must have the same shape, got [2] and [3]");
  EXPECT_STATUS(RunOpFed("ReluGrad", {F32({2}, {1, 2}), F32({1, 2}, {1, 2})}).status(), kInvalid,
                "gradients and features must have the same shape, got [2] and [1,2]");
  EXPECT_STATUS(RunOpFed("SigmoidGrad", {F32({2}, {1, 2}), F32({}, {1})}).status(), kInvalid,
                "y and dy must have the same shape, got [2] and []");
}

TEST(MathSelectTest, SameShape) {
  Tensor c = Bool({2, 2}, {1, 0, 0, 1});
  EXPECT_TENSOR_EQ(RunOpOk("Select", {c, F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8})}),
                   F32({2, 2}, {1, 6, 7, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("Select", {c, I64({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {5, 6, 7, 8})}),
                   I64({2, 2}, {1, 6, 7, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("Select", {c, Bool({2, 2}, {1, 1, 1, 1}), Bool({2, 2}, {0, 0, 0, 0})}),
                   Bool({2, 2}, {1, 0, 0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Select", {Bool({}, {true}), I32({}, {1}), I32({}, {2})}), I32({}, {1}));
  EXPECT_TENSOR_EQ(RunOpOk("Select", {Bool({0}, {}), F64({0}, {}), F64({0}, {})}), F64({0}, {}));
}

TEST(MathSelectTest, Tf1RowSelect) {
  Tensor t = I32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor e = I32({3, 2}, {-1, -2, -3, -4, -5, -6});
  Tensor c = Bool({3}, {1, 0, 1});
  EXPECT_TENSOR_EQ(RunOpOk("Select", {c, t, e}), I32({3, 2}, {1, 2, -3, -4, 5, 6}));
  EXPECT_TENSOR_EQ(RunOpFedOk("Select", {c, t, e}), I32({3, 2}, {1, 2, -3, -4, 5, 6}));
  // Square t: Select picks rows, SelectV2 broadcasts the condition over columns.
  Tensor sq_t = F32({2, 2}, {1, 2, 3, 4}), sq_e = F32({2, 2}, {5, 6, 7, 8});
  Tensor c2 = Bool({2}, {1, 0});
  EXPECT_TENSOR_EQ(RunOpOk("Select", {c2, sq_t, sq_e}), F32({2, 2}, {1, 2, 7, 8}));
  EXPECT_TENSOR_EQ(RunOpOk("SelectV2", {c2, sq_t, sq_e}), F32({2, 2}, {1, 6, 3, 8}));
  EXPECT_TENSOR_EQ(RunOpFedOk("SelectV2", {c2, sq_t, sq_e}), F32({2, 2}, {1, 6, 3, 8}));
  // Rows of zero size.
  EXPECT_TENSOR_EQ(RunOpOk("Select", {c, F32({3, 0}, {}), F32({3, 0}, {})}), F32({3, 0}, {}));
}

TEST(MathSelectTest, BroadcastsAllThree) {
  // Scalar condition, scalar e, column condition.
  EXPECT_TENSOR_EQ(RunOpOk("Select", {Bool({}, {false}), F32({2}, {1, 2}), F32({2}, {3, 4})}),
                   F32({2}, {3, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("Select", {Bool({3}, {1, 0, 1}), I64({3}, {1, 2, 3}), I64({}, {0})}),
                   I64({3}, {1, 0, 3}));
  EXPECT_TENSOR_EQ(RunOpOk("SelectV2", {Bool({2, 1}, {1, 0}), F32({3}, {1, 2, 3}),
                                        F32({2, 3}, {4, 5, 6, 7, 8, 9})}),
                   F32({2, 3}, {1, 2, 3, 7, 8, 9}));
  EXPECT_TENSOR_EQ(
      RunOpFedOk("Select", {Bool({2, 1}, {0, 1}), F32({}, {-1}), F32({2, 3}, {4, 5, 6, 7, 8, 9})}),
      F32({2, 3}, {4, 5, 6, -1, -1, -1}));
}

TEST(MathSelectTest, IncompatibleShapes) {
  EXPECT_STATUS(
      RunOp("Select", {Bool({2}, {1, 0}), F32({3}, {1, 2, 3}), F32({3}, {1, 2, 3})}).status(),
      kInvalid, "Incompatible shapes: [2] vs. [3] vs. [3]");
  EXPECT_STATUS(RunOpFed("Select", {Bool({4}, {1, 0, 1, 0}), F32({3, 2}, {1, 2, 3, 4, 5, 6}),
                                    F32({3, 2}, {1, 2, 3, 4, 5, 6})})
                    .status(),
                kInvalid, "Incompatible shapes: [4] vs. [3,2] vs. [3,2]");
  EXPECT_STATUS(RunOp("Select", {F32({1}, {1}), F32({1}, {1}), F32({1}, {1})}).status(), kInvalid,
                "float32");
  EXPECT_STATUS(RunOp("Select", {Bool({1}, {1}), F32({1}, {1}), I32({1}, {1})}).status(), kInvalid,
                "int32");
}

Tensor Cast(const Tensor& x, DType to) {
  return RunOpOk("Cast", {x}, {{"SrcT", MakeAttr(x.dtype())}, {"DstT", MakeAttr(to)}});
}

TEST(MathCastTest, Conversions) {
  EXPECT_TENSOR_EQ(Cast(F32({4}, {-1.7f, 2.9f, 0, -0.5f}), DType::kInt32), I32({4}, {-1, 2, 0, 0}));
  EXPECT_TENSOR_EQ(Cast(F64({2}, {1e10, -7.99}), DType::kInt64), I64({2}, {10000000000, -7}));
  EXPECT_TENSOR_EQ(Cast(F32({4}, {0, -0.0f, 0.1f, kNaN}), DType::kBool), Bool({4}, {0, 0, 1, 1}));
  EXPECT_TENSOR_EQ(Cast(I64({3}, {0, 5, -1}), DType::kBool), Bool({3}, {0, 1, 1}));
  EXPECT_TENSOR_EQ(Cast(Bool({2}, {1, 0}), DType::kFloat), F32({2}, {1, 0}));
  EXPECT_TENSOR_EQ(Cast(Bool({2}, {1, 0}), DType::kInt64), I64({2}, {1, 0}));
  EXPECT_TENSOR_EQ(Cast(I32({2}, {16777217, -3}), DType::kFloat), F32({2}, {16777216, -3}));
  EXPECT_TENSOR_EQ(Cast(F64({1}, {0.1}), DType::kFloat), F32({1}, {0.1f}));
  EXPECT_TENSOR_EQ(Cast(I64({2}, {(int64_t{1} << 32) + 7, -1}), DType::kInt32), I32({2}, {7, -1}));
  EXPECT_TENSOR_EQ(Cast(F32({2, 0}, {}), DType::kInt32), I32({2, 0}, {}));
  EXPECT_TENSOR_EQ(Cast(F32({}, {3.5f}), DType::kFloat), F32({}, {3.5f}));
  EXPECT_TENSOR_EQ(RunOpOk("Cast", {F32({1}, {2.5f})},
                           {{"SrcT", MakeAttr(DType::kFloat)},
                            {"DstT", MakeAttr(DType::kInt32)},
                            {"Truncate", MakeAttr(true)}}),
                   I32({1}, {2}));
}

TEST(MathCastTest, FloatToIntSaturatesAndMapsNaNToZero) {
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_TENSOR_EQ(Cast(F32({4}, {3e9f, -3e9f, kInf, kNaN}), DType::kInt32),
                   I32({4}, {max32, min32, max32, 0}));
  EXPECT_TENSOR_EQ(
      Cast(F64({2}, {1e30, -1e30}), DType::kInt64),
      I64({2}, {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}));
}

TEST(MathCastTest, RoundTrips) {
  Tensor i32 = I32({5}, {0, 1, -1, 2147483647, -2147483647 - 1});
  EXPECT_TENSOR_EQ(Cast(Cast(i32, DType::kDouble), DType::kInt32), i32);
  EXPECT_TENSOR_EQ(Cast(Cast(i32, DType::kInt64), DType::kInt32), i32);
  Tensor f32 = F32({4}, {0.1f, -1e30f, 3.25f, kInf});
  EXPECT_TENSOR_EQ(Cast(Cast(f32, DType::kDouble), DType::kFloat), f32);
  Tensor b = Bool({3}, {1, 0, 1});
  for (DType d : {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}) {
    EXPECT_TENSOR_EQ(Cast(Cast(b, d), DType::kBool), b) << DTypeName(d);
  }
}

TEST(MathCastTest, UnsupportedTypeAndWrongSource) {
  EXPECT_STATUS(RunOp("Cast", {F32({1}, {1})},
                      {{"SrcT", MakeAttr(DType::kFloat)}, {"DstT", MakeAttr(DType::kResource)}})
                    .status(),
                kInvalid, "DstT");
  EXPECT_STATUS(RunOp("Cast", {F32({1}, {1})},
                      {{"SrcT", MakeAttr(DType::kInt32)}, {"DstT", MakeAttr(DType::kFloat)}})
                    .status(),
                kInvalid, "float32");
}

TEST(MathAddNTest, SumsInputs) {
  EXPECT_TENSOR_EQ(RunOpOk("AddN", {F32({2}, {1, 2})}), F32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("AddN", {F32({2}, {1, 2}), F32({2}, {10, 20}), F32({2}, {100, 200})}),
                   F32({2}, {111, 222}));
  EXPECT_TENSOR_EQ(RunOpOk("AddN", {I32({}, {1}), I32({}, {2})}), I32({}, {3}));
  EXPECT_TENSOR_EQ(RunOpOk("AddN", {I64({2, 2}, {1, 2, 3, 4}), I64({2, 2}, {1, 1, 1, 1})}),
                   I64({2, 2}, {2, 3, 4, 5}));
  EXPECT_TENSOR_EQ(RunOpOk("AddN", {F64({0, 2}, {}), F64({0, 2}, {})}), F64({0, 2}, {}));
  EXPECT_TENSOR_EQ(
      RunOpFedOk("AddN", {F64({1}, {0.5}), F64({1}, {0.25}), F64({1}, {1}), F64({1}, {2})},
                 {{"N", MakeAttr(int64_t{4})}}),
      F64({1}, {3.75}));
  // Large enough to run in parallel blocks.
  Tensor big(DType::kFloat, TensorShape({300000}));
  for (int64_t i = 0; i < big.NumElements(); ++i) big.data<float>()[i] = static_cast<float>(i % 7);
  Tensor expected = MapF32(big, [](double v) { return 3 * v; });
  EXPECT_TENSOR_EQ(RunOpOk("AddN", {big, big, big}), expected);
}

TEST(MathAddNTest, ShapeMismatchNamesTheInput) {
  EXPECT_STATUS(RunOp("AddN", {F32({2}, {1, 2}), F32({2}, {1, 2}), F32({3}, {1, 2, 3})}).status(),
                kInvalid, "inputs[2] has shape [3] but inputs[0] has shape [2]");
  EXPECT_STATUS(
      RunOpFed("AddN", {F32({2}, {1, 2}), F32({1, 2}, {1, 2})}, {{"N", MakeAttr(int64_t{2})}})
          .status(),
      kInvalid, "inputs[1] has shape [1,2] but inputs[0] has shape [2]");
  EXPECT_STATUS(RunOp("AddN", {F32({2}, {1, 2}), I32({2}, {1, 2})}).status(), kInvalid, "int32");
  EXPECT_STATUS(RunOp("AddN", {Bool({1}, {true})}).status(), kInvalid, "bool");
}

}  // namespace
}  // namespace tw
