// average_gradients: plain and weighted means of tower gradients, the weighted mean of
// slice losses equal to the whole batch's gradient, and the errors.
#include <gtest/gtest.h>

#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

TEST(AverageGradientsTest, PlainAndWeightedMeans) {
  Graph g;
  Variable w(g, constant(g, F32({2}, {1, 1})), "w");
  GradientDescentOptimizer sgd(0.1);
  // d(sum(w * c))/dw = c.
  GradsAndVars t0 = sgd.compute_gradients(reduce_sum(w * constant(g, F32({2}, {1, 2}))));
  GradsAndVars t1 = sgd.compute_gradients(reduce_sum(w * constant(g, F32({2}, {5, -2}))));
  GradsAndVars plain = average_gradients({t0, t1});
  GradsAndVars weighted = average_gradients({t0, t1}, {constant(g, 3), constant(g, 1)});
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].second.name(), "w");
  EXPECT_EQ(plain[0].first.op().name().rfind("average_gradients/", 0), 0u) << plain[0].first.op().name();
  Session sess(g);
  sess.run(global_variables_initializer(g));
  EXPECT_TENSOR_EQ(sess.run(plain[0].first), F32({2}, {3, 0}));
  EXPECT_TENSOR_EQ(sess.run(weighted[0].first), F32({2}, {2, 1}));  // (3*c0 + c1) / 4
}

TEST(AverageGradientsTest, SliceSizeWeightsGiveTheWholeBatchGradient) {
  Graph g;
  Variable a(g, constant(g, 0.5), "a");
  Variable b(g, constant(g, -0.25), "b");
  const Tensor xs = F64({5, 1}, {0.1, 0.7, -1.2, 2.0, 0.3});
  const Tensor ys = F64({5, 1}, {1.0, 0.0, 2.5, -1.0, 0.4});
  auto x = constant(g, xs), y = constant(g, ys);
  auto mse = [&](const Output& xi, const Output& yi) { return reduce_mean(square(xi * a + b - yi)); };
  GradientDescentOptimizer sgd(0.1);
  // Unequal slices: 3 and 2 examples.
  GradsAndVars t0 = sgd.compute_gradients(mse(slice(x, {0, 0}, {3, 1}), slice(y, {0, 0}, {3, 1})));
  GradsAndVars t1 = sgd.compute_gradients(mse(slice(x, {3, 0}, {2, 1}), slice(y, {3, 0}, {2, 1})));
  GradsAndVars averaged = average_gradients({t0, t1}, {constant(g, 3.0), constant(g, 2.0)});
  GradsAndVars whole = sgd.compute_gradients(mse(x, y));
  Session sess(g);
  sess.run(global_variables_initializer(g));
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TENSOR_NEAR(sess.run(averaged[i].first), sess.run(whole[i].first), 1e-12);
  }
  // The unweighted mean is not the whole batch's gradient when slices differ.
  GradsAndVars plain = average_gradients({t0, t1});
  EXPECT_GT(std::abs(sess.run(plain[0].first).scalar<double>() - sess.run(whole[0].first).scalar<double>()), 1e-3);
}

TEST(AverageGradientsTest, AVariableWithoutGradientsStaysEmpty) {
  Graph g;
  Variable w(g, constant(g, 1.0f), "w");
  Variable unused(g, constant(g, 2.0f), "unused");
  GradientDescentOptimizer sgd(0.1);
  GradsAndVars t0 = sgd.compute_gradients(w * 2.0f, {w, unused});
  GradsAndVars t1 = sgd.compute_gradients(w * 4.0f, {w, unused});
  GradsAndVars averaged = average_gradients({t0, t1});
  ASSERT_EQ(averaged.size(), 2u);
  EXPECT_FALSE(averaged[1].first.op().valid());
  Session sess(g);
  sess.run(global_variables_initializer(g));
  EXPECT_TENSOR_EQ(sess.run(averaged[0].first), F32({}, {3}));
}

TEST(AverageGradientsTest, Errors) {
  Graph g;
  Variable w(g, constant(g, 1.0f), "w");
  Variable v(g, constant(g, 2.0f), "v");
  GradientDescentOptimizer sgd(0.1);
  GradsAndVars both = sgd.compute_gradients(w * v, {w, v});
  GradsAndVars swapped = sgd.compute_gradients(w * v, {v, w});
  GradsAndVars only_w = sgd.compute_gradients(w * 2.0f, {w, v});
  GradsAndVars one = sgd.compute_gradients(w * v, {w});
  const auto code = absl::StatusCode::kInvalidArgument;
  EXPECT_STATUS(ErrorOf([&] { average_gradients({}); }), code, "average_gradients: no towers");
  EXPECT_STATUS(ErrorOf([&] { average_gradients({both, one}); }), code,
                "average_gradients: tower 1 has 1 gradients but tower 0 has 2");
  EXPECT_STATUS(ErrorOf([&] { average_gradients({both, swapped}); }), code,
                "average_gradients: tower 1 lists variable 'v' where tower 0 lists 'w'");
  EXPECT_STATUS(ErrorOf([&] { average_gradients({both, only_w}); }), code,
                "average_gradients: variable 'v' has a gradient in 1 of 2 towers");
  EXPECT_STATUS(ErrorOf([&] { average_gradients({both, both}, {constant(g, 1.0f)}); }), code,
                "average_gradients: 1 weights for 2 towers");
  EXPECT_STATUS(ErrorOf([&] {
                  average_gradients({both, both}, {constant(g, 1.0f), constant(g, F32({2}, {1, 1}))});
                }),
                code, "average_gradients: weight 1 has shape [2], not a scalar");
}

}  // namespace
}  // namespace tw
