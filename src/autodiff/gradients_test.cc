// The gradient pass itself: fan-out sums, broadcasting, unreachable inputs, missing
// gradient functions, grad_ys, variables. Per-op gradients are checked in
// <family>_grad_test.cc.
#include "tensorweave/gradients.h"

#include <gtest/gtest.h>

#include "autodiff/gradient_registry.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::CheckGradients;
using testing::RandomTensor;

TEST(GradientsTest, AddSubMulMatchFiniteDifferences) {
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return x[0] * x[1] - x[0] + x[1]; },
                      (std::vector<Tensor>{RandomTensor({2, 3}, -1, 1, 1), RandomTensor({2, 3}, -1, 1, 2)}));
}

TEST(GradientsTest, BroadcastingReducesToEachInputsShape) {
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return x[0] * x[1] + x[1]; },
                      (std::vector<Tensor>{RandomTensor({2, 3}, -1, 1, 1), RandomTensor({3}, -1, 1, 2)}));
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return x[0] * x[1]; },
                      (std::vector<Tensor>{RandomTensor({2, 1}, -1, 1, 3), RandomTensor({1, 3}, -1, 1, 4)}));
  EXPECT_GRADIENTS_OK([](Graph&, const std::vector<Output>& x) { return x[0] - x[1]; },
                      (std::vector<Tensor>{RandomTensor({}, -1, 1, 3), RandomTensor({4, 2}, -1, 1, 4)}));
}

TEST(GradientsTest, FanOutIsSummed) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({}), "x");
  auto y = x * x + x;  // dy/dx = 2x + 1
  auto dx = gradients({y}, {x})[0];
  Session sess(g);
  EXPECT_DOUBLE_EQ(sess.run(dx, {{x, Tensor::Scalar(3.0)}}).scalar<double>(), 7.0);
}

TEST(GradientsTest, UnreachableInputGetsNoGradient) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({}), "x");
  auto z = placeholder(g, DType::kDouble, PartialShape({}), "z");
  auto y = x * 2.0;
  auto grads = gradients({y}, {x, z});
  EXPECT_TRUE(HasGradient(grads[0]));
  EXPECT_FALSE(HasGradient(grads[1]));
}

TEST(GradientsTest, GradYsWeightTheOutputs) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2}), "x");
  auto y = x * 3.0;
  auto dx = gradients({y}, {x}, {constant(g, testing::F64({2}, {1, 10}))})[0];
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(dx, {{x, testing::F64({2}, {5, 5})}}), testing::F64({2}, {3, 30}));
}

TEST(GradientsTest, MultipleYsAreSummed) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({}), "x");
  auto dx = gradients({x * 2.0, x * 5.0}, {x})[0];
  Session sess(g);
  EXPECT_DOUBLE_EQ(sess.run(dx, {{x, Tensor::Scalar(1.0)}}).scalar<double>(), 7.0);
}

TEST(GradientsTest, OpWithoutGradientIsAClearError) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2}), "x");
  auto y = multiply(x, x, "square_me");
  GradientRegistry without_mul;  // Every op of the real table has a gradient; this one lacks Mul.
  RegisterBaseGradients(without_mul);
  try {
    ComputeGradients(without_mul, {y}, {x}, {});
    FAIL() << "no error for an op without gradient";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument,
                  "op Mul (node 'square_me') has no gradient function");
  }
}

TEST(GradientsTest, RandomOpsAreNotDifferentiable) {
  Graph g;
  auto x = placeholder(g, DType::kFloat, PartialShape({}), "x");
  // x decides the shape of the noise (through an int cast), so the pass meets RandomUniform.
  auto shape = cast(reshape(x, {1}), DType::kInt32);
  auto noise = g.AddOperation("RandomUniform", "noise", {shape}, {{"dtype", MakeAttr(DType::kFloat)}}).output(0);
  auto y = reduce_sum(noise) * x;
  auto dx = gradients({y}, {x})[0];
  Session sess(g);
  Tensor value = sess.run(dx, {{x, Tensor::Scalar(3.0f)}});
  EXPECT_EQ(value.shape(), TensorShape());  // d/dx of sum(noise) * x = sum(noise): no error.
}

TEST(GradientsTest, VariableGradientsFlowThroughEveryRead) {
  Graph g;
  Variable w(g, constant(g, 2.0), "w");
  auto loss = w.value() * w.value() + Output(w) * 3.0;  // w^2 + 3w over two kinds of reads
  auto dw = gradients({loss}, {w.handle()})[0];
  Session sess(g);
  sess.run(global_variables_initializer(g));
  EXPECT_DOUBLE_EQ(sess.run(dw).scalar<double>(), 7.0);  // 2w + 3 at w = 2
}

TEST(GradientsTest, IntegerPathsCarryNoGradient) {
  Graph g;
  auto x = placeholder(g, DType::kDouble, PartialShape({2, 3}), "x");
  auto y = reshape(x, shape(x)) * 2.0;  // The Shape -> Reshape edge is int32.
  auto dx = gradients({y}, {x})[0];
  Session sess(g);
  EXPECT_TENSOR_EQ(sess.run(dx, {{x, RandomTensor({2, 3})}}), testing::F64({2, 3}, {2, 2, 2, 2, 2, 2}));
}

}  // namespace
}  // namespace tw
