// A LeNet-like CNN built with the C++ layers API, in float64, against PyTorch: the loss and
// every parameter gradient, computed once by tests/parity/make_cnn_reference.py and stored
// in tests/parity/reference_cnn_gradients.txt, to 1e-9 relative. Inputs and weights come
// from the same closed-form pattern here and there (NHWC / HWIO flattened index).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "tensorweave/gradients.h"
#include "tensorweave/layers.h"
#include "tensorweave/session.h"

namespace tw {
namespace {

// value[i] = scale * sin(0.37 * i + phase): mirrors pattern() in make_cnn_reference.py.
std::vector<double> PatternValues(int64_t n, double scale, double phase) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.37 * i + phase);
  return v;
}

Tensor Pattern(const TensorShape& shape, double scale, double phase) {
  Tensor t(DType::kDouble, shape);
  std::vector<double> v = PatternValues(shape.num_elements(), scale, phase);
  std::copy(v.begin(), v.end(), t.flat<double>().begin());
  return t;
}

std::map<std::string, std::vector<double>> LoadReference() {
  std::ifstream in(std::string(TW_SOURCE_DIR) + "/tests/parity/reference_cnn_gradients.txt");
  EXPECT_TRUE(in.good()) << "missing tests/parity/reference_cnn_gradients.txt";
  std::map<std::string, std::vector<double>> ref;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string model, key;
    fields >> model >> key;
    double v;
    while (fields >> v) ref[key].push_back(v);
  }
  return ref;
}

// float64 options whose kernel and bias come from the pattern.
layers::LayerOptions Params(int64_t kernel_elements, int64_t bias_elements, double kernel_scale,
                            double kernel_phase, double bias_scale, double bias_phase, bool relu) {
  layers::LayerOptions o;
  o.dtype = DType::kDouble;
  o.kernel_initializer = constant_initializer(PatternValues(kernel_elements, kernel_scale, kernel_phase));
  o.bias_initializer = constant_initializer(PatternValues(bias_elements, bias_scale, bias_phase));
  if (relu) o.activation = layers::relu;
  return o;
}

TEST(PyTorchParityTest, LeNetLossAndEveryParameterGradient) {
  namespace L = layers;
  Graph g;
  Output x = constant(g, Pattern({2, 12, 12, 1}, 1.0, 0.05));
  Output labels = constant(g, std::vector<int32_t>{2, 0}, TensorShape({2}));
  L::Conv2D conv1(4, {5, 5}, Params(5 * 5 * 1 * 4, 4, 0.4, 0.15, 0.1, 0.25, true), {1, 1}, "SAME");
  L::Conv2D conv2(6, {3, 3}, Params(3 * 3 * 4 * 6, 6, 0.3, 0.35, 0.1, 0.45, true));
  L::Dense dense1(8, Params(24 * 8, 8, 0.3, 0.55, 0.1, 0.65, true));
  L::Dense dense2(3, Params(8 * 3, 3, 0.4, 0.75, 0.1, 0.85, false));
  Output h = L::MaxPool2D({2, 2}, {2, 2})(conv1(x));
  h = L::MaxPool2D({2, 2}, {2, 2})(conv2(h));
  Output logits = dense2(dense1(L::Flatten()(h)));
  Output loss = losses::sparse_softmax_cross_entropy(labels, logits);

  const std::vector<std::pair<std::string, Variable>> params = {
      {"conv1_kernel", conv1.kernel()},   {"conv1_bias", conv1.bias()},   {"conv2_kernel", conv2.kernel()},
      {"conv2_bias", conv2.bias()},       {"dense1_kernel", dense1.kernel()}, {"dense1_bias", dense1.bias()},
      {"dense2_kernel", dense2.kernel()}, {"dense2_bias", dense2.bias()}};
  std::vector<Output> handles;
  for (const auto& [name, var] : params) handles.push_back(var.handle());
  std::vector<Output> fetches = gradients({loss}, handles);
  fetches.insert(fetches.begin(), loss);

  Session sess(g);
  sess.run(global_variables_initializer(g));
  std::vector<Tensor> values = sess.run(fetches);
  auto ref = LoadReference();
  auto expect = [](const Tensor& actual, const std::vector<double>& expected, const std::string& what) {
    ASSERT_EQ(actual.NumElements(), static_cast<int64_t>(expected.size())) << what;
    for (size_t i = 0; i < expected.size(); ++i) {
      // 1e-9 relative; the absolute floor only matters for entries that cancel to ~0.
      EXPECT_NEAR(actual.flat<double>()[i], expected[i], 1e-9 * std::abs(expected[i]) + 1e-15)
          << what << " element " << i;
    }
  };
  expect(values[0], ref["loss"], "loss");
  for (size_t i = 0; i < params.size(); ++i) {
    expect(values[i + 1], ref["grad_" + params[i].first], params[i].first);
  }
}

}  // namespace
}  // namespace tw
