// FusedBatchNormV3's gradients (and FusedBatchNormGrad's, the second order) against finite
// differences through the C++ builder. The op is float32 only (as TensorFlow's), so float64
// inputs are cast in and out and the tolerance is float32's; python/tests/test_batch_norm.py
// compares the same gradients with TensorFlow's.
#include <gtest/gtest.h>

#include "tensorweave/gradients.h"
#include "tensorweave/tensorweave.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::CheckGradients;
using testing::GradCheckOptions;
using testing::RandomTensor;

// Steps and tolerance for a float32 op; `skip` lists inputs whose gradient is not checked.
GradCheckOptions Float32Options(std::vector<int> skip = {}) {
  GradCheckOptions o;
  o.delta = 1e-3;
  o.tolerance = 2e-2;
  o.skip_inputs = std::move(skip);
  return o;
}

TEST(NormGradTest, FusedBatchNormMatchesFiniteDifferences) {
  const std::vector<Tensor> inputs = {RandomTensor(TensorShape({2, 3, 2, 3}), -1, 1, 1),
                                      RandomTensor(TensorShape({3}), 0.5, 1.5, 2), RandomTensor(TensorShape({3}), -1, 1, 3),
                                      RandomTensor(TensorShape({3}), -1, 1, 4), RandomTensor(TensorShape({3}), 0.5, 2, 5)};
  for (const bool training : {true, false}) {
    for (const std::string format : {"NHWC", "NCHW"}) {
      SCOPED_TRACE(format + (training ? " training" : " inference"));
      const std::vector<Tensor> used = {format == "NHWC" ? inputs[0] : RandomTensor(TensorShape({2, 3, 2, 2}), -1, 1, 6),
                                        inputs[1], inputs[2], inputs[3], inputs[4]};
      EXPECT_TRUE(CheckGradients(
          [&](Graph&, const std::vector<Output>& in) {
            auto f = [](const Output& t) { return cast(t, DType::kFloat); };
            const BatchNormOutputs bn = fused_batch_norm(f(in[0]), f(in[1]), f(in[2]), f(in[3]), f(in[4]), 0.001f,
                                                         training, format);
            return cast(bn.y, DType::kDouble);
          },
          used, Float32Options({3, 4})));  // no gradient to mean / variance
    }
  }
}

TEST(NormGradTest, SecondDerivativesThroughFusedBatchNormGrad) {
  const std::vector<Tensor> inputs = {RandomTensor(TensorShape({2, 2, 3, 2}), -1, 1, 7),
                                      RandomTensor(TensorShape({2}), 0.5, 1.5, 8), RandomTensor(TensorShape({2}), -1, 1, 9)};
  for (const bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "inference");
    EXPECT_TRUE(CheckGradients(
        [&](Graph&, const std::vector<Output>& in) {
          auto f = [](const Output& t) { return cast(t, DType::kFloat); };
          const Output x = f(in[0]), scale = f(in[1]);
          const Output stats = ones_like(scale);  // the population's, at inference
          const BatchNormOutputs bn = fused_batch_norm(x, scale, f(in[2]), stats, stats, 0.001f, training);
          const auto grads = gradients({reduce_sum(square(bn.y) * x)}, {x, scale});
          return cast(reduce_sum(grads[0] * grads[0]) + reduce_sum(grads[1] * grads[1]), DType::kDouble);
        },
        inputs, [] {
          // f is a sum of squares of gradients (about 1e2) computed in float32: its rounding,
          // over a 1e-3 step, alone moves the difference quotient by some percent (with -O1
          // builds' summation order, past the tolerance). A 1e-2 step divides that by ten;
          // the quotient's own error stays ~1e-4 (f is smooth, in inference a polynomial).
          GradCheckOptions o = Float32Options();
          o.delta = 1e-2;
          return o;
        }()));
  }
}

}  // namespace
}  // namespace tw
