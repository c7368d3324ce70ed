// Training step time of a 784 -> 256 -> 10 MLP (ReLU, softmax cross-entropy), batch 128,
// float32, Adam, on fixed random data. Prints the median step time.
//   mlp_training [--threads N] [--steps S]
#include <cstdio>
#include <cstring>
#include <vector>

#include "mlp_model.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"
#include "timing.h"

int main(int argc, char** argv) {
  tw::InitProcess();
  int threads = 1, steps = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
  }
  constexpr int kBatch = 128;
  tw::Graph g;
  g.set_seed(1);
  tw::bench::Mlp mlp = tw::bench::BuildMlp(g, kBatch);
  auto loss = mlp.loss;
  tw::AdamOptimizer adam(0.001);
  auto train = adam.minimize(loss);

  tw::SessionConfig config;
  config.intra_op_threads = threads;
  config.inter_op_threads = threads;
  tw::Session sess(g, "", config);
  sess.run(tw::global_variables_initializer(g));
  tw::FeedDict feeds = tw::bench::MlpBatch(mlp, kBatch, 5);
  // Warm-up: prepare and settle.
  const double median = 1e3 * tw::bench::MedianSeconds(steps, /*warmup=*/20, [&] { sess.run(train, feeds); });
  float final_loss = sess.run(loss, feeds).scalar<float>();
  std::printf("tensorweave MLP 784-256-10 batch 128 Adam, %d thread(s): %.3f ms/step median (%.0f steps/s), loss %.4f\n",
              threads, median, 1000.0 / median, final_loss);
  std::printf("RESULT ms_per_step=%.4f\n", median);
  return 0;
}
