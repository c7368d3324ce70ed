#include "tensorweave/optimizers.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "tensorweave/gradients.h"
#include "tensorweave/session.h"
#include "tensorweave/variable_scope.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F64;

// loss = sum(c * w * w) with w = [1, -2] and c = [0.5, 0.25], so grad = 2 * c * w, which
// starts at [1, -1] and follows w from step to step.
struct Quadratic {
  Graph g;
  Variable w{g, constant(g, F64({2}, {1, -2}), "w_init"), "w"};
  Output loss = constant(g, F64({2}, {0.5, 0.25}), "c") * w * w;
};

// Runs `train` twice; returns w after each step.
std::vector<Tensor> TwoSteps(Quadratic& q, Operation train) {
  Session s(q.g);
  s.run(global_variables_initializer(q.g));
  std::vector<Tensor> after;
  for (int i = 0; i < 2; ++i) {
    s.run(train);
    after.push_back(s.run(q.w.value()));
  }
  return after;
}

TEST(OptimizerTest, GradientDescentTwoSteps) {
  // w -= 0.1 * grad: [1, -2] - 0.1 * [1, -1] = [0.9, -1.9]; then grad [0.9, -0.95].
  Quadratic q;
  GradientDescentOptimizer opt(0.1);
  auto w = TwoSteps(q, opt.minimize(q.loss));
  EXPECT_TENSOR_NEAR(w[0], F64({2}, {0.9, -1.9}), 1e-12);
  EXPECT_TENSOR_NEAR(w[1], F64({2}, {0.81, -1.805}), 1e-12);
  EXPECT_TRUE(opt.get_slot_names().empty());
}

TEST(OptimizerTest, MomentumTwoSteps) {
  // accum = 0.9 * accum + grad: [1, -1], then [0.9 + 0.9, -0.9 - 0.95] = [1.8, -1.85].
  Quadratic q;
  MomentumOptimizer opt(0.1, 0.9);
  auto w = TwoSteps(q, opt.minimize(q.loss));
  EXPECT_TENSOR_NEAR(w[0], F64({2}, {0.9, -1.9}), 1e-12);
  EXPECT_TENSOR_NEAR(w[1], F64({2}, {0.72, -1.715}), 1e-12);
  EXPECT_EQ(opt.get_slot(q.w, "momentum").name(), "w/Momentum");
  EXPECT_EQ(opt.get_slot_names(), std::vector<std::string>{"momentum"});
}

TEST(OptimizerTest, NesterovMomentumTwoSteps) {
  // w -= 0.1 * (grad + 0.9 * accum): [1 - 0.19, -2 + 0.19] = [0.81, -1.81], then
  // grad [0.81, -0.905], accum [1.71, -1.805].
  Quadratic q;
  MomentumOptimizer opt(0.1, 0.9, /*use_nesterov=*/true);
  auto w = TwoSteps(q, opt.minimize(q.loss));
  EXPECT_TENSOR_NEAR(w[0], F64({2}, {0.81, -1.81}), 1e-12);
  EXPECT_TENSOR_NEAR(w[1], F64({2}, {0.5751, -1.55705}), 1e-12);
}

TEST(OptimizerTest, AdagradTwoSteps) {
  // accum = 0.1 + grad^2 = [1.1, 1.1]; w -= 0.1 * grad / sqrt(1.1).
  Quadratic q;
  AdagradOptimizer opt(0.1);
  auto w = TwoSteps(q, opt.minimize(q.loss));
  EXPECT_TENSOR_NEAR(w[0], F64({2}, {0.9046537410754407, -1.9046537410754407}), 1e-12);
  EXPECT_TENSOR_NEAR(w[1], F64({2}, {0.8393387333251752, -1.837430366802218}), 1e-12);
  EXPECT_EQ(opt.get_slot(q.w, "accumulator").name(), "w/Adagrad");
}

TEST(OptimizerTest, RMSPropTwoSteps) {
  // rms starts at ones (TensorFlow 1.x) and stays 1 after grad^2 = 1;
  // mom = 0.01 * grad / sqrt(1 + 1e-10), then 0.5 * mom + 0.01 * grad / sqrt(rms + 1e-10).
  Quadratic q;
  RMSPropOptimizer opt(0.01, 0.9, 0.5);
  auto w = TwoSteps(q, opt.minimize(q.loss));
  EXPECT_TENSOR_NEAR(w[0], F64({2}, {0.9900000000005, -1.9900000000005}), 1e-12);
  EXPECT_TENSOR_NEAR(w[1], F64({2}, {0.9750901347749477, -1.97504503372304}), 1e-12);
  EXPECT_EQ(opt.get_slot(q.w, "rms").name(), "w/RMSProp");
  EXPECT_EQ(opt.get_slot(q.w, "momentum").name(), "w/RMSProp_1");
}

TEST(OptimizerTest, AdamTwoStepsAndBetaPowers) {
  // Step 1 moves each weight by about lr; step 2 uses beta powers 0.81 and 0.998001.
  Quadratic q;
  AdamOptimizer opt(0.1);
  Operation train = opt.minimize(q.loss);
  auto [beta1_power, beta2_power] = opt.get_beta_accumulators(q.g);
  Session s(q.g);
  s.run(global_variables_initializer(q.g));
  EXPECT_TENSOR_NEAR(s.run(beta1_power.value()), F64({}, {0.9}), 1e-15);
  s.run(train);
  EXPECT_TENSOR_NEAR(s.run(q.w.value()), F64({2}, {0.9000000316227665, -1.9000000316227665}),
                     1e-12);
  EXPECT_TENSOR_NEAR(s.run(opt.get_slot(q.w, "m").value()), F64({2}, {0.1, -0.1}), 1e-12);
  EXPECT_TENSOR_NEAR(s.run(opt.get_slot(q.w, "v").value()), F64({2}, {0.001, 0.001}), 1e-12);
  EXPECT_TENSOR_NEAR(s.run(beta1_power.value()), F64({}, {0.81}), 1e-15);
  EXPECT_TENSOR_NEAR(s.run(beta2_power.value()), F64({}, {0.998001}), 1e-15);
  s.run(train);
  EXPECT_TENSOR_NEAR(s.run(q.w.value()), F64({2}, {0.8004122825258161, -1.800166540062798}), 1e-12);
  EXPECT_TENSOR_NEAR(s.run(beta1_power.value()), F64({}, {0.729}), 1e-15);
  EXPECT_TENSOR_NEAR(s.run(beta2_power.value()), F64({}, {0.997002999}), 1e-15);
  EXPECT_EQ(beta1_power.name(), "beta1_power");
  EXPECT_EQ(opt.get_slot(q.w, "m").name(), "w/Adam");
  EXPECT_EQ(opt.get_slot(q.w, "v").name(), "w/Adam_1");
}

// Minimizing (w - 3)^2 from w = 0 drives the loss to about 0 and counts the steps.
void ExpectMinimizes(Optimizer& opt, int steps) {
  Graph g;
  Variable w(g, constant(g, 0.0), "w");
  Output diff = w - 3.0;
  Output loss = diff * diff;
  Variable step = get_or_create_global_step(g);
  Operation train = opt.minimize(loss, &step);
  Session s(g);
  s.run(global_variables_initializer(g));
  const double start = s.run(loss).scalar<double>();
  for (int i = 0; i < steps; ++i) s.run(train);
  EXPECT_EQ(start, 9);
  EXPECT_LT(s.run(loss).scalar<double>(), 1e-6) << opt.name();
  EXPECT_EQ(s.run(step.value()).scalar<int64_t>(), steps) << opt.name();
}

TEST(OptimizerTest, EveryOptimizerMinimizesAQuadratic) {
  GradientDescentOptimizer gd(0.1);
  ExpectMinimizes(gd, 100);
  MomentumOptimizer momentum(0.05, 0.9);
  ExpectMinimizes(momentum, 200);
  MomentumOptimizer nesterov(0.05, 0.9, true);
  ExpectMinimizes(nesterov, 200);
  AdagradOptimizer adagrad(1.0);
  ExpectMinimizes(adagrad, 200);
  RMSPropOptimizer rmsprop(0.05);
  ExpectMinimizes(rmsprop, 300);
  AdamOptimizer adam(0.1);
  ExpectMinimizes(adam, 300);
}

TEST(OptimizerTest, GlobalStep) {
  Graph g;
  Variable step = get_or_create_global_step(g);
  EXPECT_EQ(step.name(), "global_step");
  EXPECT_EQ(step.dtype(), DType::kInt64);
  EXPECT_EQ(step.shape().rank(), 0);
  EXPECT_EQ(get_or_create_global_step(g).handle().op().node(), step.handle().op().node());
  ASSERT_TRUE(get_global_step(g).has_value());
  EXPECT_EQ(g.get_collection(kGlobalStep).size(), 1u);
  EXPECT_TRUE(trainable_variables(g).empty());
  ASSERT_EQ(global_variables(g).size(), 1u);

  Variable w(g, constant(g, 1.0), "w");
  GradientDescentOptimizer opt(0.5);
  Operation train = opt.minimize(w * w, &step);
  Operation no_step = opt.minimize(w * w);
  Session s(g);
  s.run(global_variables_initializer(g));
  EXPECT_EQ(s.run(step.value()).scalar<int64_t>(), 0);
  s.run(train);
  s.run(train);
  s.run(no_step);
  EXPECT_EQ(s.run(step.value()).scalar<int64_t>(), 2);
  // w -= 0.5 * 2w halves... to 0 at once: 1 -> 0, and stays.
  EXPECT_EQ(s.run(w.value()).scalar<double>(), 0);
  Graph empty;
  EXPECT_FALSE(get_global_step(empty).has_value());
}

TEST(OptimizerTest, SlotsAreInitializedGlobalVariables) {
  Quadratic q;
  RMSPropOptimizer rms(0.01);
  AdagradOptimizer adagrad(0.1, 0.25);
  rms.minimize(q.loss);
  adagrad.minimize(q.loss);
  std::vector<std::string> names;
  for (const Variable& v : global_variables(q.g)) names.push_back(v.name());
  EXPECT_EQ(names, (std::vector<std::string>{"w", "w/RMSProp", "w/RMSProp_1", "w/Adagrad"}));
  ASSERT_EQ(trainable_variables(q.g).size(), 1u);
  Session s(q.g);
  s.run(global_variables_initializer(q.g));
  EXPECT_TENSOR_EQ(s.run(rms.get_slot(q.w, "rms").value()), F64({2}, {1, 1}));
  EXPECT_TENSOR_EQ(s.run(rms.get_slot(q.w, "momentum").value()), F64({2}, {0, 0}));
  EXPECT_TENSOR_EQ(s.run(adagrad.get_slot(q.w, "accumulator").value()), F64({2}, {0.25, 0.25}));
  EXPECT_STATUS(ErrorOf([&] { rms.get_slot(q.w, "m"); }), absl::StatusCode::kNotFound,
                "optimizer RMSProp has no slot 'm' for variable 'w'");
}

TEST(OptimizerTest, SlotsLiveOnTheVariablesDevice) {
  Graph g;
  Variable w;
  {
    auto on_ps = g.device("/job:ps/task:1");
    w = Variable(g, constant(g, F64({2}, {1, 2})), "w");
  }
  // A device function that would send everything elsewhere does not move the slots.
  auto elsewhere = g.device(
      [](const DeviceFunctionInput&) { return std::string("/job:ps/task:0"); });
  AdamOptimizer opt;
  opt.minimize(w * w);
  EXPECT_EQ(w.handle().op().device(), "/job:ps/task:1");
  EXPECT_EQ(opt.get_slot(w, "m").handle().op().device(), "/job:ps/task:1");
  EXPECT_EQ(opt.get_slot(w, "v").handle().op().device(), "/job:ps/task:1");
  EXPECT_EQ(opt.get_beta_accumulators(g).first.handle().op().device(), "/job:ps/task:1");
  EXPECT_EQ(g.operation("Adam/update_w/ResourceApplyAdam").device(), "/job:ps/task:1");
}

TEST(OptimizerTest, NamesUnderNameAndVariableScopes) {
  Graph g;
  auto ns = g.name_scope("train");
  Variable w;
  {
    auto vs = variable_scope(g, "layer");
    w = get_variable(g, "w", {2}, DType::kFloat, ones_initializer());
  }
  Variable step = get_or_create_global_step(g);
  AdamOptimizer opt(0.5);
  Operation train = opt.minimize(w * w, &step);
  EXPECT_EQ(train.name(), "train/Adam");
  EXPECT_EQ(train.type(), "AssignAddVariableOp");
  std::vector<std::string> names;
  for (const Variable& v : global_variables(g)) names.push_back(v.name());
  EXPECT_EQ(names, (std::vector<std::string>{"layer/w", "global_step", "beta1_power", "beta2_power",
                                             "layer/w/Adam", "layer/w/Adam_1"}));
  // A second optimizer of the same kind gets its own slots.
  AdamOptimizer other(0.5);
  Operation no_step = other.minimize(w * w);
  EXPECT_EQ(no_step.name(), "train/Adam_1");
  EXPECT_EQ(other.get_slot(w, "m").name(), "layer/w/Adam_2");
  EXPECT_EQ(other.get_beta_accumulators(g).first.name(), "beta1_power_1");
  Session s(g);
  s.run(global_variables_initializer(g));
  s.run(train);
  // The first Adam step moves by the learning rate.
  EXPECT_TENSOR_NEAR(s.run(w.value()), testing::F32({2}, {0.5f, 0.5f}), 1e-5);
  EXPECT_EQ(s.run(step.value()).scalar<int64_t>(), 1);
}

TEST(OptimizerTest, ComputeGradientsPairsEachVariable) {
  Graph g;
  Variable a(g, constant(g, 2.0), "a");
  Variable b(g, constant(g, 5.0), "b");
  Variable frozen(g, constant(g, 1.0), "frozen", /*trainable=*/false);
  Output loss = a * a * frozen;
  GradientDescentOptimizer opt(0.1);
  GradsAndVars gv = opt.compute_gradients(loss);
  ASSERT_EQ(gv.size(), 2u);  // Trainable variables only.
  EXPECT_EQ(gv[0].second.name(), "a");
  EXPECT_TRUE(HasGradient(gv[0].first));
  EXPECT_EQ(gv[1].second.name(), "b");
  EXPECT_FALSE(HasGradient(gv[1].first));  // The loss does not depend on b.
  Operation train = opt.apply_gradients(gv);
  EXPECT_EQ(train.name(), "GradientDescent");
  Session s(g);
  s.run(global_variables_initializer(g));
  EXPECT_TENSOR_NEAR(s.run(gv[0].first), F64({}, {4}), 1e-12);
  s.run(train);
  EXPECT_TENSOR_NEAR(s.run(a.value()), F64({}, {1.6}), 1e-12);
  EXPECT_TENSOR_NEAR(s.run(b.value()), F64({}, {5}), 0);

  // An explicit var_list restricts the update.
  Operation only_b = opt.minimize(loss + b * b, nullptr, {b});
  s.run(only_b);
  EXPECT_TENSOR_NEAR(s.run(a.value()), F64({}, {1.6}), 1e-12);
  EXPECT_TENSOR_NEAR(s.run(b.value()), F64({}, {4}), 1e-12);
}

TEST(OptimizerTest, NoGradientsAndNoVariablesAreErrors) {
  Graph g;
  Output c = constant(g, 3.0);
  GradientDescentOptimizer opt(0.1);
  EXPECT_STATUS(ErrorOf([&] { opt.minimize(c * c); }), absl::StatusCode::kInvalidArgument,
                "No variables to optimize.");
  Variable w(g, constant(g, 1.0), "w");
  EXPECT_STATUS(ErrorOf([&] { opt.minimize(c * c); }), absl::StatusCode::kInvalidArgument,
                "No gradients provided for any variable");
  EXPECT_STATUS(ErrorOf([&] { opt.apply_gradients({}); }), absl::StatusCode::kInvalidArgument,
                "No gradients provided for any variable");
  Variable i(g, constant(g, 1), "i");
  EXPECT_STATUS(ErrorOf([&] {
                  opt.apply_gradients({{constant(g, 1), i}});
                }),
                absl::StatusCode::kInvalidArgument,
                "variable 'i' has dtype int32; optimizers update float32 or float64 variables");
  EXPECT_STATUS(ErrorOf([&] {
                  opt.apply_gradients({{constant(g, 1.0f), w}});
                }),
                absl::StatusCode::kInvalidArgument,
                "the gradient of variable 'w' has dtype float32, not float64");
}

TEST(OptimizerTest, TensorLearningRateAndMixedDtypes) {
  Graph g;
  Variable w32(g, constant(g, 1.0f), "w32");
  Variable w64(g, constant(g, 1.0), "w64");
  Output lr = placeholder(g, DType::kFloat, PartialShape({}), "lr");
  GradientDescentOptimizer opt(lr);
  // One apply for both dtypes: the gradients of two losses.
  GradsAndVars gv = opt.compute_gradients(w32 * w32, {w32});
  GradsAndVars gv64 = opt.compute_gradients(w64 * w64, {w64});
  gv.insert(gv.end(), gv64.begin(), gv64.end());
  Operation train = opt.apply_gradients(gv);
  Session s(g);
  s.run(global_variables_initializer(g));
  s.run(train, {{lr, testing::F32({}, {0.25f})}});
  // grad 2w = 2: w -= 0.25 * 2 in both dtypes (lr cast to float64 for w64).
  EXPECT_TENSOR_NEAR(s.run(w32.value()), testing::F32({}, {0.5f}), 0);
  EXPECT_TENSOR_NEAR(s.run(w64.value()), F64({}, {0.5}), 0);
}

}  // namespace
}  // namespace tw
