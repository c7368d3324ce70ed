// Conv2D's gradients against finite differences, dilated and strided (TensorFlow's CPU
// kernels have no dilated backprops to compare with: python/tests/test_conv2d.py compares
// the rest with TensorFlow), and second derivatives through the backprops.
#include <gtest/gtest.h>

#include "tensorweave/gradients.h"
#include "tensorweave/tensorweave.h"
#include "testing/gradient_checker.h"
#include "testing/test_util.h"

namespace tw {
namespace {

using testing::RandomTensor;

TEST(ConvGradTest, Conv2DMatchesFiniteDifferences) {
  const Tensor x = RandomTensor(TensorShape({2, 7, 6, 2}), -1, 1, 1);
  const Tensor w = RandomTensor(TensorShape({3, 2, 2, 3}), -1, 1, 2);
  const std::vector<Tensor> inputs = {x, w};
  for (const auto& [strides, dilations, padding] :
       std::vector<std::tuple<Axes, Axes, std::string>>{{{1, 1}, {1, 1}, "SAME"}, {{2, 3}, {1, 1}, "VALID"},
                                                        {{1, 1}, {2, 2}, "SAME"}, {{2, 1}, {2, 1}, "VALID"}}) {
    SCOPED_TRACE(padding + " stride " + std::to_string(strides[0]) + " dilation " + std::to_string(dilations[0]));
    EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& in) {
      return conv2d(in[0], in[1], strides, padding, dilations);
    }, inputs);
  }
}

// The gradient of the input gradient: the backprops' own gradients (double backprop).
TEST(ConvGradTest, SecondDerivativesThroughTheBackprops) {
  const Tensor x = RandomTensor(TensorShape({1, 5, 5, 2}), -1, 1, 3);
  const Tensor w = RandomTensor(TensorShape({2, 2, 2, 2}), -1, 1, 4);
  const std::vector<Tensor> inputs = {x, w};
  EXPECT_GRADIENTS_OK([&](Graph&, const std::vector<Output>& in) {
    const Output y = conv2d(in[0], in[1], {1, 1}, "SAME");
    const auto grads = gradients({reduce_sum(square(y))}, {in[0], in[1]});
    return reduce_sum(grads[0] * grads[0]) + reduce_sum(grads[1]);
  }, inputs);
}

}  // namespace
}  // namespace tw
