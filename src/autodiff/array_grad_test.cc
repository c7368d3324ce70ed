// Gradients of the array ops against finite differences: reshapes, Slice and every kind
// of StridedSlice, joins and splits, Transpose, Tile, BroadcastTo, Fill and Pad, with
// static and unknown shapes.
#include <gtest/gtest.h>

#include "graph/attr_value.h"
#include "tensorweave/gradients.h"
#include "tensorweave/tensorweave.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F64;
using testing::RandomTensor;

Output Hide(const Output& x) { return placeholder_with_default(x, PartialShape::UnknownRank()); }

Output Ints(Graph& g, const std::vector<int32_t>& v) {
  return constant(g, v, TensorShape({static_cast<int64_t>(v.size())}));
}

Output AddOp(const std::string& op, const std::vector<Output>& inputs, AttrMap attrs = {}) {
  return inputs[0].graph()->AddOperation(op, op, inputs, attrs).output(0);
}

void CheckBothShapes(const std::function<Output(const Output&)>& f, const Tensor& x) {
  EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& in) { return f(in[0]); },
                      std::vector<Tensor>{x});
  EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& in) { return f(Hide(in[0])); },
                      std::vector<Tensor>{x});
}

TEST(ArrayGradTest, ReshapeSqueezeExpandDims) {
  const Tensor x = RandomTensor({2, 1, 3});
  CheckBothShapes([](const Output& x) { return reshape(x, {3, 2}); }, x);
  CheckBothShapes([](const Output& x) { return reshape(x, {-1}); }, x);
  CheckBothShapes([](const Output& x) { return squeeze(x); }, x);
  CheckBothShapes([](const Output& x) { return squeeze(x, {1}); }, x);
  CheckBothShapes([](const Output& x) { return expand_dims(x, 0); }, x);
  CheckBothShapes([](const Output& x) { return expand_dims(x, -1); }, x);
  // Reshape to a shape computed in the graph.
  CheckBothShapes([](const Output& x) { return reshape(x * 2.0, shape(x)); }, x);
}

TEST(ArrayGradTest, Slice) {
  const Tensor x = RandomTensor({4, 5});
  CheckBothShapes([](const Output& x) { return slice(x, {1, 2}, {2, 3}); }, x);
  CheckBothShapes([](const Output& x) { return slice(x, {0, 1}, {-1, 2}); }, x);
  CheckBothShapes([](const Output& x) { return slice(x, {3, 0}, {1, -1}); }, x);
  CheckBothShapes([](const Output& x) { return slice(x, {0, 0}, {4, 5}); }, x);
  CheckBothShapes([](const Output& x) { return slice(x, {2, 2}, {0, 2}); }, x);  // Empty slice.
  // int64 begin and size, given through Identity so they are unknown while building.
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& in) {
        return AddOp("Slice", {in[0], identity(constant(g, testing::I64({3}, {1, 0, 1}))),
                               identity(constant(g, testing::I64({3}, {1, -1, 2})))});
      },
      std::vector<Tensor>{RandomTensor({2, 2, 3})});
}

struct StridedCase {
  std::vector<int32_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
  const char* what;
};

Output StridedSlice(const Output& x, const StridedCase& c, bool wide = false) {
  Graph& g = *x.graph();
  auto vec = [&](const std::vector<int32_t>& v) {
    if (!wide) return Ints(g, v);
    Tensor t(DType::kInt64, TensorShape({static_cast<int64_t>(v.size())}));
    for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
    return constant(g, t);
  };
  return AddOp("StridedSlice", {x, vec(c.begin), vec(c.end), vec(c.strides)},
               {{"begin_mask", MakeAttr(c.begin_mask)},
                {"end_mask", MakeAttr(c.end_mask)},
                {"ellipsis_mask", MakeAttr(c.ellipsis_mask)},
                {"new_axis_mask", MakeAttr(c.new_axis_mask)},
                {"shrink_axis_mask", MakeAttr(c.shrink_axis_mask)}});
}

const std::vector<StridedCase>& StridedCases() {
  static const std::vector<StridedCase> cases = {
      {{1, 0, 1}, {3, 3, 4}, {1, 1, 2}, 0, 0, 0, 0, 0, "x[1:3, 0:3, 1:4:2]"},
      {{0, 1, 0}, {0, 3, 0}, {1, 1, 1}, 0b101, 0b101, 0, 0, 0, "x[:, 1:3, :] (begin/end masks)"},
      {{1, 0, 0}, {0, 2, 0}, {1, 1, 1}, 0b001, 0b100, 0, 0, 0, "x[:, 0:2, 0:] (mixed masks)"},
      {{0, 0, 0}, {0, 0, 0}, {-1, -1, -2}, 0b111, 0b111, 0, 0, 0, "x[::-1, ::-1, ::-2]"},
      {{2, 2, 3}, {0, 0, 0}, {-1, -2, -3}, 0, 0, 0, 0, 0, "x[2:0:-1, 2:0:-2, 3:0:-3]"},
      {{1, 0, -1}, {0, 0, 0}, {1, 2, 1}, 0b010, 0b011, 0, 0, 0b100, "x[1:, ::2, -1] (shrink)"},
      {{1, 2}, {2, 3}, {1, 1}, 0, 0, 0, 0, 0b11, "x[1, 2] (shrink two axes)"},
      {{0, 1}, {0, 2}, {1, 1}, 0, 0, 0b01, 0, 0b10, "x[..., 1] (ellipsis)"},
      {{1, 0, 2},
       {2, 0, 3},
       {1, 1, 1},
       0,
       0,
       0b010,
       0,
       0b101,
       "x[1, ..., 2] (ellipsis in the middle)"},
      {{0, 0, 0, 1},
       {0, 1, 0, 3},
       {1, 1, 1, 1},
       0b0100,
       0b0100,
       0,
       0b0001,
       0b0010,
       "x[newaxis, 0, :, 1:3] (new axis)"},
      {{0, 0}, {0, 0}, {1, 1}, 0, 0, 0b01, 0b10, 0, "x[..., newaxis]"},
      {{-2, -100, 0},
       {100, -1, 0},
       {1, 1, 1},
       0,
       0,
       0,
       0,
       0,
       "x[-2:100, -100:-1, 0:0] (clamped, empty)"},
      {{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0b111, 0b111, 0, 0, 0, "x[:, :, :] (identity)"},
  };
  return cases;
}

TEST(ArrayGradTest, StridedSliceEveryMaskKind) {
  const Tensor x = RandomTensor({3, 4, 5});
  for (const StridedCase& c : StridedCases()) {
    SCOPED_TRACE(c.what);
    CheckBothShapes([&](const Output& x) { return StridedSlice(x, c); }, x);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) { return StridedSlice(in[0], c, true); },
        std::vector<Tensor>{x});
  }
}

TEST(ArrayGradTest, StridedSliceGradValues) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({6}), "x");
  // x[5:0:-2] takes elements 5, 3, 1.
  auto y = StridedSlice(x, {{5}, {0}, {-2}, 0, 0, 0, 0, 0, ""});
  auto dx = gradients({y}, {x}, {constant(g, F64({3}, {10, 20, 30}))})[0];
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(dx, {{x, RandomTensor({6})}}), F64({6}, {0, 30, 0, 20, 0, 10}));
}

TEST(ArrayGradTest, StridedSliceGradSecondOrder) {
  // The gradient of x[1:, ::2] scattered back, differentiated w.r.t. its upstream values.
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& in) {
        Output y = StridedSlice(in[0], {{1, 0}, {0, 0}, {1, 2}, 0b00, 0b11, 0, 0, 0, ""});
        return gradients({y}, {in[0]}, {y * in[1]})[0];
      },
      (std::vector<Tensor>{RandomTensor({3, 4}, -1, 1, 1), RandomTensor({2, 2}, -1, 1, 2)}));
}

TEST(ArrayGradTest, PadAndItsGradient) {
  CheckBothShapes(
      [](const Output& x) {
        return AddOp("Pad", {x, constant(*x.graph(), testing::I32({2, 2}, {1, 0, 2, 1}))});
      },
      RandomTensor({2, 3}));
  CheckBothShapes(
      [](const Output& x) {
        return AddOp("Pad", {x, constant(*x.graph(), testing::I64({1, 2}, {0, 3}))});
      },
      RandomTensor({4}));
}

TEST(ArrayGradTest, ConcatOnAxes) {
  const std::vector<Tensor> inputs = {RandomTensor({2, 3}, -1, 1, 1),
                                      RandomTensor({2, 3}, -1, 1, 2),
                                      RandomTensor({2, 3}, -1, 1, 3)};
  for (int64_t axis : {0, 1, -1}) {
    SCOPED_TRACE(axis);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& x) {
          return concat({x[0], x[1], x[2]}, axis);
        },
        inputs);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& x) {
          return concat({Hide(x[0]), x[1], Hide(x[2])}, axis);
        },
        inputs);
    // The axis unknown while building.
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& x) {
          return AddOp("ConcatV2", {x[0], x[1], identity(constant(g, static_cast<int32_t>(axis)))});
        },
        inputs);
  }
  // Different sizes along the axis, the same input twice, and the old Concat.
  const std::vector<Tensor> uneven = {RandomTensor({2, 1}, -1, 1, 4),
                                      RandomTensor({2, 4}, -1, 1, 5)};
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) {
        return concat({x[0], x[1], x[0]}, 1);
      },
      uneven);
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& x) {
        return AddOp("Concat", {constant(g, 1), x[0], Hide(x[1])});
      },
      uneven);
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& x) {
        return AddOp("ConcatV2", {x[0], x[1], constant(g, testing::I64({}, {-1}))});
      },
      uneven);
}

TEST(ArrayGradTest, PackAndUnpack) {
  const std::vector<Tensor> inputs = {RandomTensor({2, 3}, -1, 1, 1),
                                      RandomTensor({2, 3}, -1, 1, 2)};
  for (int64_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& x) {
          return stack({x[0], x[1]}, axis);
        },
        inputs);
  }
  for (int64_t axis : {0, 1, -1}) {
    SCOPED_TRACE(axis);
    // Every piece used, and only one (the others get zeros).
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& x) {
          const int64_t num = x[0].shape().dim(axis < 0 ? 1 : static_cast<int>(axis));
          Operation op = g.AddOperation("Unpack", "Unpack", {x[0]},
                                        {{"num", MakeAttr(num)}, {"axis", MakeAttr(axis)}});
          Output sum = op.output(0);
          for (int i = 1; i < op.num_outputs(); ++i)
            sum = sum + op.output(i) * static_cast<double>(i + 1);
          return sum;
        },
        std::vector<Tensor>{inputs[0]});
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& x) {
          const int64_t num = x[0].shape().dim(axis < 0 ? 1 : static_cast<int>(axis));
          return g
              .AddOperation("Unpack", "Unpack", {x[0]},
                            {{"num", MakeAttr(num)}, {"axis", MakeAttr(axis)}})
              .output(1);
        },
        std::vector<Tensor>{inputs[0]});
  }
}

TEST(ArrayGradTest, SplitAndSplitV) {
  const Tensor x = RandomTensor({4, 6});
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& in) {
        std::vector<Output> parts = split(in[0], 3, 1);
        return parts[0] * parts[2] + parts[1];
      },
      std::vector<Tensor>{x});
  // Only one piece used: the rest get zeros.
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& in) { return split(Hide(in[0]), 2, 0)[1]; },
      std::vector<Tensor>{x});
  // Unequal sizes, one inferred (-1), negative axis.
  for (bool hide : {false, true}) {
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& in) {
          Operation op =
              g.AddOperation("SplitV", "SplitV",
                             {hide ? Hide(in[0]) : in[0], Ints(g, {1, -1, 2}), constant(g, -1)},
                             {{"num_split", MakeAttr(int64_t{3})}});
          return concat({op.output(2) * 3.0, op.output(0)}, 1);
        },
        std::vector<Tensor>{x});
  }
}

TEST(ArrayGradTest, Transpose) {
  const Tensor x = RandomTensor({2, 3, 4});
  for (const Axes& perm : {Axes{0, 1, 2}, Axes{2, 0, 1}, Axes{1, 2, 0}, Axes{2, 1, 0}}) {
    CheckBothShapes([&](const Output& x) { return transpose(x, perm); }, x);
    // The permutation unknown while building: inverted in the graph.
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& in) {
          std::vector<int32_t> p(perm.begin(), perm.end());
          return AddOp("Transpose", {in[0], identity(Ints(g, p))});
        },
        std::vector<Tensor>{x});
  }
}

TEST(ArrayGradTest, Tile) {
  CheckBothShapes([](const Output& x) { return tile(x, {2, 3}); }, RandomTensor({2, 3}));
  CheckBothShapes([](const Output& x) { return tile(x, {1, 2, 1}); }, RandomTensor({2, 1, 3}));
  CheckBothShapes([](const Output& x) { return tile(x, {3}); }, RandomTensor({2}));
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& in) {
        return AddOp("Tile", {Hide(in[0]), identity(constant(g, testing::I64({2}, {2, 2})))});
      },
      std::vector<Tensor>{RandomTensor({3, 2})});
}

TEST(ArrayGradTest, BroadcastTo) {
  CheckBothShapes(
      [](const Output& x) {
        return AddOp("BroadcastTo", {x, Ints(*x.graph(), {2, 3, 4})});
      },
      RandomTensor({3, 1}));
  CheckBothShapes(
      [](const Output& x) {
        return AddOp("BroadcastTo", {x, Ints(*x.graph(), {2, 3})});
      },
      RandomTensor({2, 3}));
  CheckBothShapes(
      [](const Output& x) {
        return AddOp("BroadcastTo", {x, Ints(*x.graph(), {4, 2})});
      },
      RandomTensor({}));
}

TEST(ArrayGradTest, FillValue) {
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& in) {
        return fill(g, {2, 3}, in[0]);
      },
      std::vector<Tensor>{RandomTensor({})});
  Graph g;
  auto v = placeholder(g, DType::kDouble, PartialShape({}), "v");
  auto dv = gradients({fill(g, {2, 3}, v)}, {v})[0];
  Session sess(g);
  EXPECT_DOUBLE_EQ(sess.run(dv, {{v, Tensor::Scalar(1.5)}}).scalar<double>(), 6.0);
}

TEST(ArrayGradTest, ShapeOpsCarryNoGradient) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2, 3}), "x");
  // Shape, ZerosLike and OnesLike depend on x only through its shape.
  auto y = x * fill(g, {2, 3}, constant(g, 1.0)) + zeros_like(x) + ones_like(x);
  auto grads = gradients({reshape(y, shape(x))}, {x});
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(grads[0], {{x, RandomTensor({2, 3})}}),
                   F64({2, 3}, {1, 1, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace tw
