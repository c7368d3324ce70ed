// A LeNet-style CNN built with the C++ layers API (include/tensorweave/layers.h), trained
// on synthetic MNIST-shaped data: 28x28 images of 10 classes, class c a pair of strokes
// (a horizontal bar at row 4 + 2c, a vertical bar at column 22 - 2c, shifted by up to 2
// pixels each way) under noise. Model: conv 5x5x16 + batch norm + pool, conv 5x5x32 + pool,
// dense 128 + dropout, dense 10; Adam. The convolutional layers run on /cpu:0 and the dense
// ones on /cpu:1 (two local devices), to show the explicit device scopes. Prints the loss while
// training and the held-out accuracy, which should be at least 95%.
#include <iostream>
#include <random>

#include "tensorweave/layers.h"
#include "tensorweave/optimizers.h"
#include "tensorweave/process.h"
#include "tensorweave/session.h"

namespace {

constexpr int kClasses = 10, kSide = 28;

void MakeData(int n, std::mt19937& rng, tw::Tensor* images, tw::Tensor* labels) {
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::uniform_int_distribution<int> shift(-2, 2);
  *images = tw::Tensor(tw::DType::kFloat, tw::TensorShape({n, kSide, kSide, 1}));
  *labels = tw::Tensor(tw::DType::kInt32, tw::TensorShape({n}));
  float* px = images->flat<float>().data();
  for (int i = 0; i < n; ++i) {
    const int c = i % kClasses, dy = shift(rng), dx = shift(rng);
    float* img = px + static_cast<int64_t>(i) * kSide * kSide;
    for (int p = 0; p < kSide * kSide; ++p) img[p] = noise(rng);
    const int row = 4 + 2 * c + dy, col = 4 + 2 * (kClasses - 1 - c) + dx;
    for (int k = 4; k < 24; ++k) {
      img[row * kSide + k + dx] += 1.0f;  // horizontal stroke
      img[(k + dy) * kSide + col] += 1.0f;  // vertical stroke
    }
    labels->flat<int32_t>()[i] = c;
  }
}

}  // namespace

int main() {
  tw::InitProcess();
  try {
    namespace L = tw::layers;
    tw::Graph g;
    g.set_seed(7);
    auto images = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, kSide, kSide, 1}), "images");
    auto labels = tw::placeholder(g, tw::DType::kInt32, tw::PartialShape({-1}), "labels");
    auto training = tw::placeholder(g, tw::DType::kBool, tw::PartialShape({}), "training");

    // Explicit devices per layer: the convolutional part on /cpu:0, the dense part on /cpu:1
    // (two local CPU devices; on a cluster these would be tasks, "/job:worker/task:1").
    L::LayerOptions conv_options, dense_options;
    conv_options.activation = dense_options.activation = L::relu;
    conv_options.device = "/cpu:0";
    dense_options.device = "/cpu:1";
    L::Conv2D conv1(16, {5, 5}, conv_options, {1, 1}, "SAME");
    L::BatchNormOptions bn_options;
    bn_options.device = "/cpu:0";
    L::BatchNorm bn1(bn_options);
    L::MaxPool2D pool1({2, 2}, {2, 2}, "VALID", "", "/cpu:0");
    L::Conv2D conv2(32, {5, 5}, conv_options, {1, 1}, "SAME");
    L::MaxPool2D pool2({2, 2}, {2, 2}, "VALID", "", "/cpu:0");
    L::Dense fc(128, dense_options);
    L::Dropout dropout(0.4, training, /*seed=*/0, "", "/cpu:1");
    dense_options.activation = nullptr;
    L::Dense out(kClasses, dense_options);
    tw::Output logits = out(dropout(fc(L::Flatten()(pool2(conv2(pool1(bn1(conv1(images)))))))));
    auto loss = tw::losses::sparse_softmax_cross_entropy(labels, logits);
    auto correct = tw::equal(tw::argmax(logits, 1, tw::DType::kInt32), labels);
    auto accuracy = tw::reduce_mean(tw::cast(correct, tw::DType::kFloat));
    tw::AdamOptimizer adam(0.002);
    auto train = adam.minimize(loss);
    std::vector<tw::Operation> step_ops = L::update_ops(g);
    step_ops.push_back(train);

    std::mt19937 rng(5);
    tw::Tensor test_x, test_y;
    MakeData(500, rng, &test_x, &test_y);

    tw::SessionConfig config;
    config.cpu_device_count = 2;
    tw::Session sess(g, "", config);
    sess.run(tw::global_variables_initializer(g));
    const int batch = 32;
    tw::Tensor yes(tw::DType::kBool, tw::TensorShape({})), no(tw::DType::kBool, tw::TensorShape({}));
    yes.flat<bool>()[0] = true;
    no.flat<bool>()[0] = false;
    for (int step = 0; step < 300; ++step) {
      tw::Tensor x, y;  // a fresh batch each step: the generator is the training set
      MakeData(batch, rng, &x, &y);
      float value = sess.run({loss}, {{images, x}, {labels, y}, {training, yes}}, step_ops)[0].scalar<float>();
      if ((step + 1) % 50 == 0) std::cout << "step " << step + 1 << "  loss " << value << "\n";
    }
    float acc = sess.run(accuracy, {{images, test_x}, {labels, test_y}, {training, no}}).scalar<float>();
    std::cout << "held-out accuracy: " << acc * 100 << "% (target: at least 95%)\n";
    return acc >= 0.95f ? 0 : 1;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
