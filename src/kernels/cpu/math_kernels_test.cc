// Binary math kernels: arithmetic, comparisons and logical ops with broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/cwise.h"
#include "testing/op_test_util.h"

namespace tw {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// A float tensor of `dims` holding 0, 1, 2, ... scaled by `scale`.
Tensor Iota(const std::vector<int64_t>& dims, float scale) {
  Tensor t(DType::kFloat, TensorShape(absl::MakeConstSpan(dims)));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = scale * static_cast<float>(i);
  return t;
}

// x - y by explicit NumPy broadcasting index arithmetic, as a reference.
Tensor ReferenceSub(const Tensor& x, const Tensor& y) {
  const int rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> out(rank);
  auto dim = [&](const Tensor& t, int d) {
    const int i = t.rank() - rank + d;
    return i >= 0 ? t.dim(i) : int64_t{1};
  };
  for (int d = 0; d < rank; ++d) out[d] = std::max(dim(x, d), dim(y, d));
  Tensor z(DType::kFloat, TensorShape(absl::MakeConstSpan(out)));
  for (int64_t i = 0; i < z.NumElements(); ++i) {
    int64_t rem = i, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rem % out[d];
      rem /= out[d];
      if (dim(x, d) != 1) xi += c * xs;
      if (dim(y, d) != 1) yi += c * ys;
      xs *= dim(x, d);
      ys *= dim(y, d);
    }
    z.data<float>()[i] = x.data<float>()[xi] - y.data<float>()[yi];
  }
  return z;
}

// The plan's collapsed dims and per-input strides, as "dims|strides0|strides1...".
std::string PlanString(std::initializer_list<TensorShape> shapes) {
  std::vector<const TensorShape*> ptrs;
  for (const TensorShape& s : shapes) ptrs.push_back(&s);
  cwise::BroadcastPlan p;
  absl::Status status;
  if (ptrs.size() == 2) status = cwise::MakeBroadcastPlan({ptrs[0], ptrs[1]}, &p);
  if (ptrs.size() == 3) status = cwise::MakeBroadcastPlan({ptrs[0], ptrs[1], ptrs[2]}, &p);
  if (!status.ok()) return std::string(status.message());
  std::string out =
      p.out_shape.DebugString() + " " + absl::StrJoin(absl::MakeConstSpan(p.dims, p.rank), ",");
  for (int k = 0; k < p.num_inputs; ++k) {
    absl::StrAppend(&out, "|", absl::StrJoin(absl::MakeConstSpan(p.strides[k], p.rank), ","));
  }
  return out;
}

TEST(MathBroadcastPlanTest, CollapsesDims) {
  EXPECT_EQ(PlanString({TensorShape({2, 3, 4}), TensorShape({4})}), "[2,3,4] 6,4|4,1|0,1");
  EXPECT_EQ(PlanString({TensorShape({2, 3}), TensorShape({2, 3})}), "[2,3] 6|1|1");
  EXPECT_EQ(PlanString({TensorShape({5, 1, 1}), TensorShape({1, 1, 7})}), "[5,1,7] 5,7|1,0|0,1");
  EXPECT_EQ(PlanString({TensorShape({2, 1, 3, 1}), TensorShape({1, 4, 1, 5})}),
            "[2,4,3,5] 2,4,3,5|3,0,1,0|0,5,0,1");
  EXPECT_EQ(PlanString({TensorShape({1, 1}), TensorShape({1})}), "[1,1] 1|1|1");
  EXPECT_EQ(PlanString({TensorShape({0, 3}), TensorShape({3})}), "[0,3] 0,3|3,1|0,1");
  EXPECT_EQ(PlanString({TensorShape(), TensorShape({2, 1}), TensorShape({1, 3})}),
            "[2,3] 2,3|0,0|1,0|0,1");
  EXPECT_EQ(PlanString({TensorShape({2, 3}), TensorShape({4})}),
            "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_EQ(PlanString({TensorShape({2}), TensorShape({2}), TensorShape({3})}),
            "Incompatible shapes: [2] vs. [2] vs. [3]");
}

TEST(MathBinaryTest, AddSameShapeEveryDtype) {
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({2}, {1, 2}), F32({2}, {10, 20})}), F32({2}, {11, 22}));
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F64({2}, {1, 2}), F64({2}, {.5, .25})}), F64({2}, {1.5, 2.25}));
  EXPECT_TENSOR_EQ(RunOpOk("Add", {I32({2}, {1, -2}), I32({2}, {3, 4})}), I32({2}, {4, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("Add", {I64({1}, {int64_t{1} << 40}), I64({1}, {1})}),
                   I64({1}, {(int64_t{1} << 40) + 1}));
  EXPECT_TENSOR_EQ(RunOpOk("AddV2", {F32({}, {1}), F32({}, {2})}), F32({}, {3}));
}

TEST(MathBinaryTest, AddBroadcasts) {
  // [2,3] + [3]
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3}, {10, 20, 30})}),
                   F32({2, 3}, {11, 22, 33, 14, 25, 36}));
  // [2,1] + [1,3]
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({2, 1}, {1, 2}), F32({1, 3}, {10, 20, 30})}),
                   F32({2, 3}, {11, 21, 31, 12, 22, 32}));
  // scalar + tensor, tensor + scalar
  EXPECT_TENSOR_EQ(RunOpOk("Add", {I32({}, {5}), I32({2, 2}, {1, 2, 3, 4})}),
                   I32({2, 2}, {6, 7, 8, 9}));
  EXPECT_TENSOR_EQ(RunOpOk("Sub", {I64({3}, {1, 2, 3}), I64({}, {1})}), I64({3}, {0, 1, 2}));
  // A one-element tensor of higher rank is not a scalar: the output takes its rank.
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({1, 1}, {1}), F32({3}, {1, 2, 3})}), F32({1, 3}, {2, 3, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({}, {1}), F32({}, {2})}), F32({}, {3}));
}

TEST(MathBinaryTest, ZeroSizeDims) {
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({0, 3}, {}), F32({3}, {1, 2, 3})}), F32({0, 3}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("Mul", {F32({2, 0}, {}), F32({}, {2})}), F32({2, 0}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({0}, {}), F32({0}, {})}), F32({0}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("Add", {F32({2, 1}, {1, 2}), F32({0}, {})}), F32({2, 0}, {}));
  // Integer division by zero is not an error when nothing is divided.
  EXPECT_TENSOR_EQ(RunOpOk("Div", {I32({0, 2}, {}), I32({2}, {0, 0})}), I32({0, 2}, {}));
}

TEST(MathBinaryTest, GeneralBroadcastMatchesReference) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{2, 1, 3, 1}, {1, 4, 1, 5}},
      {{3, 4, 5}, {4, 1}},
      {{1}, {2, 3, 4}},
      {{5, 1, 1}, {1, 1, 7}},
      {{2, 3, 1}, {2, 1, 4}},
      {{4, 1, 6}, {1, 5, 1}},
      {{7}, {3, 1}},
      {{2, 2, 2, 2, 2}, {2, 1, 2, 1, 2}},
  };
  for (const auto& [xd, yd] : cases) {
    Tensor x = Iota(xd, 1.0f), y = Iota(yd, 0.01f);
    EXPECT_TENSOR_NEAR(RunOpOk("Sub", {x, y}), ReferenceSub(x, y));
    EXPECT_TENSOR_NEAR(RunOpOk("Sub", {y, x}), ReferenceSub(y, x));
    EXPECT_TENSOR_NEAR(RunOpFedOk("Sub", {x, y}), ReferenceSub(x, y));
  }
}

TEST(MathBinaryTest, LargeTensorsRunInParallel) {
  // Big enough for ParallelFor to split, in every path: same shape, scalar, broadcast.
  Tensor x = Iota({200, 1, 300}, 1.0f), y = Iota({1, 100, 1}, 0.5f);
  EXPECT_TENSOR_NEAR(RunOpOk("Sub", {x, y}), ReferenceSub(x, y));
  Tensor big = Iota({1000, 1000}, 1.0f);
  EXPECT_TENSOR_NEAR(RunOpOk("Sub", {big, big}), ReferenceSub(big, big));
  Tensor one = Iota({}, 1.0f);
  EXPECT_TENSOR_NEAR(RunOpOk("Sub", {big, one}), ReferenceSub(big, one));
  EXPECT_TENSOR_NEAR(RunOpOk("Sub", {one, big}), ReferenceSub(one, big));
  Tensor row = Iota({1000}, 3.0f);
  EXPECT_TENSOR_NEAR(RunOpOk("Sub", {big, row}), ReferenceSub(big, row));
}

TEST(MathBinaryTest, SubMulDiv) {
  EXPECT_TENSOR_EQ(RunOpOk("Sub", {F32({2}, {1, 2}), F32({2}, {3, 5})}), F32({2}, {-2, -3}));
  EXPECT_TENSOR_EQ(RunOpOk("Mul", {F64({2, 2}, {1, 2, 3, 4}), F64({2, 1}, {2, 3})}),
                   F64({2, 2}, {2, 4, 9, 12}));
  EXPECT_TENSOR_EQ(RunOpOk("Mul", {I32({2}, {-3, 4}), I32({2}, {5, 6})}), I32({2}, {-15, 24}));
  EXPECT_TENSOR_EQ(RunOpOk("Div", {F32({3}, {1, -1, 0}), F32({3}, {4, 0, 2})}),
                   F32({3}, {0.25f, -kInf, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("RealDiv", {F64({2}, {1, 3}), F64({}, {2})}), F64({2}, {0.5, 1.5}));
}

TEST(MathBinaryTest, IntegerDivTruncatesTowardZero) {
  EXPECT_TENSOR_EQ(RunOpOk("Div", {I32({4}, {7, -7, 7, -7}), I32({4}, {2, 2, -2, -2})}),
                   I32({4}, {3, -3, -3, 3}));
  EXPECT_TENSOR_EQ(RunOpOk("Div", {I64({2}, {9, -9}), I64({}, {4})}), I64({2}, {2, -2}));
  // The most negative value divided by -1 wraps instead of trapping.
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_TENSOR_EQ(RunOpOk("Div", {I32({2}, {min32, 5}), I32({}, {-1})}), I32({2}, {min32, -5}));
}

// Python's // and %: the quotient rounds toward -inf, the remainder takes y's sign.
TEST(MathBinaryTest, FloorDivAndFloorModRoundTowardNegativeInfinity) {
  const Tensor x = I32({6}, {7, -7, 7, -7, 6, 0}), y = I32({6}, {2, 2, -2, -2, 3, -5});
  EXPECT_TENSOR_EQ(RunOpOk("FloorDiv", {x, y}), I32({6}, {3, -4, -4, 3, 2, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("FloorMod", {x, y}), I32({6}, {1, 1, -1, -1, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("FloorMod", {I64({3}, {-1, 10, -10}), I64({}, {3})}), I64({3}, {2, 1, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("FloorDiv", {F32({4}, {7.5f, -7.5f, 1, -0.0f}), F32({}, {2})}),
                   F32({4}, {3, -4, 0, -0.0f}));
  EXPECT_TENSOR_EQ(RunOpOk("FloorMod", {F64({3}, {7.5, -7.5, 7.5}), F64({3}, {2, 2, -2})}),
                   F64({3}, {1.5, 0.5, -0.5}));
  // The most negative value by -1 wraps (quotient) and leaves 0 (remainder), no trap.
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_TENSOR_EQ(RunOpOk("FloorDiv", {I32({}, {min32}), I32({}, {-1})}), I32({}, {min32}));
  EXPECT_TENSOR_EQ(RunOpOk("FloorMod", {I32({}, {min32}), I32({}, {-1})}), I32({}, {0}));
  for (const char* op : {"FloorDiv", "FloorMod"}) {
    EXPECT_STATUS(RunOp(op, {I32({2}, {1, 2}), I32({2}, {1, 0})}).status(), kInvalid,
                  "integer division by zero");
  }
}

TEST(MathBinaryTest, IntegerDivisionByZeroIsAnError) {
  EXPECT_STATUS(RunOp("Div", {I32({2}, {1, 2}), I32({2}, {1, 0})}).status(), kInvalid,
                "integer division by zero");
  EXPECT_STATUS(RunOp("Div", {I64({2, 2}, {1, 2, 3, 4}), I64({2}, {0, 1})}).status(), kInvalid,
                "integer division by zero");
  EXPECT_STATUS(RunOp("Div", {I32({}, {1}), I32({}, {0})}).status(), kInvalid,
                "integer division by zero");
}

TEST(MathBinaryTest, MaximumMinimumPropagateNaN) {
  EXPECT_TENSOR_EQ(RunOpOk("Maximum", {F32({4}, {1, 5, kNaN, 2}), F32({4}, {3, 4, 1, kNaN})}),
                   F32({4}, {3, 5, kNaN, kNaN}));
  EXPECT_TENSOR_EQ(RunOpOk("Minimum", {F32({4}, {1, 5, kNaN, 2}), F32({4}, {3, 4, 1, kNaN})}),
                   F32({4}, {1, 4, kNaN, kNaN}));
  EXPECT_TENSOR_EQ(RunOpOk("Maximum", {I32({2, 2}, {1, 5, -3, 0}), I32({2}, {2, 2})}),
                   I32({2, 2}, {2, 5, 2, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("Minimum", {I64({3}, {1, 5, -3}), I64({}, {2})}), I64({3}, {1, 2, -3}));
}

TEST(MathBinaryTest, Pow) {
  EXPECT_TENSOR_NEAR(RunOpOk("Pow", {F32({3}, {2, 4, 9}), F32({3}, {3, 0.5f, -1})}),
                     F32({3}, {8, 2, 1.0f / 9}));
  EXPECT_TENSOR_EQ(RunOpOk("Pow", {I32({5}, {2, -3, 0, 7, 1}), I32({5}, {10, 3, 0, 1, 100})}),
                   I32({5}, {1024, -27, 1, 7, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Pow", {I64({3}, {3, 2, 3}), I64({3}, {39, 40, 40})}),
                   I64({3}, {4052555153018976267LL, int64_t{1} << 40, -6289078614652622815LL}));
  EXPECT_STATUS(RunOp("Pow", {I32({2}, {2, 2}), I32({2}, {1, -1})}).status(), kInvalid,
                "negative integer powers");
}

TEST(MathBinaryTest, SquaredDifferenceIsFloatOnly) {
  EXPECT_TENSOR_EQ(RunOpOk("SquaredDifference", {F32({2, 2}, {1, 2, 3, 4}), F32({2}, {3, 1})}),
                   F32({2, 2}, {4, 1, 0, 9}));
  EXPECT_TENSOR_EQ(RunOpOk("SquaredDifference", {F64({}, {-1}), F64({}, {2})}), F64({}, {9}));
  EXPECT_STATUS(RunOp("SquaredDifference", {I32({1}, {1}), I32({1}, {1})}).status(), kInvalid,
                "int32");
  EXPECT_STATUS(RunOp("RealDiv", {I64({1}, {1}), I64({1}, {1})}).status(), kInvalid, "int64");
}

TEST(MathBinaryTest, IntegerOverflowWraps) {
  const int32_t max32 = std::numeric_limits<int32_t>::max();
  const int32_t min32 = std::numeric_limits<int32_t>::min();
  EXPECT_TENSOR_EQ(RunOpOk("Add", {I32({1}, {max32}), I32({1}, {1})}), I32({1}, {min32}));
  EXPECT_TENSOR_EQ(RunOpOk("Sub", {I32({1}, {min32}), I32({1}, {1})}), I32({1}, {max32}));
  EXPECT_TENSOR_EQ(RunOpOk("Mul", {I32({1}, {1 << 16}), I32({1}, {1 << 16})}), I32({1}, {0}));
}

TEST(MathBinaryTest, IncompatibleShapesAtGraphBuildAndRunTime) {
  // Constants: the shape function catches it while the graph is built.
  EXPECT_STATUS(RunOp("Add", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({4}, {1, 2, 3, 4})}).status(),
                kInvalid, "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_STATUS(RunOp("Less", {I32({2}, {1, 2}), I32({3}, {1, 2, 3})}).status(), kInvalid,
                "Incompatible shapes: [2] vs. [3]");
  // Placeholders of unknown shape: the kernel catches it.
  EXPECT_STATUS(RunOpFed("Mul", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({4}, {1, 2, 3, 4})}).status(),
                kInvalid, "Incompatible shapes: [2,3] vs. [4]");
  EXPECT_STATUS(
      RunOpFed("Add", {F32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), F32({2, 2}, {1, 2, 3, 4})}).status(),
      kInvalid, "Incompatible shapes: [2,1,3] vs. [2,2]");
  EXPECT_STATUS(RunOpFed("Equal", {I32({0}, {}), I32({2}, {1, 2})}).status(), kInvalid,
                "Incompatible shapes: [0] vs. [2]");
}

TEST(MathBinaryTest, MismatchedDtypesRejectedAtGraphBuild) {
  EXPECT_STATUS(RunOp("Add", {F32({1}, {1}), I32({1}, {1})}).status(), kInvalid, "int32");
  EXPECT_STATUS(RunOp("Mul", {I64({1}, {1}), F64({1}, {1})}).status(), kInvalid, "float64");
  EXPECT_STATUS(RunOp("Less", {F32({1}, {1}), F64({1}, {1})}).status(), kInvalid, "float64");
  EXPECT_STATUS(RunOp("Add", {Bool({1}, {true}), Bool({1}, {true})}).status(), kInvalid, "bool");
}

TEST(MathCompareTest, ComparisonsBroadcastToBool) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor y = F32({3}, {2, 2, 7});
  EXPECT_TENSOR_EQ(RunOpOk("Equal", {x, y}), Bool({2, 3}, {0, 1, 0, 0, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("NotEqual", {x, y}), Bool({2, 3}, {1, 0, 1, 1, 1, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Less", {x, y}), Bool({2, 3}, {1, 0, 1, 0, 0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("LessEqual", {x, y}), Bool({2, 3}, {1, 1, 1, 0, 0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Greater", {x, y}), Bool({2, 3}, {0, 0, 0, 1, 1, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("GreaterEqual", {x, y}), Bool({2, 3}, {0, 1, 0, 1, 1, 0}));
}

TEST(MathCompareTest, EveryDtype) {
  EXPECT_TENSOR_EQ(RunOpOk("Less", {I32({3}, {-1, 0, 1}), I32({}, {0})}), Bool({3}, {1, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Greater", {I64({2, 1}, {5, -5}), I64({2}, {0, 10})}),
                   Bool({2, 2}, {1, 0, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("LessEqual", {F64({2}, {1, 2}), F64({2}, {1, 1})}), Bool({2}, {1, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Equal", {Bool({2, 2}, {1, 0, 1, 0}), Bool({2}, {1, 1})}),
                   Bool({2, 2}, {1, 0, 1, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("NotEqual", {Bool({2}, {1, 0}), Bool({}, {false})}), Bool({2}, {1, 0}));
  // NaN compares unequal to everything, itself included.
  EXPECT_TENSOR_EQ(RunOpOk("Equal", {F32({2}, {kNaN, 1}), F32({2}, {kNaN, 1})}), Bool({2}, {0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Equal", {F32({0, 2}, {}), F32({2}, {1, 2})}), Bool({0, 2}, {}));
  EXPECT_STATUS(RunOp("Less", {Bool({1}, {true}), Bool({1}, {true})}).status(), kInvalid, "bool");
}

TEST(MathCompareTest, EqualWithoutIncompatibleShapeError) {
  AttrMap no_error = {{"incompatible_shape_error", MakeAttr(false)}};
  EXPECT_TENSOR_EQ(RunOpOk("Equal", {I32({2}, {1, 2}), I32({3}, {1, 2, 3})}, no_error),
                   Bool({}, {false}));
  EXPECT_TENSOR_EQ(RunOpOk("NotEqual", {I32({2}, {1, 2}), I32({3}, {1, 2, 3})}, no_error),
                   Bool({}, {true}));
  EXPECT_TENSOR_EQ(RunOpFedOk("NotEqual", {I32({2}, {1, 2}), I32({3}, {1, 2, 3})}, no_error),
                   Bool({}, {true}));
  EXPECT_TENSOR_EQ(RunOpFedOk("Equal", {I32({2}, {1, 2}), I32({}, {2})}, no_error),
                   Bool({2}, {0, 1}));
}

TEST(MathLogicalTest, AndOrNot) {
  Tensor x = Bool({2, 2}, {1, 1, 0, 0});
  Tensor y = Bool({2}, {1, 0});
  EXPECT_TENSOR_EQ(RunOpOk("LogicalAnd", {x, y}), Bool({2, 2}, {1, 0, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("LogicalOr", {x, y}), Bool({2, 2}, {1, 1, 1, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("LogicalOr", {Bool({}, {false}), Bool({0}, {})}), Bool({0}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("LogicalNot", {x}), Bool({2, 2}, {0, 0, 1, 1}));
  EXPECT_STATUS(RunOp("LogicalAnd", {Bool({2}, {1, 1}), Bool({3}, {1, 1, 1})}).status(), kInvalid,
                "Incompatible shapes: [2] vs. [3]");
  EXPECT_STATUS(RunOp("LogicalNot", {F32({1}, {1})}).status(), kInvalid, "float32");
}

}  // namespace
}  // namespace tw
