// Tests of Slice, StridedSlice, Transpose and Tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "testing/op_test_util.h"

namespace tw {
namespace {

// 0, 1, ..., n-1 in the given shape.
Tensor Iota(std::initializer_list<int64_t> shape) {
  Tensor t(DType::kInt32, TensorShape(shape));
  std::iota(t.data<int32_t>(), t.data<int32_t>() + t.NumElements(), 0);
  return t;
}

TEST(ArraySliceOps, Slice) {
  const Tensor x = Iota({3, 4});
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {x, I32({2}, {1, 1}), I32({2}, {2, 2})}),
                   I32({2, 2}, {5, 6, 9, 10}));
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {x, I64({2}, {1, 2}), I64({2}, {-1, -1})}),
                   I32({2, 2}, {6, 7, 10, 11}));
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {x, I32({2}, {3, 0}), I32({2}, {-1, 2})}), I32({0, 2}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {F64({3}, {1, 2, 3}), I32({1}, {2}), I32({1}, {1})}),
                   F64({1}, {3}));
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {Bool({2, 2}, {true, false, false, true}), I32({2}, {0, 1}),
                                      I32({2}, {2, 1})}),
                   Bool({2, 1}, {false, true}));
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {Tensor::Scalar<float>(4), I32({0}, {}), I32({0}, {})}),
                   Tensor::Scalar<float>(4));
  auto out = RunOpFed("Slice", {x, I32({2}, {0, 0}), I32({2}, {-1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));  // The whole input: no copy.
}

TEST(ArraySliceOps, SliceErrors) {
  const Tensor x = Iota({3, 4});
  EXPECT_TRUE(FailsBoth("Slice", {x, I32({2}, {4, 0}), I32({2}, {1, 1})}, {},
                        "Expected begin[0] in [0, 3], but got 4"));
  EXPECT_TRUE(FailsBoth("Slice", {x, I32({2}, {-1, 0}), I32({2}, {1, 1})}, {},
                        "Expected begin[0] in [0, 3], but got -1"));
  EXPECT_TRUE(FailsBoth("Slice", {x, I32({2}, {1, 2}), I32({2}, {1, 3})}, {},
                        "Expected size[1] in [0, 2], but got 3"));
  EXPECT_TRUE(FailsBoth("Slice", {x, I32({2}, {1, 2}), I32({2}, {1, -2})}, {},
                        "Expected size[1] in [0, 2], but got -2"));
  EXPECT_TRUE(FailsBoth("Slice", {x, I32({3}, {0, 0, 0}), I32({2}, {1, 1})}, {},
                        "Expected begin and size arguments to be 1-D tensors of size 2, but got "
                        "shapes [3] and [2] instead."));
}

TEST(ArraySliceOps, SliceInference) {
  auto s = InferShapes("Slice", {{DType::kFloat, PartialShape({-1, 5})}, I32({2}, {0, 1}),
                                 I32({2}, {2, -1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({2, 4}));
  s = InferShapes("Slice", {F32({4, 5}, std::vector<float>(20)), {DType::kInt32, PartialShape({2})},
                            I32({2}, {2, -1})});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({2, -1}));
}

struct StridedCase {
  std::vector<int32_t> begin, end, strides;
  int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
};

Tensor StridedSlice(const Tensor& x, const StridedCase& c, DType index = DType::kInt32) {
  auto vec = [&](const std::vector<int32_t>& v) {
    if (index == DType::kInt32) return I32({static_cast<int64_t>(v.size())}, v);
    return I64({static_cast<int64_t>(v.size())}, std::vector<int64_t>(v.begin(), v.end()));
  };
  return RunBoth1("StridedSlice", {x, vec(c.begin), vec(c.end), vec(c.strides)},
                  {{"begin_mask", MakeAttr(int64_t{c.begin_mask})},
                   {"end_mask", MakeAttr(int64_t{c.end_mask})},
                   {"ellipsis_mask", MakeAttr(int64_t{c.ellipsis_mask})},
                   {"new_axis_mask", MakeAttr(int64_t{c.new_axis_mask})},
                   {"shrink_axis_mask", MakeAttr(int64_t{c.shrink_axis_mask})}});
}

TEST(ArraySliceOps, StridedSliceNumpyCases) {
  const Tensor x = Iota({2, 3, 4});
  // x[1:, ::2, -1]
  EXPECT_TENSOR_EQ(StridedSlice(x, {{1, 0, -1}, {0, 0, 0}, {1, 2, 1}, 0b010, 0b011, 0, 0, 0b100}),
                   I32({1, 2}, {15, 23}));
  // x[..., 1]
  EXPECT_TENSOR_EQ(StridedSlice(x, {{0, 1}, {0, 2}, {1, 1}, 0, 0, 0b01, 0, 0b10}),
                   I32({2, 3}, {1, 5, 9, 13, 17, 21}));
  // x[::-1, ::-1, ::-2]
  EXPECT_TENSOR_EQ(StridedSlice(x, {{0, 0, 0}, {0, 0, 0}, {-1, -1, -2}, 0b111, 0b111, 0, 0, 0}),
                   I32({2, 3, 2}, {23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1}));
  // x[newaxis, 0, :, 1:3]
  EXPECT_TENSOR_EQ(
      StridedSlice(x, {{0, 0, 0, 1}, {0, 1, 0, 3}, {1, 1, 1, 1}, 0b0100, 0b0100, 0, 0b0001, 0b0010}),
      I32({1, 3, 2}, {1, 2, 5, 6, 9, 10}));
  // x[-1, -2:, -3:-1] with int64 indices
  EXPECT_TENSOR_EQ(StridedSlice(x, {{-1, -2, -3}, {0, 0, -1}, {1, 1, 1}, 0, 0b010, 0, 0, 0b001},
                                DType::kInt64),
                   I32({2, 2}, {17, 18, 21, 22}));
  // x[:, 1:100, -100:2]: out-of-range bounds clamp.
  EXPECT_TENSOR_EQ(StridedSlice(x, {{0, 1, -100}, {0, 100, 2}, {1, 1, 1}, 0b001, 0b001, 0, 0, 0}),
                   I32({2, 2, 2}, {4, 5, 8, 9, 16, 17, 20, 21}));
  // x[:, 2:1]: empty.
  EXPECT_TENSOR_EQ(StridedSlice(x, {{0, 2}, {0, 1}, {1, 1}, 0b01, 0b01, 0, 0, 0}), I32({2, 0, 4}, {}));
  // x[..., newaxis]
  EXPECT_EQ(StridedSlice(x, {{0, 0}, {0, 0}, {1, 1}, 0, 0, 0b01, 0b10, 0}).shape(),
            TensorShape({2, 3, 4, 1}));
  // x[1, ..., 2]: ellipsis in the middle.
  EXPECT_TENSOR_EQ(StridedSlice(x, {{1, 0, 2}, {2, 0, 3}, {1, 1, 1}, 0, 0, 0b010, 0, 0b101}),
                   I32({3}, {14, 18, 22}));
}

TEST(ArraySliceOps, StridedSliceVectorsScalarsAndDtypes) {
  const Tensor v = Iota({10});
  // v[8:2:-3]
  EXPECT_TENSOR_EQ(StridedSlice(v, {{8}, {2}, {-3}, 0, 0, 0, 0, 0}), I32({2}, {8, 5}));
  // v[-1]
  EXPECT_TENSOR_EQ(StridedSlice(v, {{-1}, {0}, {1}, 0, 0, 0, 0, 1}), Tensor::Scalar<int32_t>(9));
  // v[::4]
  EXPECT_TENSOR_EQ(StridedSlice(v, {{0}, {0}, {4}, 1, 1, 0, 0, 0}), I32({3}, {0, 4, 8}));
  // v[7::-1] with a huge begin clamps to the end.
  EXPECT_TENSOR_EQ(StridedSlice(v, {{100}, {0}, {-4}, 0, 1, 0, 0, 0}), I32({3}, {9, 5, 1}));
  // Scalar input, empty spec.
  EXPECT_TENSOR_EQ(StridedSlice(Tensor::Scalar<double>(2.5), {{}, {}, {}, 0, 0, 0, 0, 0}),
                   Tensor::Scalar<double>(2.5));
  EXPECT_TENSOR_EQ(StridedSlice(Bool({3}, {true, false, true}), {{0}, {0}, {2}, 1, 1, 0, 0, 0}),
                   Bool({2}, {true, true}));
  EXPECT_TENSOR_EQ(StridedSlice(F64({2, 2}, {1, 2, 3, 4}), {{0, 1}, {0, 2}, {1, 1}, 1, 1, 0, 0, 0}),
                   F64({2, 1}, {2, 4}));
}

// Python's slice semantics, written independently: the indices x[b:e:s] visits.
std::vector<int64_t> PySliceIndices(int64_t n, int64_t b, int64_t e, int64_t s, bool no_begin,
                                    bool no_end) {
  auto fwd = [n](int64_t x) { return x < 0 ? x + n : x; };
  std::vector<int64_t> out;
  if (s > 0) {
    const int64_t start = no_begin ? 0 : std::clamp<int64_t>(fwd(b), 0, n);
    const int64_t stop = no_end ? n : std::clamp<int64_t>(fwd(e), 0, n);
    for (int64_t i = start; i < stop; i += s) out.push_back(i);
  } else {
    const int64_t start = no_begin ? n - 1 : std::clamp<int64_t>(fwd(b), -1, n - 1);
    const int64_t stop = no_end ? -1 : std::clamp<int64_t>(fwd(e), -1, n - 1);
    for (int64_t i = start; i > stop; i += s) out.push_back(i);
  }
  return out;
}

TEST(ArraySliceOps, StridedSliceMatchesPythonSlicing) {
  const Tensor x = Iota({4, 5, 6});
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 100; ++trial) {
    StridedCase c{{}, {}, {}, pick(0, 7), pick(0, 7), 0, 0, 0};
    std::vector<int64_t> idx[3];
    DimVector dims;
    for (int d = 0; d < 3; ++d) {
      c.begin.push_back(pick(-8, 8));
      c.end.push_back(pick(-8, 8));
      c.strides.push_back(pick(0, 1) ? pick(1, 3) : -pick(1, 3));
      idx[d] = PySliceIndices(x.dim(d), c.begin[d], c.end[d], c.strides[d], c.begin_mask >> d & 1,
                              c.end_mask >> d & 1);
      dims.push_back(static_cast<int64_t>(idx[d].size()));
    }
    Tensor expected(DType::kInt32, TensorShape(dims));
    int32_t* e = expected.data<int32_t>();
    for (int64_t i : idx[0])
      for (int64_t j : idx[1])
        for (int64_t k : idx[2]) *e++ = static_cast<int32_t>((i * 5 + j) * 6 + k);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    EXPECT_TENSOR_EQ(StridedSlice(x, c), expected);
  }
}

TEST(ArraySliceOps, StridedSliceIdentityIsZeroCopy) {
  const Tensor x = Iota({2, 3});
  auto out = RunOpFed("StridedSlice", {x, I32({1}, {0}), I32({1}, {0}), I32({1}, {1})},
                      {{"begin_mask", MakeAttr(int64_t{1})}, {"end_mask", MakeAttr(int64_t{1})},
                       {"new_axis_mask", MakeAttr(int64_t{0})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(x));
  EXPECT_TENSOR_EQ((*out)[0], x);
}

TEST(ArraySliceOps, StridedSliceErrors) {
  const Tensor x = Iota({2, 3});
  auto spec = [&](std::vector<int32_t> b, std::vector<int32_t> e, std::vector<int32_t> s, int shrink,
                  int ellipsis) {
    return std::vector<Tensor>{x, I32({static_cast<int64_t>(b.size())}, b),
                               I32({static_cast<int64_t>(e.size())}, e),
                               I32({static_cast<int64_t>(s.size())}, s)};
  };
  auto attrs = [](int shrink, int ellipsis) {
    return AttrMap{{"shrink_axis_mask", MakeAttr(int64_t{shrink})},
                   {"ellipsis_mask", MakeAttr(int64_t{ellipsis})}};
  };
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({0, 0}, {1, 1}, {1, 0}, 0, 0), attrs(0, 0),
                        "strides[1] must be non-zero"));
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({2}, {3}, {1}, 1, 0), attrs(1, 0),
                        "slice index 2 of dimension 0 out of bounds."));
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({-3}, {0}, {1}, 1, 0), attrs(1, 0),
                        "slice index -3 of dimension 0 out of bounds."));
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({0, 0}, {0, 0}, {1, 1}, 0, 0b11), attrs(0, 0b11),
                        "Multiple ellipses in slice spec not allowed"));
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 0, 0), attrs(0, 0),
                        "Index out of range using input dim 2; input has only 2 dims"));
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({0}, {0, 1}, {1}, 0, 0), attrs(0, 0),
                        "Expected begin, end, and strides to be 1-D tensors of equal size"));
  EXPECT_TRUE(FailsBoth("StridedSlice", spec({1}, {1}, {-1}, 1, 0), attrs(1, 0),
                        "only stride 1 allowed on non-range indexing."));
  EXPECT_TRUE(FailsFed("StridedSlice", {x, I32({1, 1}, {0}), I32({1}, {1}), I32({1}, {1})}, {},
                       "Expected begin, end, and strides to be 1-D tensors, but got shapes [1,1]"));
}

TEST(ArraySliceOps, StridedSliceInferenceWithUnknownBegin) {
  // x[b:e, :, 2] with b, e unknown: dim 0 unknown, dim 1 known from the masks.
  auto s = InferShapes("StridedSlice",
                       {{DType::kFloat, PartialShape({5, 6, 7})}, {DType::kInt32, PartialShape({3})},
                        {DType::kInt32, PartialShape({3})}, I32({3}, {1, 1, 1})},
                       {{"begin_mask", MakeAttr(int64_t{2})}, {"end_mask", MakeAttr(int64_t{2})},
                        {"shrink_axis_mask", MakeAttr(int64_t{4})}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialShape({-1, 6}));
}

TEST(ArraySliceOps, Transpose) {
  const Tensor x = Iota({2, 3});
  EXPECT_TENSOR_EQ(RunBoth1("Transpose", {x, I32({2}, {1, 0})}), I32({3, 2}, {0, 3, 1, 4, 2, 5}));
  const Tensor y = Iota({2, 3, 4});
  EXPECT_TENSOR_EQ(RunBoth1("Transpose", {y, I64({3}, {2, 0, 1})}),
                   I32({4, 2, 3}, {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21,
                                   2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
  EXPECT_TENSOR_EQ(RunBoth1("Transpose", {Bool({1, 2}, {true, false}), I32({2}, {1, 0})}),
                   Bool({2, 1}, {true, false}));
  EXPECT_TENSOR_EQ(RunBoth1("Transpose", {F64({0, 3}, {}), I32({2}, {1, 0})}), F64({3, 0}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Transpose", {Tensor::Scalar<float>(1), I32({0}, {})}),
                   Tensor::Scalar<float>(1));
  auto out = RunOpFed("Transpose", {Iota({1, 4}), I32({2}, {1, 0})});  // Only moves a 1.
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({4, 1}));
}

TEST(ArraySliceOps, TransposeLargeMatchesNaive) {
  // Big enough for the tiled path and the thread pool; odd sizes leave partial tiles.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{301, 517}, {1000, 9}}) {
    Tensor x(DType::kDouble, TensorShape({2, rows, cols}));
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<double>()[i] = static_cast<double>(i);
    Tensor expected(DType::kDouble, TensorShape({2, cols, rows}));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          expected.data<double>()[(b * cols + c) * rows + r] = x.data<double>()[(b * rows + r) * cols + c];
    auto out = RunOpFed("Transpose", {x, I32({3}, {0, 2, 1})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TENSOR_EQ((*out)[0], expected);
  }
}

TEST(ArraySliceOps, TransposeErrors) {
  const Tensor x = Iota({2, 3});
  EXPECT_TRUE(FailsBoth("Transpose", {x, I32({3}, {0, 1, 2})}, {},
                        "transpose expects a vector of size 2. But input(1) is a vector of size 3"));
  EXPECT_TRUE(FailsBoth("Transpose", {x, I32({2}, {0, 2})}, {}, "perm[1] = 2 is out of range [0, 2)"));
  EXPECT_TRUE(FailsBoth("Transpose", {x, I32({2}, {1, 1})}, {}, "0 is missing from perm {1,1}"));
  EXPECT_TRUE(FailsBoth("Transpose", {x, I32({2}, {-1, 0})}, {}, "perm[0] = -1 is out of range"));
}

TEST(ArraySliceOps, Tile) {
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {I32({2}, {1, 2}), I32({1}, {3})}), I32({6}, {1, 2, 1, 2, 1, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {F32({2, 2}, {1, 2, 3, 4}), I64({2}, {2, 1})}),
                   F32({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {F32({2, 2}, {1, 2, 3, 4}), I32({2}, {1, 2})}),
                   F32({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {Bool({1}, {true}), I32({1}, {0})}), Bool({0}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {F64({0, 2}, {}), I32({2}, {5, 1})}), F64({0, 2}, {}));
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {Tensor::Scalar<int64_t>(3), I32({0}, {})}),
                   Tensor::Scalar<int64_t>(3));
}

TEST(ArraySliceOps, TileErrors) {
  EXPECT_TRUE(FailsBoth("Tile", {I32({2}, {1, 2}), I32({2}, {1, 1})}, {},
                        "Expected multiples argument to be a vector of length 1 but got length 2"));
  EXPECT_TRUE(FailsBoth("Tile", {I32({2}, {1, 2}), I32({1}, {-1})}, {},
                        "Expected multiples[0] >= 0, but got -1"));
  EXPECT_TRUE(FailsBoth("Tile", {I32({2}, {1, 2}), I64({1}, {int64_t{1} << 62})}, {},
                        "Tiled dimension 0 (2 * 4611686018427387904) is too large"));
  // Each dim fits but the total is over the limit: refused before allocating.
  EXPECT_TRUE(FailsFed("Tile", {I32({2, 2}, {1, 2, 3, 4}), I64({2}, {int64_t{1} << 30, 1 << 20})},
                       {}, "more than 1099511627776 elements", absl::StatusCode::kResourceExhausted));
}

}  // namespace
}  // namespace tw
