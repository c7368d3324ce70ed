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

struct MlpParams {
  Variable w1, b1, w2, b2;
};

// The variables, in the current device scope.
inline MlpParams MakeMlpParams(Graph& g) {
  return {Variable(g, truncated_normal(g, TensorShape({kIn, kHidden}), 0, 0.05), "w1"),
          Variable(g, zeros(g, TensorShape({kHidden})), "b1"),
          Variable(g, truncated_normal(g, TensorShape({kHidden, kOut}), 0, 0.05), "w2"),
          Variable(g, zeros(g, TensorShape({kOut})), "b2")};
}

// The mean loss of a batch, computed in the current device scope.
inline Output MlpLoss(const MlpParams& p, const Output& x, const Output& labels) {
  auto logits = matmul(relu(matmul(x, p.w1) + p.b1), p.w2) + p.b2;
  return reduce_mean(softmax_cross_entropy_with_logits(labels, logits));
}

// Placeholders of `batch` rows and the loss; the variables in the current device scope.
inline Mlp BuildMlp(Graph& g, int batch) {
  Mlp m;
  m.x = placeholder(g, DType::kFloat, PartialShape({batch, kIn}), "x");
  m.labels = placeholder(g, DType::kFloat, PartialShape({batch, kOut}), "labels");
  m.loss = MlpLoss(MakeMlpParams(g), m.x, m.labels);
  return m;
}

struct MlpData {
  Tensor x, labels;
};

// Uniform [0, 1) inputs (seeded) and one-hot labels i % 10, as the PyTorch peers.
inline MlpData MlpBatchData(int batch, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  MlpData d{Tensor(DType::kFloat, TensorShape({batch, kIn})), Tensor(DType::kFloat, TensorShape({batch, kOut}))};
  for (float& v : d.x.flat<float>()) v = uniform(rng);
  for (float& v : d.labels.flat<float>()) v = 0;
  for (int i = 0; i < batch; ++i) d.labels.flat<float>()[i * kOut + i % kOut] = 1;
  return d;
}

inline FeedDict MlpBatch(const Mlp& m, int batch, uint32_t seed) {
  MlpData d = MlpBatchData(batch, seed);
  return {{m.x, d.x}, {m.labels, d.labels}};
}

}  // namespace tw::bench

#endif  // TENSORWEAVE_BENCH_MLP_MODEL_H_
