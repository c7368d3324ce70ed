// Training step time of a 784 -> 256 -> 10 MLP (ReLU, softmax cross-entropy), batch 128,
// float32, Adam, on fixed random data. Prints the median step time.
//   mlp_training [--threads N] [--steps S]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tensorweave/tensorweave.h"

int main(int argc, char** argv) {
  int threads = 1, steps = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
  }
  constexpr int kBatch = 128, kIn = 784, kHidden = 256, kOut = 10;
  tw::Graph g;
  g.set_seed(1);
  auto x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({kBatch, kIn}), "x");
  auto labels = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({kBatch, kOut}), "labels");
  tw::Variable w1(g, tw::truncated_normal(g, tw::TensorShape({kIn, kHidden}), 0, 0.05), "w1");
  tw::Variable b1(g, tw::zeros(g, tw::TensorShape({kHidden})), "b1");
  tw::Variable w2(g, tw::truncated_normal(g, tw::TensorShape({kHidden, kOut}), 0, 0.05), "w2");
  tw::Variable b2(g, tw::zeros(g, tw::TensorShape({kOut})), "b2");
  auto logits = tw::matmul(tw::relu(tw::matmul(x, w1) + b1), w2) + b2;
  auto loss = tw::reduce_mean(tw::softmax_cross_entropy_with_logits(labels, logits));
  tw::AdamOptimizer adam(0.001);
  auto train = adam.minimize(loss);

  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  tw::Tensor xs(tw::DType::kFloat, tw::TensorShape({kBatch, kIn}));
  tw::Tensor ys(tw::DType::kFloat, tw::TensorShape({kBatch, kOut}));
  for (float& v : xs.flat<float>()) v = uniform(rng);
  for (float& v : ys.flat<float>()) v = 0;
  for (int i = 0; i < kBatch; ++i) ys.flat<float>()[i * kOut + i % kOut] = 1;

  tw::SessionConfig config;
  config.intra_op_threads = threads;
  config.inter_op_threads = threads;
  tw::Session sess(g, "", config);
  sess.run(tw::global_variables_initializer(g));
  tw::FeedDict feeds = {{x, xs}, {labels, ys}};
  for (int i = 0; i < 20; ++i) sess.run(train, feeds);  // Warm-up: prepare and settle.
  std::vector<double> ms;
  for (int i = 0; i < steps; ++i) {
    auto start = std::chrono::steady_clock::now();
    sess.run(train, feeds);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  float final_loss = sess.run(loss, feeds).scalar<float>();
  std::printf("tensorweave MLP 784-256-10 batch 128 Adam, %d thread(s): %.3f ms/step median (%.0f steps/s), loss %.4f\n",
              threads, median, 1000.0 / median, final_loss);
  std::printf("RESULT ms_per_step=%.4f\n", median);
  return 0;
}
