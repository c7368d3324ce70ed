// Seed 003's single-process model: an MLP (1 -> 16 -> 1) learning y = e^x on [0, 1],
// trained with Adam on fresh random batches until the loss is below 1e-3.
//   exp_mlp [--max_steps N] [--seed S]
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

int main(int argc, char** argv) {
  tw::InitProcess();
  int max_steps = 20000;
  int seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max_steps")) max_steps = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seed")) seed = std::atoi(argv[i + 1]);
  }
  try {
    tw::Graph g;
    g.set_seed(seed);
    auto x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, 1}), "x");
    auto y = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, 1}), "y");
    tw::Variable w1(g, tw::random_uniform(g, tw::TensorShape({1, 16}), 0.0, 1.0), "W1");
    tw::Variable b1(g, tw::zeros(g, tw::TensorShape({16})), "b1");
    tw::Variable w2(g, tw::random_uniform(g, tw::TensorShape({16, 1}), 0.0, 1.0), "W2");
    tw::Variable b2(g, tw::zeros(g, tw::TensorShape({1})), "b2");
    auto hidden = tw::sigmoid(tw::matmul(x, w1) + b1);
    auto prediction = tw::matmul(hidden, w2) + b2;
    auto loss = tw::reduce_mean(tw::square(prediction - y));
    tw::AdamOptimizer optimizer(0.05);
    auto global_step = tw::get_or_create_global_step(g);
    auto train = optimizer.minimize(loss, &global_step);

    tw::Session sess(g);
    sess.run(tw::global_variables_initializer(g));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    constexpr int kBatch = 100;
    tw::Tensor xs(tw::DType::kFloat, tw::TensorShape({kBatch, 1}));
    tw::Tensor ys(tw::DType::kFloat, tw::TensorShape({kBatch, 1}));
    for (int step = 1; step <= max_steps; ++step) {
      for (int i = 0; i < kBatch; ++i) {
        xs.flat<float>()[i] = uniform(rng);
        ys.flat<float>()[i] = std::exp(xs.flat<float>()[i]);
      }
      float value = sess.run({loss}, {{x, xs}, {y, ys}}, {train})[0].scalar<float>();
      if (step % 200 == 0 || value < 1e-3f) std::cout << "step " << step << "  loss " << value << "\n";
      if (value < 1e-3f) {
        std::cout << "reached loss < 1e-3 after " << step << " steps\n";
        return 0;
      }
    }
    std::cerr << "loss did not reach 1e-3 in " << max_steps << " steps\n";
    return 1;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
