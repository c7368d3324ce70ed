// The small dtypes (int8, uint8, int16, uint16, half): their kernels (widen_kernels.cc,
// computing in int64 or float32) and Cast to and from them (cast_kernels.cc). Expected
// values follow TensorFlow's CPU kernels; python/tests/test_tf_oracle_ops.py compares the
// same ops with TensorFlow itself.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tensor/half.h"
#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Make;

Tensor I8(std::initializer_list<int64_t> s, std::vector<int8_t> v) { return Make<int8_t>(s, v); }
Tensor U8(std::initializer_list<int64_t> s, std::vector<uint8_t> v) { return Make<uint8_t>(s, v); }
Tensor I16(std::initializer_list<int64_t> s, std::vector<int16_t> v) { return Make<int16_t>(s, v); }
Tensor U16(std::initializer_list<int64_t> s, std::vector<uint16_t> v) { return Make<uint16_t>(s, v); }
// Half from floats, each rounded to nearest even.
Tensor F16(std::initializer_list<int64_t> s, std::vector<float> v) {
  std::vector<half> h;
  for (float f : v) h.push_back(FloatToHalf(f));
  return Make<half>(s, h);
}
uint16_t Bits(const Tensor& t, int i) { return t.data<half>()[i].bits; }

Tensor Cast(const Tensor& x, DType to, bool truncate = false) {
  return RunOpOk("Cast", {x},
                 {{"SrcT", MakeAttr(x.dtype())}, {"DstT", MakeAttr(to)}, {"Truncate", MakeAttr(truncate)}});
}

TEST(HalfTest, ConversionsRoundToNearestEven) {
  EXPECT_EQ(half(1.0f).bits, 0x3C00);
  EXPECT_EQ(half(-2.0f).bits, 0xC000);
  EXPECT_EQ(half(65504.0f).bits, 0x7BFF);  // The largest finite half.
  EXPECT_EQ(half(65520.0f).bits, 0x7C00);  // Halfway to the next binade: infinity.
  EXPECT_EQ(half(5.960464477539063e-8f).bits, 0x0001);  // The smallest subnormal.
  EXPECT_EQ(half(1e-8f).bits, 0x0000);
  EXPECT_EQ(half(2049.0f).bits, half(2048.0f).bits);  // A tie goes to the even neighbour.
  EXPECT_EQ(half(2051.0f).bits, half(2052.0f).bits);
  EXPECT_TRUE(std::isnan(static_cast<float>(half(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(static_cast<float>(half::FromBits(0x3555)), 0.333251953125f);
  EXPECT_EQ(DTypeSize(DType::kHalf), 2u);
}

TEST(SmallDTypeTest, NamesAndClasses) {
  EXPECT_EQ(DTypeName(DType::kInt8), "int8");
  EXPECT_EQ(DTypeName(DType::kUint16), "uint16");
  EXPECT_EQ(DTypeName(DType::kHalf), "float16");
  EXPECT_EQ(*DTypeFromName("half"), DType::kHalf);
  EXPECT_EQ(*DTypeFromName("DT_HALF"), DType::kHalf);
  EXPECT_EQ(*DTypeFromName("DT_UINT8"), DType::kUint8);
  EXPECT_EQ(static_cast<int>(DType::kInt16), 5);  // TensorFlow's enum values.
  EXPECT_EQ(static_cast<int>(DType::kHalf), 19);
  EXPECT_TRUE(IsFloating(DType::kHalf));
  EXPECT_TRUE(IsInteger(DType::kUint8));
  EXPECT_FALSE(IsFloating(DType::kInt8));
  EXPECT_TRUE(IsValidDType(17));
  EXPECT_FALSE(IsValidDType(15));  // DT_QINT16: not supported.
  EXPECT_EQ(I8({2}, {-1, 7}).DebugString(), "int8 [2] [-1 7]");
  EXPECT_EQ(F16({2}, {0.5f, -3}).DebugString(), "float16 [2] [0.5 -3]");
}

TEST(SmallDTypeTest, IntegerArithmeticWraps) {
  EXPECT_TENSOR_EQ(RunOpOk("Add", {I8({3}, {127, -128, 5}), I8({3}, {1, -1, 6})}), I8({3}, {-128, 127, 11}));
  EXPECT_TENSOR_EQ(RunOpOk("AddV2", {U16({2}, {65535, 1}), U16({}, {1})}), U16({2}, {0, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("Sub", {U8({2}, {0, 200}), U8({2}, {1, 100})}), U8({2}, {255, 100}));
  EXPECT_TENSOR_EQ(RunOpOk("Mul", {I16({2}, {300, -7}), I16({2}, {300, 3})}), I16({2}, {24464, -21}));
  EXPECT_TENSOR_EQ(RunOpOk("Neg", {I8({3}, {-128, 1, 0})}), I8({3}, {-128, -1, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Abs", {I16({3}, {-32768, -5, 5})}), I16({3}, {-32768, 5, 5}));
  EXPECT_TENSOR_EQ(RunOpOk("Maximum", {U8({3}, {1, 250, 7}), U8({3}, {2, 3, 7})}), U8({3}, {2, 250, 7}));
  EXPECT_TENSOR_EQ(RunOpOk("Minimum", {I8({2, 2}, {1, -2, 3, -4}), I8({2}, {0, 0})}), I8({2, 2}, {0, -2, 0, -4}));
  EXPECT_TENSOR_EQ(RunOpOk("Relu", {I8({3}, {-3, 0, 4})}), I8({3}, {0, 0, 4}));
  // Broadcast of [2,1] against [3].
  EXPECT_TENSOR_EQ(RunOpOk("Add", {U8({2, 1}, {10, 250}), U8({3}, {1, 5, 6})}),
                   U8({2, 3}, {11, 15, 16, 251, 255, 0}));
}

TEST(SmallDTypeTest, ComparisonsGiveBool) {
  EXPECT_TENSOR_EQ(RunOpOk("Less", {I8({3}, {-128, 0, 5}), I8({3}, {127, 0, 4})}), testing::Bool({3}, {1, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("GreaterEqual", {U16({2}, {65535, 0}), U16({}, {1})}), testing::Bool({2}, {1, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Equal", {F16({3}, {1, kNaN, 0}), F16({3}, {1, kNaN, -0.0f})}),
                   testing::Bool({3}, {1, 0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("NotEqual", {I16({2}, {3, 4}), I16({2}, {3, 5})}), testing::Bool({2}, {0, 1}));
}

TEST(SmallDTypeTest, HalfComputesInFloatAndRoundsOnce) {
  Tensor sum = RunOpOk("Add", {F16({3}, {2048, 1, 65504}), F16({3}, {1, 0.0009765625f, 65504})});
  EXPECT_EQ(Bits(sum, 0), half(2048.0f).bits);  // 2049 rounds to even.
  EXPECT_EQ(Bits(sum, 1), half(1.0009765625f).bits);
  EXPECT_EQ(Bits(sum, 2), 0x7C00);  // Overflow: infinity.
  EXPECT_TENSOR_EQ(RunOpOk("Exp", {F16({2}, {0, 1})}), F16({2}, {1, 2.71875f}));
  EXPECT_TENSOR_EQ(RunOpOk("Sqrt", {F16({2}, {2, 4})}), F16({2}, {1.4140625f, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("Log", {F16({2}, {1, 0})}), F16({2}, {0, -kInf}));
  EXPECT_TENSOR_EQ(RunOpOk("Tanh", {F16({2}, {0, 20})}), F16({2}, {0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Sigmoid", {F16({1}, {0})}), F16({1}, {0.5f}));
  EXPECT_TENSOR_EQ(RunOpOk("Relu", {F16({3}, {-1, 0.5f, kNaN})}), F16({3}, {0, 0.5f, kNaN}));
  EXPECT_TENSOR_EQ(RunOpOk("Neg", {F16({1}, {1.5f})}), F16({1}, {-1.5f}));
  // [1,3] x [3,1], accumulated in float and rounded once: 0.1*1 + 0.2*1 + 0.3*1.
  Tensor mm = RunOpOk("MatMul", {F16({1, 3}, {0.1f, 0.2f, 0.3f}), F16({3, 1}, {1, 1, 1})});
  const float want = static_cast<float>(FloatToHalf(HalfToFloat(FloatToHalf(0.1f)) +
                                                    HalfToFloat(FloatToHalf(0.2f)) +
                                                    HalfToFloat(FloatToHalf(0.3f))));
  EXPECT_TENSOR_EQ(mm, F16({1, 1}, {want}));
}

TEST(SmallDTypeTest, Reductions) {
  Tensor axis0 = testing::I32({1}, {0});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {I8({2}, {100, 100}), axis0}), I8({}, {-56}));  // Wraps.
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {U16({2, 2}, {1, 2, 65535, 4}), axis0}), U16({2}, {0, 6}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {U8({3}, {3, 255, 0}), axis0}), U8({}, {255}));
  EXPECT_TENSOR_EQ(RunOpOk("Min", {I16({3}, {3, -300, 0}), axis0}), I16({}, {-300}));
  EXPECT_TENSOR_EQ(RunOpOk("Prod", {I8({3}, {16, 16, 3}), axis0}), I8({}, {0}));
  // Accumulated in float: 1025.75, rounded once to 1026 (a half accumulator would lose the
  // 0.75 before adding 1024).
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {F16({4}, {0.5f, 0.25f, 1024, 1}), axis0}), F16({}, {1026}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {F16({3}, {-1, kNaN, 2}), axis0}), F16({}, {kNaN}));
}

TEST(SmallDTypeTest, OpsTensorFlowLacksForThemFail) {
  // The schema admits uint8 (as TensorFlow's) but no CPU kernel is registered (nor in TF):
  // placement finds no device for the node.
  EXPECT_STATUS(RunOp("Neg", {U8({1}, {4})}).status(), absl::StatusCode::kInvalidArgument,
                "node 'op' (Neg): cannot assign a device");
  // The schema refuses it.
  EXPECT_STATUS(RunOp("Exp", {I8({1}, {4})}).status(), absl::StatusCode::kInvalidArgument, "int8");
}

TEST(SmallDTypeTest, CopyKernelsTakeAnyElementSize) {
  Tensor a = I16({2, 2}, {1, 2, 3, 4});
  EXPECT_TENSOR_EQ(RunOpOk("Transpose", {a, testing::I32({2}, {1, 0})}), I16({2, 2}, {1, 3, 2, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("ConcatV2", {U8({1}, {1}), U8({2}, {2, 3}), testing::I32({}, {0})}),
                   U8({3}, {1, 2, 3}));
  EXPECT_TENSOR_EQ(RunOpOk("OnesLike", {F16({2}, {5, 6})}), F16({2}, {1, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Identity", {I8({1}, {-9})}), I8({1}, {-9}));
}

TEST(SmallDTypeCastTest, EveryPairRoundTripsSmallValues) {
  const std::vector<DType> all = {DType::kFloat, DType::kDouble, DType::kInt32, DType::kUint8,
                                  DType::kInt16, DType::kInt8,   DType::kInt64, DType::kUint16,
                                  DType::kHalf};
  Tensor src = testing::I32({3}, {0, 1, 100});
  for (DType a : all) {
    for (DType b : all) {
      Tensor there = Cast(Cast(src, a), b);
      EXPECT_TENSOR_EQ(Cast(there, DType::kInt32), src) << DTypeName(a) << " -> " << DTypeName(b);
    }
  }
}

TEST(SmallDTypeCastTest, ConversionsFollowTensorFlow) {
  // Integer to integer keeps the low bits.
  EXPECT_TENSOR_EQ(Cast(U16({2}, {40000, 255}), DType::kInt8), I8({2}, {64, -1}));
  EXPECT_TENSOR_EQ(Cast(testing::I32({2}, {-1, 256}), DType::kUint8), U8({2}, {255, 0}));
  // Float to half rounds to nearest even; half to int truncates toward zero.
  Tensor h = Cast(testing::F32({3}, {2049, 0.1f, 1e6f}), DType::kHalf);
  EXPECT_EQ(Bits(h, 0), half(2048.0f).bits);
  EXPECT_EQ(Bits(h, 1), 0x2E66);
  EXPECT_EQ(Bits(h, 2), 0x7C00);
  EXPECT_TENSOR_EQ(Cast(F16({3}, {-2.75f, 2.75f, kNaN}), DType::kInt16), I16({3}, {-2, 2, 0}));
  // Float to a small integer goes through int32 and keeps the low bits (TensorFlow's CPU
  // kernel, checked in test_tf_oracle_small_dtypes.py); NaN and infinities give 0.
  EXPECT_TENSOR_EQ(Cast(testing::F32({6}, {300.5f, -300.5f, -129, kInf, kNaN, 1e10f}), DType::kInt8),
                   I8({6}, {44, -44, 127, 0, 0, 0}));
  EXPECT_TENSOR_EQ(Cast(testing::F32({2}, {-300.5f, -129}), DType::kUint16), U16({2}, {65236, 65407}));
  EXPECT_TENSOR_EQ(Cast(F16({1}, {65504}), DType::kInt8), I8({1}, {-32}));
  EXPECT_TENSOR_EQ(Cast(F16({2}, {1, 0}), DType::kBool), testing::Bool({2}, {1, 0}));
  // Truncate drops the bits half lacks instead of rounding: 0.3 rounds up to 0x34CD but
  // truncates to 0x34CC.
  EXPECT_EQ(Bits(Cast(testing::F32({1}, {0.3f}), DType::kHalf), 0), 0x34CD);
  EXPECT_EQ(Bits(Cast(testing::F32({1}, {0.3f}), DType::kHalf, /*truncate=*/true), 0), 0x34CC);
  EXPECT_EQ(Bits(Cast(testing::F64({1}, {0.3}), DType::kHalf, /*truncate=*/true), 0), 0x34CC);
}

}  // namespace
}  // namespace tw
