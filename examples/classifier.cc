// A 2-layer classifier (2 -> 32 -> 3, softmax cross-entropy) trained on a synthetic data
// set: three classes of points around three centres. Prints the loss while training and
// the accuracy on a held-out set, which should be at least 95%.
#include <cmath>
#include <iostream>
#include <random>

#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr int kClasses = 3;

// n points of each class around centres on a circle of radius 2, with unit spread.
void MakeData(int n, std::mt19937& rng, tw::Tensor* points, tw::Tensor* labels) {
  std::normal_distribution<float> noise(0.0f, 0.7f);
  *points = tw::Tensor(tw::DType::kFloat, tw::TensorShape({n * kClasses, 2}));
  *labels = tw::Tensor(tw::DType::kInt32, tw::TensorShape({n * kClasses}));
  for (int i = 0; i < n * kClasses; ++i) {
    const int c = i % kClasses;
    const float angle = 2.0f * 3.14159265f * c / kClasses;
    points->flat<float>()[2 * i] = 2.0f * std::cos(angle) + noise(rng);
    points->flat<float>()[2 * i + 1] = 2.0f * std::sin(angle) + noise(rng);
    labels->flat<int32_t>()[i] = c;
  }
}

}  // namespace

int main() {
  tw::InitProcess();
  try {
    tw::Graph g;
    g.set_seed(3);
    auto x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, 2}), "x");
    auto label = tw::placeholder(g, tw::DType::kInt32, tw::PartialShape({-1}), "label");
    tw::Variable w1(g, tw::truncated_normal(g, tw::TensorShape({2, 32}), 0.0, 0.5), "w1");
    tw::Variable b1(g, tw::zeros(g, tw::TensorShape({32})), "b1");
    tw::Variable w2(g, tw::truncated_normal(g, tw::TensorShape({32, kClasses}), 0.0, 0.5), "w2");
    tw::Variable b2(g, tw::zeros(g, tw::TensorShape({kClasses})), "b2");
    auto logits = tw::matmul(tw::relu(tw::matmul(x, w1) + b1), w2) + b2;
    auto loss = tw::reduce_mean(tw::softmax_cross_entropy_with_logits(tw::one_hot(label, kClasses), logits));
    auto correct = tw::equal(tw::argmax(logits, 1, tw::DType::kInt32), label);
    auto accuracy = tw::reduce_mean(tw::cast(correct, tw::DType::kFloat));
    tw::GradientDescentOptimizer optimizer(0.1);
    auto train = optimizer.minimize(loss);

    std::mt19937 rng(11);
    tw::Tensor train_x, train_y, test_x, test_y;
    MakeData(300, rng, &train_x, &train_y);
    MakeData(100, rng, &test_x, &test_y);

    tw::Session sess(g);
    sess.run(tw::global_variables_initializer(g));
    for (int step = 1; step <= 500; ++step) {
      float value = sess.run({loss}, {{x, train_x}, {label, train_y}}, {train})[0].scalar<float>();
      if (step % 100 == 0) std::cout << "step " << step << "  loss " << value << "\n";
    }
    float acc = sess.run(accuracy, {{x, test_x}, {label, test_y}}).scalar<float>();
    std::cout << "held-out accuracy: " << acc * 100 << "% (target: at least 95%)\n";
    return acc >= 0.95f ? 0 : 1;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
