// Gradients of Sum, Mean, Max, Min and Prod against finite differences, with and
// without keep_dims, negative and int64 axes, unknown shapes, ties and zeros.
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

// op(x, axes) with the axes as a Const vector (int64 when `wide`).
Output Reduce(const std::string& op, const Output& x, const std::vector<int64_t>& axes,
              bool keep_dims, bool wide = false) {
  Graph& g = *x.graph();
  Tensor t(wide ? DType::kInt64 : DType::kInt32, TensorShape({static_cast<int64_t>(axes.size())}));
  for (size_t i = 0; i < axes.size(); ++i) {
    if (wide) {
      t.data<int64_t>()[i] = axes[i];
    } else {
      t.data<int32_t>()[i] = static_cast<int32_t>(axes[i]);
    }
  }
  return g.AddOperation(op, op, {x, constant(g, t)}, {{"keep_dims", MakeAttr(keep_dims)}})
      .output(0);
}

// x with its static shape hidden, so gradient functions must take shapes from the graph.
Output Unknown(const Output& x) { return placeholder_with_default(x, PartialShape::UnknownRank()); }

struct AxesCase {
  std::vector<int64_t> axes;
  bool keep_dims;
};

const std::vector<AxesCase>& Cases() {
  static const std::vector<AxesCase> cases = {
      {{1}, false},      {{1}, true},        {{0, 2}, false},   {{-1}, true},
      {{-3, -1}, false}, {{0, 1, 2}, false}, {{0, 1, 2}, true}, {{}, false}};
  return cases;
}

void CheckAllCases(const std::string& op, const Tensor& x) {
  for (const AxesCase& c : Cases()) {
    SCOPED_TRACE(::testing::Message()
                 << op << " axes size " << c.axes.size() << " keep_dims " << c.keep_dims);
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) {
          return Reduce(op, in[0], c.axes, c.keep_dims);
        },
        std::vector<Tensor>{x});
    // Unknown input shape, and (through Identity) axes unknown while building.
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) {
          return Reduce(op, Unknown(in[0]), c.axes, c.keep_dims);
        },
        std::vector<Tensor>{x});
    EXPECT_GRADIENTS_OK(
        [&](Graph& g, const std::vector<Output>& in) {
          Tensor t(DType::kInt32, TensorShape({static_cast<int64_t>(c.axes.size())}));
          for (size_t i = 0; i < c.axes.size(); ++i)
            t.data<int32_t>()[i] = static_cast<int32_t>(c.axes[i]);
          return g
              .AddOperation(op, op, {in[0], identity(constant(g, t))},
                            {{"keep_dims", MakeAttr(c.keep_dims)}})
              .output(0);
        },
        std::vector<Tensor>{x});
  }
}

TEST(ReductionGradTest, Sum) { CheckAllCases("Sum", RandomTensor({2, 3, 4})); }

TEST(ReductionGradTest, Mean) { CheckAllCases("Mean", RandomTensor({2, 3, 4}, -1, 1, 3)); }

TEST(ReductionGradTest, MaxAndMinWithoutTies) {
  // Distinct values: the gradient goes to one element per group.
  CheckAllCases("Max", RandomTensor({2, 3, 4}, -1, 1, 5));
  CheckAllCases("Min", RandomTensor({2, 3, 4}, -1, 1, 6));
}

TEST(ReductionGradTest, Int64AxesAndScalarAxis) {
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& x) { return Reduce("Mean", x[0], {-2}, false, true); },
      std::vector<Tensor>{RandomTensor({3, 2})});
  EXPECT_GRADIENTS_OK(
      [](Graph& g, const std::vector<Output>& x) {
        return g.AddOperation("Max", "Max", {Unknown(x[0]), constant(g, 1)}, {}).output(0);
      },
      std::vector<Tensor>{RandomTensor({3, 2})});
}

TEST(ReductionGradTest, MeanGradientValues) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2, 4}), "x");
  auto dx = gradients({Reduce("Mean", Unknown(x), {1}, false)}, {x})[0];
  Session sess(g);
  EXPECT_TENSOR_NEAR(sess.run(dx, {{x, RandomTensor({2, 4})}}),
                     F64({2, 4}, std::vector<double>(8, 0.25)), 1e-12);
}

TEST(ReductionGradTest, MaxTiesShareTheGradient) {
  // Two-way ties: central differences see half the slope at each tied element.
  const Tensor x = F64({2, 3}, {1, 3, 3, 2, 2, 0.5});
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& in) { return Reduce("Max", in[0], {1}, false); },
      std::vector<Tensor>{x});
  EXPECT_GRADIENTS_OK(
      [](Graph&, const std::vector<Output>& in) { return Reduce("Min", in[0], {0}, true); },
      std::vector<Tensor>{F64({2, 3}, {1, 3, 0.5, 1, 2, 0.5})});
  // Three-way tie: a third each.
  Graph g;
  auto p = placeholder(g, DType::kDouble, PartialShape({4}), "p");
  auto dp = gradients({Reduce("Max", p, {0}, false)}, {p})[0];
  Session sess(g);
  EXPECT_TENSOR_NEAR(sess.run(dp, {{p, F64({4}, {5, 1, 5, 5})}}),
                     F64({4}, {1.0 / 3, 0, 1.0 / 3, 1.0 / 3}), 1e-12);
}

TEST(ReductionGradTest, Prod) {
  CheckAllCases("Prod", RandomTensor({2, 3, 4}, 0.5, 1.5, 8));
  CheckAllCases("Prod", RandomTensor({2, 3, 4}, -1, 1, 9));
}

TEST(ReductionGradTest, ProdWithZeros) {
  // Row 0: no zero; row 1: one zero; row 2: two zeros.
  const Tensor x = F64({3, 3}, {2, -3, 0.5, 4, 0, -2, 0, 3, 0});
  for (bool keep : {false, true}) {
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) { return Reduce("Prod", in[0], {1}, keep); },
        std::vector<Tensor>{x});
    EXPECT_GRADIENTS_OK(
        [&](Graph&, const std::vector<Output>& in) {
          return Reduce("Prod", Unknown(in[0]), {-1}, keep);
        },
        std::vector<Tensor>{x});
  }
  Graph g;
  auto p = placeholder(g, DType::kDouble, PartialShape({3, 3}), "p");
  auto dp = gradients({Reduce("Prod", p, {1}, false)}, {p})[0];
  Session sess(g);
  EXPECT_TENSOR_NEAR(sess.run(dp, {{p, x}}), F64({3, 3}, {-1.5, 1, -6, 0, -8, 0, 0, 0, 0}), 1e-12);
  // Columns: column 1 has one zero, the others none or two.
  EXPECT_GRADIENTS_OK(
      [&](Graph&, const std::vector<Output>& in) { return Reduce("Prod", in[0], {0}, false); },
      std::vector<Tensor>{x});
}

TEST(ReductionGradTest, ArgMaxHasNoGradient) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2, 3}), "x");
  // The ArgMax -> OneHot path is integer and carries nothing; only the direct use of x.
  auto y = one_hot(argmax(x, 1), 3, 1, 0, -1, DType::kDouble) * x;
  auto dx = gradients({y}, {x})[0];
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(dx, {{x, F64({2, 3}, {0, 5, 1, 7, 2, 3})}}),
                   F64({2, 3}, {0, 1, 0, 1, 0, 0}));
}

}  // namespace
}  // namespace tw
