// The benchmarks' 784 -> 256 -> 10 MLP (ReLU, softmax cross-entropy, float32) and its
// fixed random batch, as bench/torch_*.py build them: one definition for every driver.
#ifndef TENSORWEAVE_BENCH_MLP_MODEL_H_
#define TENSORWEAVE_BENCH_MLP_MODEL_H_

#include <cstdint>
#include <random>

#include "tensorweave/tensorweave.h"

namespace tw::bench {

constexpr int kIn = 784, kHidden = 256, kOut = 10;

struct Mlp {
  Output x, labels, loss;
};

// Placeholders of `batch` rows and the loss; the variables in the current device scope.
inline Mlp BuildMlp(Graph& g, int batch) {
  Mlp m;
  m.x = placeholder(g, DType::kFloat, PartialShape({batch, kIn}), "x");
  m.labels = placeholder(g, DType::kFloat, PartialShape({batch, kOut}), "labels");
  Variable w1(g, truncated_normal(g, TensorShape({kIn, kHidden}), 0, 0.05), "w1");
  Variable b1(g, zeros(g, TensorShape({kHidden})), "b1");
  Variable w2(g, truncated_normal(g, TensorShape({kHidden, kOut}), 0, 0.05), "w2");
  Variable b2(g, zeros(g, TensorShape({kOut})), "b2");
  auto logits = matmul(relu(matmul(m.x, w1) + b1), w2) + b2;
  m.loss = reduce_mean(softmax_cross_entropy_with_logits(m.labels, logits));
  return m;
}

// Uniform [0, 1) inputs (seeded) and one-hot labels i % 10, as the PyTorch peers.
inline FeedDict MlpBatch(const Mlp& m, int batch, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Tensor xs(DType::kFloat, TensorShape({batch, kIn}));
  Tensor ys(DType::kFloat, TensorShape({batch, kOut}));
  for (float& v : xs.flat<float>()) v = uniform(rng);
  for (float& v : ys.flat<float>()) v = 0;
  for (int i = 0; i < batch; ++i) ys.flat<float>()[i * kOut + i % kOut] = 1;
  return {{m.x, xs}, {m.labels, ys}};
}

}  // namespace tw::bench

#endif  // TENSORWEAVE_BENCH_MLP_MODEL_H_
