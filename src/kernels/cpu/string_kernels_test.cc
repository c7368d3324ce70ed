// String tensors through the kernels TensorFlow registers for them: the element-moving
// array kernels (which must assign strings, never memcpy them: ASan runs these), Equal,
// NotEqual and StringJoin; and Where, which boolean_mask builds on.
#include <gtest/gtest.h>

#include <string>

#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Str;

// Longer than the small-string buffer: a byte copy would share (and double free) heap memory.
std::string L(const std::string& s) { return s + std::string(40, '.'); }

AttrMap Axis(int64_t axis) { return {{"axis", MakeAttr(axis)}}; }

TEST(StringKernels, IdentityReshapeExpandSqueezeShape) {
  const Tensor x = Str({2, 2}, {L("a"), "b", "c", L("d")});
  EXPECT_TENSOR_EQ(RunBoth1("Identity", {x}), x);
  EXPECT_TENSOR_EQ(RunBoth1("Reshape", {x, I32({1}, {4})}), Str({4}, {L("a"), "b", "c", L("d")}));
  EXPECT_TENSOR_EQ(RunBoth1("ExpandDims", {x, Tensor::Scalar<int32_t>(0)}), Str({1, 2, 2}, {L("a"), "b", "c", L("d")}));
  EXPECT_TENSOR_EQ(RunBoth1("Squeeze", {Str({1, 2}, {"p", "q"})}), Str({2}, {"p", "q"}));
  EXPECT_TENSOR_EQ(RunBoth1("Shape", {x}), I32({2}, {2, 2}));
  EXPECT_TENSOR_EQ(RunBoth1("Size", {x}), Tensor::Scalar<int32_t>(4));
  EXPECT_TENSOR_EQ(RunBoth1("Rank", {x}), Tensor::Scalar<int32_t>(2));
}

TEST(StringKernels, ConcatPackUnpackSplit) {
  const Tensor a = Str({2, 1}, {L("a"), "c"}), b = Str({2, 2}, {"b1", L("b2"), "d1", "d2"});
  EXPECT_TENSOR_EQ(RunBoth1("ConcatV2", {a, b, Tensor::Scalar<int32_t>(1)}),
                   Str({2, 3}, {L("a"), "b1", L("b2"), "c", "d1", "d2"}));
  EXPECT_TENSOR_EQ(RunBoth1("Pack", {Str({2}, {"x", L("y")}), Str({2}, {"z", "w"})}, Axis(1)),
                   Str({2, 2}, {"x", "z", L("y"), "w"}));
  auto parts = RunBoth("Unpack", {b}, {{"num", MakeAttr(int64_t{2})}, {"axis", MakeAttr(int64_t{1})}});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TENSOR_EQ(parts[0], Str({2}, {"b1", "d1"}));
  EXPECT_TENSOR_EQ(parts[1], Str({2}, {L("b2"), "d2"}));
  auto halves = RunBoth("Split", {Tensor::Scalar<int32_t>(0), b}, {{"num_split", MakeAttr(int64_t{2})}});
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_TENSOR_EQ(halves[1], Str({1, 2}, {"d1", "d2"}));
}

TEST(StringKernels, SliceStridedSliceTransposeTileBroadcast) {
  const Tensor x = Str({2, 3}, {"a", L("b"), "c", "d", "e", L("f")});
  EXPECT_TENSOR_EQ(RunBoth1("Slice", {x, I32({2}, {0, 1}), I32({2}, {2, 2})}), Str({2, 2}, {L("b"), "c", "e", L("f")}));
  EXPECT_TENSOR_EQ(RunBoth1("StridedSlice", {x, I32({2}, {0, 2}), I32({2}, {2, -4}), I32({2}, {1, -2})}),
                   Str({2, 2}, {"c", "a", L("f"), "d"}));
  EXPECT_TENSOR_EQ(RunBoth1("Transpose", {x, I32({2}, {1, 0})}), Str({3, 2}, {"a", "d", L("b"), "e", "c", L("f")}));
  EXPECT_TENSOR_EQ(RunBoth1("Tile", {Str({2}, {"p", L("q")}), I32({1}, {3})}),
                   Str({6}, {"p", L("q"), "p", L("q"), "p", L("q")}));
  EXPECT_TENSOR_EQ(RunBoth1("BroadcastTo", {Str({2}, {"p", L("q")}), I32({2}, {2, 2})}),
                   Str({2, 2}, {"p", L("q"), "p", L("q")}));
}

TEST(StringKernels, GatherAndFill) {
  const Tensor x = Str({3, 2}, {"a", "b", L("c"), "d", "e", L("f")});
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {x, I64({3}, {2, 0, 2}), Tensor::Scalar<int32_t>(0)}),
                   Str({3, 2}, {"e", L("f"), "a", "b", "e", L("f")}));
  EXPECT_TENSOR_EQ(RunBoth1("GatherV2", {x, I32({1}, {1}), Tensor::Scalar<int32_t>(1)}),
                   Str({3, 1}, {"b", "d", L("f")}));
  EXPECT_TRUE(FailsFed("GatherV2", {x, I32({1}, {3}), Tensor::Scalar<int32_t>(0)}, {}, "indices[0] = 3 is not in [0, 3)"));
  EXPECT_TENSOR_EQ(RunBoth1("Fill", {I32({2}, {2, 2}), Tensor::Scalar(L("v"))}),
                   Str({2, 2}, {L("v"), L("v"), L("v"), L("v")}));
}

TEST(StringKernels, EqualAndNotEqualCompareBytes) {
  const Tensor x = Str({3}, {"a", L("b"), std::string("\0", 1)});
  const Tensor y = Str({3}, {"a", L("c"), ""});
  EXPECT_TENSOR_EQ(RunBoth1("Equal", {x, y}), Bool({3}, {true, false, false}));
  EXPECT_TENSOR_EQ(RunBoth1("NotEqual", {x, y}), Bool({3}, {false, true, true}));
  EXPECT_TENSOR_EQ(RunBoth1("Equal", {x, Tensor::Scalar(std::string("a"))}), Bool({3}, {true, false, false}));
  EXPECT_TENSOR_EQ(RunBoth1("Equal", {Str({2, 1}, {"a", "b"}), Str({2}, {"a", "b"})}),
                   Bool({2, 2}, {true, false, false, true}));
}

TEST(StringKernels, SelectPicksStrings) {
  const Tensor t = Str({2, 2}, {L("a"), "b", "c", L("d")}), e = Str({2, 2}, {"w", "x", L("y"), "z"});
  EXPECT_TENSOR_EQ(RunBoth1("Select", {Bool({2, 2}, {true, false, false, true}), t, e}),
                   Str({2, 2}, {L("a"), "x", L("y"), L("d")}));
  EXPECT_TENSOR_EQ(RunBoth1("Select", {Bool({2}, {false, true}), t, e}), Str({2, 2}, {"w", "x", "c", L("d")}));
  EXPECT_TENSOR_EQ(RunBoth1("SelectV2", {Bool({}, {true}), t, Tensor::Scalar(std::string("s"))}), t);
}

TEST(StringKernels, StringJoin) {
  AttrMap dash = {{"separator", MakeAttr(std::string("-"))}};
  EXPECT_TENSOR_EQ(RunBoth1("StringJoin", {Str({2}, {"a", L("b")}), Tensor::Scalar(std::string("x")),
                                           Str({2}, {"1", ""})},
                            dash),
                   Str({2}, {"a-x-1", L("b") + "-x-"}));
  EXPECT_TENSOR_EQ(RunBoth1("StringJoin", {Tensor::Scalar(std::string("p")), Tensor::Scalar(std::string("q"))}),
                   Tensor::Scalar(std::string("pq")));
  EXPECT_TRUE(FailsBoth("StringJoin", {Str({2}, {"a", "b"}), Str({3}, {"a", "b", "c"})}, {},
                        "shape"));
}

TEST(StringKernels, WhereGivesCoordinatesOfTrueElements) {
  EXPECT_TENSOR_EQ(RunOpOk("Where", {Bool({2, 3}, {false, true, false, true, false, true})}),
                   I64({3, 2}, {0, 1, 1, 0, 1, 2}));
  EXPECT_TENSOR_EQ(RunOpOk("Where", {Bool({3}, {false, false, false})}), I64({0, 1}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("Where", {F32({3}, {0, -1.5f, 0})}), I64({1, 1}, {1}));
  EXPECT_TENSOR_EQ(RunOpOk("Where", {Bool({}, {true})}), I64({1, 0}, {}));
}

TEST(StringKernels, WhereReadsHalfAndComplexValues) {
  // -0 is zero for half; a complex value is non-zero when either part is.
  const Tensor h = testing::Make<half>({4}, {half(0.0f), half(-0.0f), half(2.5f), half(-1.0f)});
  EXPECT_TENSOR_EQ(RunOpOk("Where", {h}), I64({2, 1}, {2, 3}));
  const Tensor c = testing::Make<complex64>({3}, {{0, 0}, {0, -1}, {2, 0}});
  EXPECT_TENSOR_EQ(RunOpOk("Where", {c}), I64({2, 1}, {1, 2}));
}

}  // namespace
}  // namespace tw
