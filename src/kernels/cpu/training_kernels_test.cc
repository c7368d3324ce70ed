// The ResourceApplyXxx kernels: two steps of each against values worked out by hand
// from TensorFlow's formulas, then the checks (initialized, shapes, scalars, dtypes),
// copy-on-write and locking.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "graph/attr_value.h"
#include "tensorweave/session.h"
#include "tensorweave/variables.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::F32;
using testing::F64;

// A graph with variables (handles first in the op's inputs) and placeholders for the
// op's other inputs, fed anew at each step.
class ApplyGraph {
 public:
  ApplyGraph(const std::string& op, const std::vector<std::pair<std::string, Tensor>>& vars,
             const std::vector<std::pair<std::string, DType>>& args, AttrMap attrs = {}) {
    std::vector<Output> inputs;
    for (const auto& [name, value] : vars) {
      vars_.emplace_back(g_, constant(g_, value, name + "_init"), name);
      inputs.push_back(vars_.back().handle());
    }
    for (const auto& [name, dtype] : args) {
      args_.push_back(placeholder(g_, dtype, PartialShape::UnknownRank(), name));
      inputs.push_back(args_.back());
    }
    op_ = g_.AddOperation(op, op, inputs,
                          std::map<std::string, AttrValue>(attrs.begin(), attrs.end()));
    for (const Variable& v : vars_) values_.push_back(v.value());
    init_ = global_variables_initializer(g_);
  }

  // Runs the initializers (all, or only those of the variables named).
  void Init(const std::vector<int>& only = {}) {
    if (only.empty()) return session_.run(init_);
    for (int i : only) session_.run(vars_[i].initializer());
  }
  // One update with these argument values; returns the error, if any.
  Status Step(const std::vector<Tensor>& args) {
    FeedDict feeds;
    for (size_t i = 0; i < args.size(); ++i) feeds.emplace_back(args_[i], args[i]);
    try {
      session_.run(op_, feeds);
    } catch (const StatusError& e) {
      return e.status();
    }
    return absl::OkStatus();
  }
  void StepOk(const std::vector<Tensor>& args) {
    Status s = Step(args);
    ASSERT_TRUE(s.ok()) << s;
  }
  Tensor Value(int i) { return session_.run(values_[i]); }
  Session& session() { return session_; }
  Operation op() const { return op_; }

 private:
  Graph g_;
  std::vector<Variable> vars_;
  std::vector<Output> args_, values_;
  Operation op_, init_;
  Session session_{g_};
};

TEST(ResourceApplyGradientDescentTest, TwoSteps) {
  // var -= alpha * delta: [1, 2] - 0.5 * [0.2, -0.4] = [0.9, 2.2], then [0.8, 2.4].
  ApplyGraph a("ResourceApplyGradientDescent", {{"w", F64({2}, {1, 2})}},
               {{"alpha", DType::kDouble}, {"delta", DType::kDouble}});
  a.Init();
  a.StepOk({F64({}, {0.5}), F64({2}, {0.2, -0.4})});
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.9, 2.2}), 1e-12);
  a.StepOk({F64({}, {0.5}), F64({2}, {0.2, -0.4})});
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.8, 2.4}), 1e-12);
}

TEST(ResourceApplyGradientDescentTest, Float32) {
  ApplyGraph a("ResourceApplyGradientDescent", {{"w", F32({2, 1}, {1, 2})}},
               {{"alpha", DType::kFloat}, {"delta", DType::kFloat}});
  a.Init();
  a.StepOk({F32({}, {0.5f}), F32({2, 1}, {0.2f, -0.4f})});
  a.StepOk({F32({}, {0.5f}), F32({2, 1}, {0.2f, -0.4f})});
  EXPECT_TENSOR_NEAR(a.Value(0), F32({2, 1}, {0.8f, 2.4f}), 1e-6);
}

// accum = accum * momentum + grad; var -= lr * accum, with lr 0.1, momentum 0.9,
// grad [1, -2] from var [1, 2], accum [0.5, 0]:
//   step 1: accum = [1.45, -2], var = [1 - 0.145, 2 + 0.2] = [0.855, 2.2]
//   step 2: accum = [2.305, -3.8], var = [0.855 - 0.2305, 2.2 + 0.38] = [0.6245, 2.58]
TEST(ResourceApplyMomentumTest, TwoSteps) {
  ApplyGraph a("ResourceApplyMomentum", {{"w", F64({2}, {1, 2})}, {"acc", F64({2}, {0.5, 0})}},
               {{"lr", DType::kDouble}, {"grad", DType::kDouble}, {"momentum", DType::kDouble}});
  a.Init();
  const std::vector<Tensor> args = {F64({}, {0.1}), F64({2}, {1, -2}), F64({}, {0.9})};
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.855, 2.2}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {1.45, -2}), 1e-12);
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.6245, 2.58}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {2.305, -3.8}), 1e-12);
}

// Nesterov: var -= grad * lr + accum * momentum * lr (accum as above):
//   step 1: var = [1 - (0.1 + 0.1305), 2 - (-0.2 - 0.18)] = [0.7695, 2.38]
//   step 2: var = [0.7695 - (0.1 + 0.20745), 2.38 - (-0.2 - 0.342)] = [0.46205, 2.922]
TEST(ResourceApplyMomentumTest, NesterovTwoSteps) {
  ApplyGraph a("ResourceApplyMomentum", {{"w", F32({2}, {1, 2})}, {"acc", F32({2}, {0.5f, 0})}},
               {{"lr", DType::kFloat}, {"grad", DType::kFloat}, {"momentum", DType::kFloat}},
               {{"use_nesterov", MakeAttr(true)}});
  a.Init();
  const std::vector<Tensor> args = {F32({}, {0.1f}), F32({2}, {1, -2}), F32({}, {0.9f})};
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F32({2}, {0.7695f, 2.38f}), 1e-6);
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F32({2}, {0.46205f, 2.922f}), 1e-6);
  EXPECT_TENSOR_NEAR(a.Value(1), F32({2}, {2.305f, -3.8f}), 1e-6);
}

// accum += grad^2; var -= lr * grad / sqrt(accum), lr 0.5, grad [0.3, -0.4], accum [0.1, 0.1]:
//   step 1: accum = [0.19, 0.26], var = [1 - 0.15/sqrt(0.19), 2 + 0.2/sqrt(0.26)]
//   step 2: accum = [0.28, 0.42], var -= [0.15/sqrt(0.28), -0.2/sqrt(0.42)]
TEST(ResourceApplyAdagradTest, TwoSteps) {
  ApplyGraph a("ResourceApplyAdagrad", {{"w", F64({2}, {1, 2})}, {"acc", F64({2}, {0.1, 0.1})}},
               {{"lr", DType::kDouble}, {"grad", DType::kDouble}});
  a.Init();
  const std::vector<Tensor> args = {F64({}, {0.5}), F64({2}, {0.3, -0.4})};
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.6558763991941574, 2.392232270276368}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.19, 0.26}), 1e-12);
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.37240304443723704, 2.7008389702005515}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.28, 0.42}), 1e-12);
}

// update_slots=false leaves accum at 0.1: var -= 0.5 * grad / sqrt(0.1) each step.
TEST(ResourceApplyAdagradTest, WithoutSlotUpdates) {
  ApplyGraph a("ResourceApplyAdagrad", {{"w", F64({2}, {1, 2})}, {"acc", F64({2}, {0.1, 0.1})}},
               {{"lr", DType::kDouble}, {"grad", DType::kDouble}},
               {{"update_slots", MakeAttr(false)}});
  a.Init();
  const std::vector<Tensor> args = {F64({}, {0.5}), F64({2}, {0.3, -0.4})};
  a.StepOk(args);
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.05131670194948623, 3.264911064067352}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.1, 0.1}), 1e-12);
}

// ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / sqrt(ms + epsilon);
// var -= mom, with lr 0.01, rho 0.9, momentum 0.5, epsilon 0.01, grad [0.3, -0.4],
// ms [1, 1], mom [0, 0]:
//   step 1: ms = [0.909, 0.916], mom = [0.003/sqrt(0.919), -0.004/sqrt(0.926)]
//   step 2: ms = [0.8271, 0.8404], mom = mom/2 + [0.003/sqrt(0.8371), -0.004/sqrt(0.8504)]
TEST(ResourceApplyRMSPropTest, TwoSteps) {
  ApplyGraph a("ResourceApplyRMSProp",
               {{"w", F64({2}, {1, 2})}, {"ms", F64({2}, {1, 1})}, {"mom", F64({2}, {0, 0})}},
               {{"lr", DType::kDouble},
                {"rho", DType::kDouble},
                {"momentum", DType::kDouble},
                {"epsilon", DType::kDouble},
                {"grad", DType::kDouble}});
  a.Init();
  const std::vector<Tensor> args = {F64({}, {0.01}), F64({}, {0.9}), F64({}, {0.5}),
                                    F64({}, {0.01}), F64({2}, {0.3, -0.4})};
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.9968705825563768, 2.004156755671264}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.909, 0.916}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(2), F64({2}, {0.0031294174436231207, -0.004156755671263727}), 1e-12);
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.9920269405239478, 2.010572722174214}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.8271, 0.8404}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(2), F64({2}, {0.004843642032429091, -0.006415966502950209}), 1e-12);
}

std::vector<std::pair<std::string, DType>> AdamArgs() {
  std::vector<std::pair<std::string, DType>> args;
  for (const char* name :
       {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"}) {
    args.emplace_back(name, DType::kDouble);
  }
  return args;
}
std::vector<Tensor> AdamStepArgs(double beta1_power, double beta2_power) {
  return {F64({}, {beta1_power}), F64({}, {beta2_power}), F64({}, {0.1}),       F64({}, {0.9}),
          F64({}, {0.999}),       F64({}, {1e-8}),        F64({2}, {0.3, -0.4})};
}

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m += (grad - m) * (1 - beta1);
// v += (grad^2 - v) * (1 - beta2); var -= lr_t * m / (sqrt(v) + epsilon), lr 0.1, grad
// [0.3, -0.4] twice (beta powers 0.9, 0.999 then 0.81, 0.998001):
//   step 1: m = [0.03, -0.04], v = [9e-5, 1.6e-4], and var moves by lr: [0.9, 2.1]
//   step 2: m = [0.057, -0.076], v = [1.7991e-4, 3.1984e-4], var moves by ~lr again.
TEST(ResourceApplyAdamTest, TwoSteps) {
  ApplyGraph a("ResourceApplyAdam",
               {{"w", F64({2}, {1, 2})}, {"m", F64({2}, {0, 0})}, {"v", F64({2}, {0, 0})}},
               AdamArgs());
  a.Init();
  a.StepOk(AdamStepArgs(0.9, 0.999));
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.9000001054091442, 2.099999920943121}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.03, -0.04}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(2), F64({2}, {9e-5, 1.6e-4}), 1e-15);
  a.StepOk(AdamStepArgs(0.81, 0.998001));
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.8000001799633295, 2.199999865027471}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(1), F64({2}, {0.057, -0.076}), 1e-12);
  EXPECT_TENSOR_NEAR(a.Value(2), F64({2}, {1.7991e-4, 3.1984e-4}), 1e-15);
}

// Nesterov replaces m in the step by grad * (1 - beta1) + beta1 * m.
TEST(ResourceApplyAdamTest, NesterovTwoSteps) {
  ApplyGraph a("ResourceApplyAdam",
               {{"w", F64({2}, {1, 2})}, {"m", F64({2}, {0, 0})}, {"v", F64({2}, {0, 0})}},
               AdamArgs(), {{"use_nesterov", MakeAttr(true)}});
  a.Init();
  a.StepOk(AdamStepArgs(0.9, 0.999));
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.8100002002773741, 2.18999984979193}), 1e-12);
  a.StepOk(AdamStepArgs(0.81, 0.998001));
  EXPECT_TENSOR_NEAR(a.Value(0), F64({2}, {0.6673687276678173, 2.3326313489859247}), 1e-12);
}

TEST(ResourceApplyTest, UninitializedSlotIsFailedPreconditionNamingIt) {
  ApplyGraph a("ResourceApplyMomentum", {{"w", F64({2}, {1, 2})}, {"acc", F64({2}, {0, 0})}},
               {{"lr", DType::kDouble}, {"grad", DType::kDouble}, {"momentum", DType::kDouble}});
  const std::vector<Tensor> args = {F64({}, {0.1}), F64({2}, {1, -2}), F64({}, {0.9})};
  EXPECT_STATUS(a.Step(args), absl::StatusCode::kFailedPrecondition,
                "var variable 'w' is uninitialized");
  a.Init({0});
  EXPECT_STATUS(a.Step(args), absl::StatusCode::kFailedPrecondition,
                "accum variable 'acc' is uninitialized (run its initializer");
  // Nothing was written by the failed steps.
  EXPECT_TENSOR_EQ(a.Value(0), F64({2}, {1, 2}));
}

TEST(ResourceApplyTest, ShapeMismatchesAreInvalidArgument) {
  ApplyGraph a("ResourceApplyAdagrad", {{"w", F64({2}, {1, 2})}, {"acc", F64({3}, {1, 1, 1})}},
               {{"lr", DType::kDouble}, {"grad", DType::kDouble}});
  a.Init();
  EXPECT_STATUS(a.Step({F64({}, {0.1}), F64({2}, {1, 1})}), absl::StatusCode::kInvalidArgument,
                "var 'w' and accum 'acc' do not have the same shape: [2] vs [3]");

  ApplyGraph b("ResourceApplyGradientDescent", {{"w", F64({2}, {1, 2})}},
               {{"alpha", DType::kDouble}, {"delta", DType::kDouble}});
  b.Init();
  EXPECT_STATUS(b.Step({F64({}, {0.1}), F64({3}, {1, 1, 1})}), absl::StatusCode::kInvalidArgument,
                "var 'w' and grad do not have the same shape: [2] vs [3]");
  EXPECT_STATUS(b.Step({F64({1}, {0.1}), F64({2}, {1, 1})}), absl::StatusCode::kInvalidArgument,
                "alpha is not a scalar: [1]");
  EXPECT_TENSOR_EQ(b.Value(0), F64({2}, {1, 2}));
}

TEST(ResourceApplyTest, NonScalarHyperparameterKnownStaticallyFailsAtBuildTime) {
  Graph g;
  Variable w(g, constant(g, std::vector<float>{1, 2}, TensorShape({2})), "w");
  Output lr = constant(g, std::vector<float>{1, 2}, TensorShape({2}));
  try {
    g.AddOperation("ResourceApplyGradientDescent", "apply", {w.handle(), lr, w.read()}, {});
    ADD_FAILURE() << "expected an error";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "node 'apply'");
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "alpha is not a scalar: [2]");
  }
}

TEST(ResourceApplyTest, DtypeMismatchAndAliasedSlots) {
  // A float64 variable updated with float32 values.
  ApplyGraph a("ResourceApplyGradientDescent", {{"w", F64({2}, {1, 2})}},
               {{"alpha", DType::kFloat}, {"delta", DType::kFloat}});
  a.Init();
  EXPECT_STATUS(a.Step({F32({}, {0.1f}), F32({2}, {1, 1})}), absl::StatusCode::kInvalidArgument,
                "var variable 'w' has dtype float64 but the update has dtype float32");

  // The same variable as var and accum.
  Graph g;
  Variable w(g, constant(g, std::vector<float>{1, 2}, TensorShape({2})), "w");
  Operation apply = g.AddOperation("ResourceApplyAdagrad", "apply",
                                   {w.handle(), w.handle(), constant(g, 0.1f), w.read()}, {});
  Session s(g);
  s.run(w.initializer());
  try {
    s.run(apply);
    ADD_FAILURE() << "expected an error";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument,
                  "var and accum name the same variable 'w'");
  }
}

TEST(ResourceApplyTest, ValuesReadBeforeAnUpdateDoNotChange) {
  ApplyGraph a("ResourceApplyMomentum", {{"w", F32({2}, {1, 2})}, {"acc", F32({2}, {0.5f, 0})}},
               {{"lr", DType::kFloat}, {"grad", DType::kFloat}, {"momentum", DType::kFloat}});
  a.Init();
  const std::vector<Tensor> args = {F32({}, {0.1f}), F32({2}, {1, -2}), F32({}, {0.9f})};
  // The fetched values share the variables' buffers until the update copies.
  Tensor w0 = a.Value(0), acc0 = a.Value(1);
  a.StepOk(args);
  EXPECT_TENSOR_EQ(w0, F32({2}, {1, 2}));
  EXPECT_TENSOR_EQ(acc0, F32({2}, {0.5f, 0}));
  Tensor w1 = a.Value(0);
  EXPECT_TENSOR_NEAR(w1, F32({2}, {0.855f, 2.2f}), 1e-6);
  // Once nobody holds the old buffers the update is in place; values are the same.
  w0 = Tensor();
  w1 = Tensor();
  acc0 = Tensor();
  a.StepOk(args);
  EXPECT_TENSOR_NEAR(a.Value(0), F32({2}, {0.6245f, 2.58f}), 1e-6);
  EXPECT_TENSOR_NEAR(a.Value(1), F32({2}, {2.305f, -3.8f}), 1e-6);
}

TEST(ResourceApplyTest, ConcurrentUpdatesLoseNothing) {
  // Each step adds exactly 1 to every element (alpha 1, delta -1). The variable is large
  // enough that unlocked steps would overlap and lose read-modify-writes.
  constexpr int64_t kSize = 1 << 20;
  constexpr int kThreads = 8, kSteps = 10;
  Tensor zeros(DType::kFloat, TensorShape({kSize})), minus_one(DType::kFloat, TensorShape({kSize}));
  std::fill_n(zeros.data<float>(), kSize, 0.0f);
  std::fill_n(minus_one.data<float>(), kSize, -1.0f);
  ApplyGraph a("ResourceApplyGradientDescent", {{"w", zeros}},
               {{"alpha", DType::kFloat}, {"delta", DType::kFloat}});
  a.Init();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kSteps; ++i) {
        Status s = a.Step({testing::F32({}, {1}), minus_one});
        EXPECT_TRUE(s.ok()) << s;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Tensor w = a.Value(0);
  const float* v = w.data<float>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < kSize; ++i) wrong += v[i] != kThreads * kSteps;
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace tw
