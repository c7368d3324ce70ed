// Checks symbolic gradients against central finite differences.
//
//   EXPECT_GRADIENTS_OK([](Graph& g, const std::vector<Output>& x) { return tw::tanh(x[0]); },
//                       {RandomTensor({2, 3})});
//
// The op under test is built from placeholders fed with `inputs` (use float64 for tight
// tolerances). With L = sum(W * y) for fixed random weights W, the check compares
// tw::gradients({y}, xs, {W}) with (L(x + h e_i) - L(x - h e_i)) / 2h for every element i
// of every input. `build` may itself call tw::gradients (second-order checks).
#ifndef TENSORWEAVE_TESTS_TESTING_GRADIENT_CHECKER_H_
#define TENSORWEAVE_TESTS_TESTING_GRADIENT_CHECKER_H_

#include <functional>
#include <vector>

#include "gtest/gtest.h"
#include "tensorweave/tensorweave.h"

namespace tw::testing {

using GradBuilder = std::function<Output(Graph& g, const std::vector<Output>& xs)>;

struct GradCheckOptions {
  double delta = 1e-6;      // Finite-difference step.
  double tolerance = 1e-5;  // Max |symbolic - numeric| / max(1, |numeric|).
  // Inputs whose gradient is not checked (e.g. integer indices), by position.
  std::vector<int> skip_inputs;
};

// Success, or a failure naming the input, element, both values and the difference.
::testing::AssertionResult CheckGradients(const GradBuilder& build, const std::vector<Tensor>& inputs,
                                          const GradCheckOptions& options = {});
#define EXPECT_GRADIENTS_OK(build, inputs, ...) \
  EXPECT_TRUE(::tw::testing::CheckGradients((build), (inputs), ##__VA_ARGS__))

// A float64 tensor of `shape` with values uniform in [lo, hi), reproducible from `seed`.
Tensor RandomTensor(const TensorShape& shape, double lo = -1, double hi = 1, uint64_t seed = 1);

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_GRADIENT_CHECKER_H_
