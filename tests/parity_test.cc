// Gradients of two small models against PyTorch: reference values were computed once in
// float64 by tests/parity/make_reference.py and stored in reference_gradients.txt; the
// inputs and weights come from the same closed-form pattern here and there.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "tensorweave/tensorweave.h"

namespace tw {
namespace {

// value[i] = scale * sin(0.37 * i + phase): mirrors pattern() in make_reference.py.
Tensor Pattern(const TensorShape& shape, double scale, double phase) {
  Tensor t(DType::kDouble, shape);
  auto v = t.flat<double>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(0.37 * i + phase);
  return t;
}

std::map<std::string, std::vector<double>> LoadReference() {
  std::ifstream in(std::string(TW_SOURCE_DIR) + "/tests/parity/reference_gradients.txt");
  EXPECT_TRUE(in.good()) << "missing tests/parity/reference_gradients.txt";
  std::map<std::string, std::vector<double>> ref;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string model, key;
    fields >> model >> key;
    double v;
    while (fields >> v) ref[model + "/" + key].push_back(v);
  }
  return ref;
}

void ExpectMatches(const Tensor& actual, const std::vector<double>& expected, const std::string& what) {
  ASSERT_EQ(actual.NumElements(), static_cast<int64_t>(expected.size())) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual.flat<double>()[i], expected[i], 1e-12 + 1e-10 * std::abs(expected[i]))
        << what << " element " << i;
  }
}

struct Params {
  Variable w1, b1, w2, b2;
};

Params MakeParams(Graph& g, const TensorShape& s1, const TensorShape& s2, const TensorShape& s3,
                  const TensorShape& s4, double phase, double scale1, double scale2, double scale3,
                  double scale4) {
  return {Variable(g, constant(g, Pattern(s1, scale1, phase)), "w1"),
          Variable(g, constant(g, Pattern(s2, scale2, phase + 0.1)), "b1"),
          Variable(g, constant(g, Pattern(s3, scale3, phase + 0.2)), "w2"),
          Variable(g, constant(g, Pattern(s4, scale4, phase + 0.3)), "b2")};
}

void CheckModel(Graph& g, const Output& loss, const Params& p, const std::string& model) {
  auto ref = LoadReference();
  auto grads = gradients({loss}, {p.w1.handle(), p.b1.handle(), p.w2.handle(), p.b2.handle()});
  Session sess(g);
  sess.run(global_variables_initializer(g));
  auto values = sess.run(std::vector<Output>{loss, grads[0], grads[1], grads[2], grads[3]});
  ExpectMatches(values[0], ref[model + "/loss"], model + " loss");
  const char* names[] = {"grad_w1", "grad_b1", "grad_w2", "grad_b2"};
  for (int i = 0; i < 4; ++i) ExpectMatches(values[i + 1], ref[model + "/" + names[i]], model + " " + names[i]);
}

TEST(PyTorchParityTest, ExpMlpGradients) {
  Graph g;
  auto x = constant(g, Pattern({8, 1}, 1.0, 0.1));
  Params p = MakeParams(g, {1, 16}, {16}, {16, 1}, {1}, 0.2, 0.8, 0.3, 0.6, 0.2);
  auto h = sigmoid(matmul(x, p.w1) + p.b1);
  auto y = matmul(h, p.w2) + p.b2;
  auto loss = reduce_mean(square(y - exp(x)));
  CheckModel(g, loss, p, "exp_mlp");
}

TEST(PyTorchParityTest, ClassifierGradients) {
  Graph g;
  auto x = constant(g, Pattern({6, 5}, 1.0, 0.6));
  auto labels = cast(one_hot(constant(g, std::vector<int32_t>{0, 2, 1, 1, 0, 2}, TensorShape({6})), 3),
                     DType::kDouble);
  Params p = MakeParams(g, {5, 7}, {7}, {7, 3}, {3}, 0.7, 0.5, 0.1, 0.5, 0.1);
  auto logits = matmul(relu(matmul(x, p.w1) + p.b1), p.w2) + p.b2;
  auto loss = reduce_mean(softmax_cross_entropy_with_logits(labels, logits));
  CheckModel(g, loss, p, "classifier");
}

}  // namespace
}  // namespace tw
