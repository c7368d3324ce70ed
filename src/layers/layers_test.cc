#include "tensorweave/layers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tensorweave/gradients.h"
#include "tensorweave/optimizers.h"
#include "tensorweave/session.h"
#include "testing/test_util.h"

namespace tw {
namespace {

namespace L = tw::layers;

Tensor RandomImages(int n, int h, int w, int c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Tensor t(DType::kFloat, TensorShape({n, h, w, c}));
  for (auto& v : t.flat<float>()) v = normal(rng);
  return t;
}

TEST(LayersTest, ShapesAndVariablesOfASmallCnn) {
  Graph g;
  Output x = placeholder(g, DType::kFloat, PartialShape({-1, 28, 28, 1}), "x");
  L::LayerOptions relu;
  relu.activation = L::relu;
  L::Conv2D conv1(32, {5, 5}, relu, {1, 1}, "SAME");
  L::Conv2D conv2(64, {5, 5}, relu);  // VALID
  L::MaxPool2D pool({2, 2}, {2, 2});
  L::Dense logits_layer(10);
  Output c1 = conv1(x);
  Output p1 = pool(c1);
  Output c2 = conv2(p1);
  Output flat = L::Flatten()(c2);
  Output logits = logits_layer(flat);
  EXPECT_EQ(c1.shape(), PartialShape({-1, 28, 28, 32}));
  EXPECT_EQ(p1.shape(), PartialShape({-1, 14, 14, 32}));
  EXPECT_EQ(c2.shape(), PartialShape({-1, 10, 10, 64}));
  EXPECT_EQ(flat.shape(), PartialShape({-1, 6400}));
  EXPECT_EQ(logits.shape(), PartialShape({-1, 10}));
  // TF's layer naming: kind, kind_1, ...; variables through get_variable in that scope.
  EXPECT_EQ(conv1.name(), "conv2d");
  EXPECT_EQ(conv2.name(), "conv2d_1");
  EXPECT_EQ(conv1.kernel().name(), "conv2d/kernel");
  EXPECT_EQ(conv1.kernel().shape(), PartialShape({5, 5, 1, 32}));
  EXPECT_EQ(conv2.kernel().shape(), PartialShape({5, 5, 32, 64}));
  EXPECT_EQ(logits_layer.kernel().name(), "dense/kernel");
  EXPECT_EQ(logits_layer.bias().shape(), PartialShape({10}));
  EXPECT_EQ(trainable_variables(g).size(), 6u);
  // A second call reuses the variables.
  Output again = logits_layer(flat);
  EXPECT_EQ(logits_layer.variables().size(), 2u);
  EXPECT_EQ(trainable_variables(g).size(), 6u);

  Session sess(g);
  sess.run(global_variables_initializer(g));
  std::vector<Tensor> out = sess.run({logits, again}, {{x, RandomImages(3, 28, 28, 1, 1)}});
  EXPECT_EQ(out[0].shape(), TensorShape({3, 10}));
  EXPECT_TENSOR_EQ(out[0], out[1]);
}

TEST(LayersTest, DevicesFromTheLayerAndFromEnclosingScopes) {
  Graph g;
  Output x = placeholder(g, DType::kFloat, PartialShape({-1, 4}), "x");
  L::LayerOptions on_ps;
  on_ps.device = "/job:ps/task:1";
  L::Dense dense(3, on_ps);
  Output y = dense(x);
  EXPECT_EQ(dense.kernel().handle().op().device(), "/job:ps/task:1");
  EXPECT_EQ(y.op().device(), "/job:ps/task:1");
  // An enclosing worker scope fills the fields the layer leaves unset.
  Output z;
  L::Dense inner(2);
  {
    auto on = g.device("/job:worker/task:0");
    z = inner(y);
  }
  EXPECT_EQ(inner.kernel().handle().op().device(), "/job:worker/task:0");
  EXPECT_EQ(z.op().device(), "/job:worker/task:0");
}

TEST(LayersTest, BatchNormUpdatesMovingStatisticsThroughUpdateOps) {
  Graph g;
  Output x = placeholder(g, DType::kFloat, PartialShape({-1, 3, 2, 2}), "x");
  L::BatchNormOptions options;
  options.momentum = 0.9;
  L::BatchNorm bn(options);
  Output y_train = bn(x);
  bn.set_training(false);
  Output y_infer = bn(x);
  ASSERT_EQ(L::update_ops(g).size(), 2u);
  EXPECT_EQ(bn.updates().size(), 2u);
  EXPECT_EQ(bn.variables().size(), 4u);
  EXPECT_EQ(bn.trainable_variables().size(), 2u);  // gamma, beta
  EXPECT_EQ(bn.moving_mean().name(), "batch_normalization/moving_mean");

  const Tensor data = RandomImages(4, 3, 2, 2, 7);
  // The batch's per-channel mean and variance (Bessel-corrected, as TF's fused kernel).
  const int per_channel = 4 * 3 * 2;
  double mean[2] = {0, 0}, var[2] = {0, 0};
  auto flat = data.flat<float>();
  for (int i = 0; i < per_channel * 2; ++i) mean[i % 2] += flat[i] / per_channel;
  for (int i = 0; i < per_channel * 2; ++i) var[i % 2] += std::pow(flat[i] - mean[i % 2], 2) / (per_channel - 1);

  Session sess(g);
  sess.run(global_variables_initializer(g));
  Tensor y = sess.run({y_train}, {{x, data}}, L::update_ops(g))[0];
  // Normalized by the batch's (biased) statistics: per channel mean 0, variance ~1.
  double ymean = 0;
  for (int i = 0; i < per_channel * 2; i += 2) ymean += y.flat<float>()[i];
  EXPECT_NEAR(ymean / per_channel, 0.0, 1e-5);
  Tensor mm = sess.run(bn.moving_mean().value());
  Tensor mv = sess.run(bn.moving_variance().value());
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(mm.flat<float>()[c], 0.1 * mean[c], 1e-5);
    EXPECT_NEAR(mv.flat<float>()[c], 0.9 + 0.1 * var[c], 1e-5);
  }
  // Inference normalizes by the moving statistics.
  Tensor yi = sess.run(y_infer, {{x, data}});
  for (int i = 0; i < per_channel * 2; ++i) {
    const int c = i % 2;
    const double expected = (flat[i] - mm.flat<float>()[c]) / std::sqrt(mv.flat<float>()[c] + 0.001);
    EXPECT_NEAR(yi.flat<float>()[i], expected, 1e-4);
  }
}

TEST(LayersTest, DropoutScalesWhenTrainingAndIsTheIdentityOtherwise) {
  Graph g;
  Output x = placeholder(g, DType::kFloat, PartialShape({-1, 1000}), "x");
  Output training = placeholder(g, DType::kBool, PartialShape({}), "training");
  Output y = L::Dropout(0.25, training, /*seed=*/5)(x);
  Tensor ones(DType::kFloat, TensorShape({4, 1000}));
  for (auto& v : ones.flat<float>()) v = 1.0f;
  Session sess(g);
  Tensor off = sess.run(y, {{x, ones}, {training, testing::Bool({}, {false})}});
  EXPECT_TENSOR_EQ(off, ones);
  Tensor on = sess.run(y, {{x, ones}, {training, testing::Bool({}, {true})}});
  int zeros = 0;
  for (float v : on.flat<float>()) {
    if (v == 0.0f) {
      ++zeros;
    } else {
      EXPECT_NEAR(v, 1.0f / 0.75f, 1e-6);
    }
  }
  EXPECT_NEAR(zeros / 4000.0, 0.25, 0.03);  // 4000 Bernoulli(0.25): sd ~0.007
}

TEST(LayersTest, LossesMatchTheirFormulas) {
  Graph g;
  Output logits = constant(g, std::vector<float>{0.5f, -1.0f, 2.0f, 0.0f, 0.25f, 1.5f}, TensorShape({2, 3}));
  Output labels = constant(g, std::vector<int32_t>{2, 0}, TensorShape({2}));
  Output onehot = one_hot(labels, 3);
  Output sparse = losses::sparse_softmax_cross_entropy(labels, logits);
  Output dense = losses::softmax_cross_entropy(onehot, logits);
  Output mse = losses::mean_squared_error(onehot, logits);
  // The labels get no gradient (stop_gradient, as TF1).
  EXPECT_FALSE(HasGradient(gradients({dense}, {onehot})[0]));
  Session sess(g);
  std::vector<Tensor> out = sess.run({sparse, dense, mse});
  const double l[2][3] = {{0.5, -1.0, 2.0}, {0.0, 0.25, 1.5}};
  const int y[2] = {2, 0};
  double xent = 0, sq = 0;
  for (int i = 0; i < 2; ++i) {
    double z = 0;
    for (int j = 0; j < 3; ++j) {
      z += std::exp(l[i][j]);
      sq += std::pow(l[i][j] - (j == y[i] ? 1.0 : 0.0), 2);
    }
    xent += std::log(z) - l[i][y[i]];
  }
  EXPECT_NEAR(out[0].scalar<float>(), xent / 2, 1e-6);
  EXPECT_NEAR(out[1].scalar<float>(), xent / 2, 1e-6);
  EXPECT_NEAR(out[2].scalar<float>(), sq / 6, 1e-6);
}

TEST(LayersTest, BadInputIsInvalidArgumentNamingTheLayer) {
  Graph g;
  Output images = placeholder(g, DType::kFloat, PartialShape({-1, 8, 8, 3}), "images");
  Output rank3 = placeholder(g, DType::kFloat, PartialShape({-1, 8, 8}), "rank3");
  L::Dense dense(4);
  try {
    dense(images);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("dense 'dense': input must be rank 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[?,8,8,3]"), std::string::npos) << e.what();
  }
  L::Conv2D conv(4, {3, 3});
  EXPECT_THROW(conv(rank3), StatusError);
  EXPECT_THROW(L::Conv2D(4, {3, 0}), StatusError);
  EXPECT_THROW(L::MaxPool2D({2, 2}, {2, 2}, "FULL"), StatusError);
  EXPECT_THROW(L::Dropout(1.0, placeholder(g, DType::kBool, PartialShape({}))), StatusError);
  // A filter larger than a VALID input: the Conv2D op's own shape error.
  Output tiny = placeholder(g, DType::kFloat, PartialShape({-1, 2, 2, 3}), "tiny");
  L::Conv2D big(4, {3, 3});
  EXPECT_THROW(big(tiny), StatusError);
}

// Synthetic 8x8 images: class c (of 4) has a bright 2x2 blob in quadrant c, plus noise.
void QuadrantData(int n, std::mt19937& rng, Tensor* images, Tensor* labels) {
  std::normal_distribution<float> noise(0.0f, 0.5f);
  std::uniform_int_distribution<int> jitter(0, 2);
  *images = Tensor(DType::kFloat, TensorShape({n, 8, 8, 1}));
  *labels = Tensor(DType::kInt32, TensorShape({n}));
  for (int i = 0; i < n; ++i) {
    const int c = i % 4, top = (c / 2) * 4 + jitter(rng), left = (c % 2) * 4 + jitter(rng);
    for (int p = 0; p < 64; ++p) images->flat<float>()[i * 64 + p] = noise(rng);
    for (int dy = 0; dy < 2; ++dy) {
      for (int dx = 0; dx < 2; ++dx) images->flat<float>()[i * 64 + (top + dy) * 8 + left + dx] += 2.0f;
    }
    labels->flat<int32_t>()[i] = c;
  }
}

TEST(LayersTest, TrainingACnnDrivesTheLossDown) {
  Graph g;
  g.set_seed(1);
  Output x = placeholder(g, DType::kFloat, PartialShape({-1, 8, 8, 1}), "x");
  Output y = placeholder(g, DType::kInt32, PartialShape({-1}), "y");
  Output training = placeholder(g, DType::kBool, PartialShape({}), "training");
  L::LayerOptions relu;
  relu.activation = L::relu;
  Output h = L::Conv2D(8, {3, 3}, relu, {1, 1}, "SAME")(x);
  h = L::BatchNorm()(h);
  h = L::MaxPool2D({2, 2}, {2, 2})(h);
  h = L::Flatten()(h);
  h = L::Dropout(0.1, training)(L::Dense(16, relu)(h));
  Output logits = L::Dense(4)(h);
  Output loss = losses::sparse_softmax_cross_entropy(y, logits);
  AdamOptimizer adam(0.01);
  Operation train = adam.minimize(loss);

  std::mt19937 rng(3);
  Tensor images, labels;
  QuadrantData(64, rng, &images, &labels);
  Session sess(g);
  sess.run(global_variables_initializer(g));
  const Tensor yes = testing::Bool({}, {true}), no = testing::Bool({}, {false});
  std::vector<Operation> targets = L::update_ops(g);
  targets.push_back(train);
  const float first = sess.run(loss, {{x, images}, {y, labels}, {training, no}}).scalar<float>();
  for (int step = 0; step < 60; ++step) sess.run({loss}, {{x, images}, {y, labels}, {training, yes}}, targets);
  const float last = sess.run(loss, {{x, images}, {y, labels}, {training, no}}).scalar<float>();
  EXPECT_GT(first, 1.2f);  // ~log(4) at the start
  EXPECT_LT(last, 0.2f) << "from " << first;
}

}  // namespace
}  // namespace tw
