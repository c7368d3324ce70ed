#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "testing/op_test_util.h"

namespace tw {
namespace {

AttrMap KeepDims() { return {{"keep_dims", MakeAttr(true)}}; }

// --- Sum and axis handling -------------------------------------------------------------

TEST(ReductionSum, EachAxisOfAMatrix) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {0})}), F32({3}, {5, 7, 9}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {1})}), F32({2}, {6, 15}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {-1})}), F32({2}, {6, 15}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {-2})}), F32({3}, {5, 7, 9}));
}

TEST(ReductionSum, AllAxesAndKeepDims) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({2}, {0, 1})}), F32({}, {21}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({2}, {1, 0})}, KeepDims()), F32({1, 1}, {21}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {0})}, KeepDims()), F32({1, 3}, {5, 7, 9}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {1})}, KeepDims()), F32({2, 1}, {6, 15}));
}

TEST(ReductionSum, ScalarAxisDuplicatesAndInt64Axes) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, Tensor::Scalar<int32_t>(1)}), F32({2}, {6, 15}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({3}, {1, -1, 1})}), F32({2}, {6, 15}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I64({2}, {0, -1})}), F32({}, {21}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, Tensor::Scalar<int64_t>(0)}), F32({3}, {5, 7, 9}));
}

TEST(ReductionSum, EmptyAxesReduceNothing) {
  Tensor x = I32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({0}, {})}), x);
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({0}, {})}, KeepDims()), x);
  // A scalar input with no axes is itself.
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {F64({}, {2.5}), I32({0}, {})}), F64({}, {2.5}));
}

TEST(ReductionSum, EveryDtype) {
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {F64({2, 2}, {1.5, 2, 3, 4}), I32({1}, {0})}),
                   F64({2}, {4.5, 6}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {I32({2, 2}, {1, 2, 3, 4}), I32({1}, {1})}), I32({2}, {3, 7}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {I64({2, 2}, {int64_t{1} << 40, 2, 3, 4}), I32({1}, {1})}),
                   I64({2}, {(int64_t{1} << 40) + 2, 7}));
}

TEST(ReductionSum, SizeOneDimsAreSkipped) {
  Tensor x = F32({1, 2, 1, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({2}, {0, 2})}), F32({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({2}, {0, 3})}, KeepDims()), F32({1, 2, 1, 1}, {6, 15}));
}

TEST(ReductionSum, NonContiguousAxes) {
  // [2,3,2]: reduce axes 0 and 2, keep the middle one.
  Tensor x = I32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({2}, {0, 2})}),
                   I32({3}, {1 + 2 + 7 + 8, 3 + 4 + 9 + 10, 5 + 6 + 11 + 12}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {x, I32({2}, {2, 0})}, KeepDims()), I32({1, 3, 1}, {8, 10, 12}));
  // Rank 4, keeping axes 0 and 2: kept/reduced/kept/reduced takes the strided loop.
  Tensor y = I32({2, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  EXPECT_TENSOR_EQ(
      RunOpOk("Sum", {y, I32({2}, {1, 3})}),
      I32({2, 2}, {1 + 2 + 5 + 6, 3 + 4 + 7 + 8, 9 + 10 + 13 + 14, 11 + 12 + 15 + 16}));
}

// --- Mean, Max, Min, Prod ----------------------------------------------------------------

TEST(ReductionMean, FloatsAndIntegerDivision) {
  EXPECT_TENSOR_NEAR(RunOpOk("Mean", {F32({2, 3}, {1, 2, 3, 4, 5, 7}), I32({1}, {1})}),
                     F32({2}, {2, 16.0f / 3}));
  EXPECT_TENSOR_EQ(RunOpOk("Mean", {F64({2, 2}, {1, 2, 3, 4}), I32({2}, {0, 1})}), F64({}, {2.5}));
  // Integer mean truncates like integer division: 3/2 = 1, -3/2 = -1.
  EXPECT_TENSOR_EQ(RunOpOk("Mean", {I32({2, 2}, {1, 2, -1, -2}), I32({1}, {1})}),
                   I32({2}, {1, -1}));
  EXPECT_TENSOR_EQ(RunOpOk("Mean", {I64({3}, {1, 1, 2}), I32({1}, {0})}), I64({}, {1}));
}

TEST(ReductionMaxMin, FloatsAndInts) {
  Tensor x = F32({2, 3}, {1, -5, 3, 4, 2, -6});
  EXPECT_TENSOR_EQ(RunOpOk("Max", {x, I32({1}, {1})}), F32({2}, {3, 4}));
  EXPECT_TENSOR_EQ(RunOpOk("Min", {x, I32({1}, {1})}), F32({2}, {-5, -6}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {x, I32({1}, {0})}), F32({3}, {4, 2, 3}));
  EXPECT_TENSOR_EQ(RunOpOk("Min", {x, I32({1}, {0})}), F32({3}, {1, -5, -6}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {I64({3}, {-7, -2, -9}), I32({1}, {0})}), I64({}, {-2}));
  EXPECT_TENSOR_EQ(RunOpOk("Min", {I32({2, 2}, {7, 2, 9, 3}), I32({1}, {0})}), I32({2}, {7, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {F64({2, 2}, {7, 2, 9, 3}), I32({1}, {-1})}), F64({2}, {7, 9}));
}

TEST(ReductionMaxMin, NanPropagates) {
  Tensor x = F32({2, 3}, {1, kNaN, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("Max", {x, I32({1}, {1})}), F32({2}, {kNaN, 6}));
  EXPECT_TENSOR_EQ(RunOpOk("Min", {x, I32({1}, {0})}), F32({3}, {1, kNaN, 3}));
}

// Long rows take the unrolled packet loop (at least 2 x 8 packets) and its scalar tail: the
// extremum and a NaN are planted at the start, inside the loop and in the tail, for every length.
template <typename T>
void CheckLongRowExtrema() {
  auto make = [](std::initializer_list<int64_t> shape, std::vector<T> v) { return testing::Make<T>(shape, v); };
  for (int64_t n : {255, 256, 257, 300, 1000, 4099}) {
    for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
      std::vector<T> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>((i * 37) % 101) - T(50);
      v[at] = T(1000);
      EXPECT_TENSOR_EQ(RunOpOk("Max", {make({n}, v), I32({1}, {0})}), make({}, {T(1000)}))
          << "n=" << n << " at=" << at;
      v[at] = T(-1000);
      EXPECT_TENSOR_EQ(RunOpOk("Min", {make({n}, v), I32({1}, {0})}), make({}, {T(-1000)}))
          << "n=" << n << " at=" << at;
      v[at] = std::numeric_limits<T>::quiet_NaN();
      EXPECT_TENSOR_EQ(RunOpOk("Max", {make({n}, v), I32({1}, {0})}), make({}, {v[at]}))
          << "n=" << n << " at=" << at;
      EXPECT_TENSOR_EQ(RunOpOk("Min", {make({n}, v), I32({1}, {0})}), make({}, {v[at]}))
          << "n=" << n << " at=" << at;
    }
  }
}

TEST(ReductionMaxMin, LongRowsFindTheExtremumAndNanAnywhere) {
  CheckLongRowExtrema<float>();
  CheckLongRowExtrema<double>();
}

TEST(ReductionProd, EveryDtype) {
  EXPECT_TENSOR_EQ(RunOpOk("Prod", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), I32({1}, {1})}),
                   F32({2}, {6, 120}));
  EXPECT_TENSOR_EQ(RunOpOk("Prod", {F64({2, 2}, {0.5, 2, 3, 4}), I32({1}, {0})}),
                   F64({2}, {1.5, 8}));
  EXPECT_TENSOR_EQ(RunOpOk("Prod", {I32({2, 2}, {-1, 2, 3, 4}), I32({2}, {0, 1})}), I32({}, {-24}));
  EXPECT_TENSOR_EQ(RunOpOk("Prod", {I64({3}, {100000, 100000, 3}), I32({1}, {0})}),
                   I64({}, {30000000000}));
}

// --- Zero-size inputs ---------------------------------------------------------------------

TEST(ReductionEmpty, ReducingAnEmptyDimGivesTheIdentity) {
  Tensor x = F32({0, 3}, {});
  Tensor axis0 = I32({1}, {0});
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, axis0}), F32({3}, {0, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("Prod", {x, axis0}), F32({3}, {1, 1, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("Mean", {x, axis0}), F32({3}, {kNaN, kNaN, kNaN}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {x, axis0}), F32({3}, {-kInf, -kInf, -kInf}));
  EXPECT_TENSOR_EQ(RunOpOk("Min", {x, axis0}), F32({3}, {kInf, kInf, kInf}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {I32({0}, {}), axis0}),
                   I32({}, {std::numeric_limits<int32_t>::lowest()}));
  EXPECT_TENSOR_EQ(
      RunOpOk("Min", {I64({2, 0}, {}), I32({1}, {1})}, KeepDims()),
      I64({2, 1}, {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::max()}));
  EXPECT_TENSOR_EQ(RunOpOk("Mean", {I32({0}, {}), axis0}), I32({}, {0}));
}

TEST(ReductionEmpty, EmptyOutput) {
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {F32({2, 0}, {}), I32({1}, {0})}), F32({0}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("Max", {I32({0, 4}, {}), I32({1}, {1})}, KeepDims()), I32({0, 1}, {}));
}

// --- Large inputs: parallel and blocked paths against a naive reference ------------------

// Naive reduction of `x` (shape dims) over the axes in `mask`, computed in double.
std::vector<double> NaiveReduce(const std::vector<double>& x, const std::vector<int64_t>& dims,
                                const std::vector<bool>& mask, const std::string& op) {
  const int rank = static_cast<int>(dims.size());
  int64_t n_out = 1;
  for (int d = 0; d < rank; ++d) n_out *= mask[d] ? 1 : dims[d];
  double init = op == "Sum" ? 0 : op == "Prod" ? 1 : op == "Max" ? -INFINITY : INFINITY;
  std::vector<double> out(n_out, init);
  std::vector<int64_t> idx(rank, 0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d) {
      if (!mask[d]) o = o * dims[d] + idx[d];
    }
    double& acc = out[o];
    acc = op == "Sum"    ? acc + x[i]
          : op == "Prod" ? acc * x[i]
          : op == "Max"  ? std::max(acc, x[i])
                         : std::min(acc, x[i]);
    for (int d = rank - 1; d >= 0 && ++idx[d] == dims[d]; --d) idx[d] = 0;
  }
  return out;
}

TEST(ReductionReference, EveryAxisSubsetOfRank4) {
  const std::vector<int64_t> dims = {3, 4, 5, 6};
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-50, 50);
  std::vector<double> xd(360);
  std::vector<int32_t> xi(360);
  for (int i = 0; i < 360; ++i) xd[i] = xi[i] = dist(rng);
  Tensor x = I32({3, 4, 5, 6}, xi);
  for (const char* op : {"Sum", "Max", "Min"}) {
    for (int subset = 0; subset < 16; ++subset) {
      std::vector<int32_t> axes;
      std::vector<bool> mask(4);
      for (int d = 0; d < 4; ++d) {
        mask[d] = subset & (1 << d);
        if (mask[d]) axes.push_back(d);
      }
      std::vector<double> expected = NaiveReduce(xd, dims, mask, op);
      Tensor out = RunOpOk(op, {x, I32({static_cast<int64_t>(axes.size())}, axes)});
      ASSERT_EQ(out.NumElements(), static_cast<int64_t>(expected.size())) << op << " " << subset;
      for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(out.data<int32_t>()[i], expected[i]) << op << " subset " << subset << " at " << i;
      }
    }
  }
}

TEST(ReductionReference, LargeInputsTakeParallelPaths) {
  // [outer, reduce, inner] shapes that exercise the chunked, row and blocked paths.
  const std::vector<std::vector<int64_t>> shapes = {
      {1 << 20}, {300, 2000}, {2000, 300}, {100000, 3}, {3, 700, 1500}};
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (const auto& shape : shapes) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<double> xd(n);
    for (auto& v : xd) v = dist(rng);
    Tensor x(DType::kDouble, TensorShape(absl::Span<const int64_t>(shape)));
    std::copy(xd.begin(), xd.end(), x.data<double>());
    const int rank = static_cast<int>(shape.size());
    for (int axis = 0; axis < rank; ++axis) {
      std::vector<bool> mask(rank, false);
      mask[axis] = true;
      for (const char* op : {"Sum", "Max"}) {
        std::vector<double> expected = NaiveReduce(xd, shape, mask, op);
        Tensor out = RunOpOk(op, {x, Tensor::Scalar<int32_t>(axis)});
        ASSERT_EQ(out.NumElements(), static_cast<int64_t>(expected.size()));
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_NEAR(out.data<double>()[i], expected[i], 1e-9)
              << op << " axis " << axis << " at " << i;
        }
      }
    }
  }
}

TEST(ReductionReference, LargeFloatSumIsAccurate) {
  Tensor x(DType::kFloat, TensorShape({1 << 22}));
  std::fill(x.data<float>(), x.data<float>() + x.NumElements(), 1.0f);
  EXPECT_TENSOR_EQ(RunOpOk("Sum", {x, I32({1}, {0})}), F32({}, {4194304.0f}));
  EXPECT_TENSOR_EQ(RunOpOk("Mean", {x, I32({1}, {0})}), F32({}, {1.0f}));
}

// --- Errors and shape inference -----------------------------------------------------------

TEST(ReductionErrors, AxisOutOfRange) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  // Caught by the shape function when the axes are a Const...
  EXPECT_STATUS(RunOp("Sum", {x, I32({1}, {2})}).status(), absl::StatusCode::kInvalidArgument,
                "Invalid reduction dimension 2 for input with 2 dimension(s)");
  // ...and by the kernel when they are only known at run time.
  EXPECT_STATUS(RunOpFed("Max", {x, I32({2}, {0, -3})}).status(),
                absl::StatusCode::kInvalidArgument,
                "Invalid reduction dimension -3 for input with 2 dimension(s)");
  EXPECT_STATUS(RunOpFed("Mean", {F32({}, {1}), I32({1}, {0})}).status(),
                absl::StatusCode::kInvalidArgument,
                "Invalid reduction dimension 0 for input with 0");
}

TEST(ReductionErrors, AxesMustBeAVector) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_STATUS(RunOp("Sum", {x, I32({1, 1}, {0})}).status(), absl::StatusCode::kInvalidArgument,
                "reduction_indices must be a scalar or a vector, got shape [1,1]");
  EXPECT_STATUS(RunOpFed("Prod", {x, I32({1, 1}, {0})}).status(),
                absl::StatusCode::kInvalidArgument,
                "reduction_indices must be a scalar or a vector, got shape [1,1]");
}

TEST(ReductionFed, KernelMatchesWithUnknownShapes) {
  Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = RunOpFed("Sum", {x, I32({1}, {1})}, KeepDims());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TENSOR_EQ((*out)[0], F32({2, 1}, {6, 15}));
}

TEST(ReductionShape, ConstAxesGiveExactShape) {
  auto s = InferShape("Sum", {{DType::kFloat, PartialShape({2, -1, 4})}, I32({2}, {0, -1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({-1}));
  s = InferShape("Max", {{DType::kFloat, PartialShape({2, -1, 4})}, Tensor::Scalar<int64_t>(1)},
                 KeepDims());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({2, 1, 4}));
}

TEST(ReductionShape, UnknownAxes) {
  OpInput x(DType::kFloat, PartialShape({2, 3}));
  OpInput axes(DType::kInt32, PartialShape({-1}));
  auto s = InferShape("Sum", {x, axes}, KeepDims());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, PartialShape({-1, -1}));
  s = InferShape("Sum", {x, axes});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->known_rank());
  s = InferShape("Sum", {x, OpInput(DType::kInt32, PartialShape({0}))});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, PartialShape({2, 3}));
  s = InferShape("Sum", {OpInput(DType::kFloat, PartialShape()), I32({1}, {0})});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->known_rank());
}

TEST(ReductionShape, RejectsBadTypes) {
  EXPECT_FALSE(RunOp("Sum", {F32({2}, {1, 2}), F32({1}, {0})}).ok());
}

// --- ArgMax / ArgMin ---------------------------------------------------------------------

TEST(ArgMax, EachAxis) {
  Tensor x = F32({2, 3}, {1, 5, 3, 4, 2, 6});
  EXPECT_TENSOR_EQ(RunOpOk("ArgMax", {x, Tensor::Scalar<int32_t>(0)}), I64({3}, {1, 0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMax", {x, Tensor::Scalar<int32_t>(1)}), I64({2}, {1, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMax", {x, Tensor::Scalar<int64_t>(-1)}), I64({2}, {1, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMin", {x, Tensor::Scalar<int32_t>(1)}), I64({2}, {0, 1}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMin", {x, Tensor::Scalar<int32_t>(0)}), I64({3}, {0, 1, 0}));
}

TEST(ArgMax, OutputTypeDtypesTiesAndNan) {
  AttrMap i32 = {{"output_type", MakeAttr(DType::kInt32)}};
  EXPECT_TENSOR_EQ(RunOpOk("ArgMax", {I32({4}, {3, 7, 7, 1}), Tensor::Scalar<int32_t>(0)}, i32),
                   I32({}, {1}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMin", {I64({2, 2}, {5, 5, 2, 9}), Tensor::Scalar<int32_t>(1)}),
                   I64({2}, {0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMax", {F64({3}, {1, NAN, 3}), Tensor::Scalar<int32_t>(0)}),
                   I64({}, {1}));
  EXPECT_TENSOR_EQ(RunOpOk("ArgMin", {F32({3}, {1, -kInf, kNaN}), Tensor::Scalar<int32_t>(0)}),
                   I64({}, {2}));
}

TEST(ArgMax, WideInnerBlocks) {
  // inner = 2500 spans several blocks of the blocked scan.
  Tensor x(DType::kInt32, TensorShape({3, 2500}));
  for (int i = 0; i < 2500; ++i) {
    x.data<int32_t>()[i] = i % 3;
    x.data<int32_t>()[2500 + i] = (i + 1) % 3;
    x.data<int32_t>()[5000 + i] = (i + 2) % 3;
  }
  Tensor out = RunOpOk("ArgMax", {x, Tensor::Scalar<int32_t>(0)});
  ASSERT_EQ(out.NumElements(), 2500);
  for (int i = 0; i < 2500; ++i) ASSERT_EQ(out.data<int64_t>()[i], (2 - i % 3 + 3) % 3) << i;
}

TEST(ArgMax, ZeroSizeAndErrors) {
  EXPECT_TENSOR_EQ(RunOpOk("ArgMax", {F32({0, 3}, {}), Tensor::Scalar<int32_t>(1)}), I64({0}, {}));
  EXPECT_STATUS(RunOp("ArgMax", {F32({2, 0}, {}), Tensor::Scalar<int32_t>(1)}).status(),
                absl::StatusCode::kInvalidArgument, "Reduction axis 1 is empty in shape [2,0]");
  EXPECT_STATUS(RunOpFed("ArgMin", {F32({2, 0}, {}), Tensor::Scalar<int32_t>(-1)}).status(),
                absl::StatusCode::kInvalidArgument, "Reduction axis 1 is empty in shape [2,0]");
  EXPECT_STATUS(RunOp("ArgMax", {F32({2}, {1, 2}), Tensor::Scalar<int32_t>(1)}).status(),
                absl::StatusCode::kInvalidArgument,
                "Invalid dimension 1 for input with 1 dimension(s)");
  EXPECT_STATUS(RunOpFed("ArgMax", {F32({2}, {1, 2}), Tensor::Scalar<int32_t>(-2)}).status(),
                absl::StatusCode::kInvalidArgument,
                "Invalid dimension -2 for input with 1 dimension(s)");
  EXPECT_STATUS(RunOpFed("ArgMax", {F32({2}, {1, 2}), I32({1}, {0})}).status(),
                absl::StatusCode::kInvalidArgument, "dimension must be a scalar, got shape [1]");
  EXPECT_STATUS(RunOpFed("ArgMax", {F32({}, {1}), Tensor::Scalar<int32_t>(0)}).status(),
                absl::StatusCode::kInvalidArgument, "rank at least 1");
}

TEST(ArgMax, Shape) {
  auto s = InferShape("ArgMax",
                      {{DType::kFloat, PartialShape({2, -1, 4})}, Tensor::Scalar<int32_t>(-1)});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({2, -1}));
  s = InferShape("ArgMin", {{DType::kFloat, PartialShape({2, -1, 4})},
                            OpInput(DType::kInt32, PartialShape({}))});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({-1, -1}));
}

}  // namespace
}  // namespace tw
