// Seed 003's data-parallel program: the y = e^x MLP of exp_mlp (1 -> 16 -> 1, Adam) with
// its parameters on the master task, and each batch split between two worker tasks that
// compute gradients (compute_gradients) on their slice. The gradients are averaged on
// the master, weighted by slice size, and applied with one apply_gradients. The same
// model is trained in this process on the same batches alongside, for comparison.
//   data_parallel_exp [--cluster_spec=SPEC] [--steps N] [--split K] [--seed S] [--print_every N]
// SPEC has the seed's jobs: master|host:port,worker|host:port,worker_|host:port. Without
// it, the example starts those three tasks in-process. --split is the size of the first
// worker's slice of each batch of 100 (default 70).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>

#include "example_cluster.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

namespace {

constexpr int kBatch = 100;

// The network on `x`, its variables in the variable scope "ps" (made by the first call,
// reused by the others, as the seed does with get_variable).
tw::Output Mlp(tw::Graph& g, const tw::Output& x) {
  auto vs = tw::variable_scope(g, "ps", tw::AUTO_REUSE);
  auto w1 = tw::get_variable(g, "W1", tw::TensorShape({1, 16}), tw::DType::kFloat,
                             tw::random_uniform_initializer(0, 1, /*seed=*/1));
  auto b1 = tw::get_variable(g, "b1", tw::TensorShape({16}), tw::DType::kFloat, tw::zeros_initializer());
  auto w2 = tw::get_variable(g, "W2", tw::TensorShape({16, 1}), tw::DType::kFloat,
                             tw::random_uniform_initializer(0, 1, /*seed=*/2));
  auto b2 = tw::get_variable(g, "b2", tw::TensorShape({1}), tw::DType::kFloat, tw::zeros_initializer());
  return tw::matmul(tw::sigmoid(tw::matmul(x, w1) + b1), w2) + b2;
}

tw::Output MeanSquaredError(tw::Graph& g, const tw::Output& x, const tw::Output& y) {
  return tw::reduce_mean(tw::square(Mlp(g, x) - y));
}

tw::Output Placeholder(tw::Graph& g, const std::string& name) {
  return tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({-1, 1}), name);
}

// Rows [begin, begin + count) of a [n, 1] float tensor.
tw::Tensor Rows(const tw::Tensor& t, int begin, int count) {
  tw::Tensor rows(tw::DType::kFloat, tw::TensorShape({count, 1}));
  std::copy_n(t.flat<float>().begin() + begin, count, rows.flat<float>().begin());
  return rows;
}

int IntFlag(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], name)) return std::atoi(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  tw::InitProcess();
  const int steps = IntFlag(argc, argv, "--steps", 1000);
  const int split = IntFlag(argc, argv, "--split", 70);
  const int seed = IntFlag(argc, argv, "--seed", 1);
  const int print_every = std::max(1, IntFlag(argc, argv, "--print_every", 100));
  if (split <= 0 || split >= kBatch || steps <= 0) {
    std::cerr << "error: need 0 < --split < " << kBatch << " and --steps > 0\n";
    return 2;
  }
  try {
    auto cluster = tw::examples::ClusterFromArgs(argc, argv, {{"master", 1}, {"worker", 1}, {"worker_", 1}});
    const int sizes[2] = {split, kBatch - split};

    // Data parallel: parameters, averaging and the update on the master; a tower per worker.
    tw::Graph g;
    g.set_seed(seed);
    tw::AdamOptimizer optimizer(0.05);
    std::vector<tw::GradsAndVars> tower_grads;
    std::vector<tw::Output> tower_losses;
    {
      auto on = g.device("/job:master/task:0");
      Mlp(g, Placeholder(g, "unused_x"));  // Makes the variables here, on the master.
    }
    const char* workers[2] = {"/job:worker/task:0", "/job:worker_/task:0"};
    for (int k = 0; k < 2; ++k) {
      auto on = g.device(workers[k]);
      auto x = Placeholder(g, "x"), y = Placeholder(g, "y");
      g.add_to_collection("x", x);
      g.add_to_collection("y", y);
      tower_losses.push_back(MeanSquaredError(g, x, y));
      tower_grads.push_back(optimizer.compute_gradients(tower_losses.back()));
    }
    tw::Output loss;
    tw::Operation train;
    {
      auto on = g.device("/job:master/task:0");
      std::vector<tw::Output> weights = {tw::constant(g, static_cast<float>(sizes[0])),
                                         tw::constant(g, static_cast<float>(sizes[1]))};
      auto step = tw::get_or_create_global_step(g);
      train = optimizer.apply_gradients(tw::average_gradients(tower_grads, weights), &step);
      // The loss of the whole batch: the slices' mean losses weighted by their sizes.
      loss = (weights[0] * tower_losses[0] + weights[1] * tower_losses[1]) / float{kBatch};
    }
    tw::Session sess(g, "grpc://" + tw::ValueOrThrow(cluster.spec.address("master", 0)));
    sess.run(tw::global_variables_initializer(g));

    // The single-process run: the same model, seeds and batches, in this process.
    tw::Graph single;
    single.set_seed(seed);
    auto sx = Placeholder(single, "x"), sy = Placeholder(single, "y");
    auto single_loss = MeanSquaredError(single, sx, sy);
    tw::AdamOptimizer single_optimizer(0.05);
    auto single_step = tw::get_or_create_global_step(single);
    auto single_train = single_optimizer.minimize(single_loss, &single_step);
    tw::Session single_sess(single);
    single_sess.run(tw::global_variables_initializer(single));

    std::cout.precision(9);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    tw::Tensor xs(tw::DType::kFloat, tw::TensorShape({kBatch, 1}));
    tw::Tensor ys(tw::DType::kFloat, tw::TensorShape({kBatch, 1}));
    const auto xcol = g.get_collection("x"), ycol = g.get_collection("y");
    double max_relative = 0;
    float value = 0, single_value = 0;
    for (int step = 1; step <= steps; ++step) {
      for (int i = 0; i < kBatch; ++i) {
        xs.flat<float>()[i] = uniform(rng);
        ys.flat<float>()[i] = std::exp(xs.flat<float>()[i]);
      }
      tw::FeedDict feeds;
      for (int k = 0, begin = 0; k < 2; begin += sizes[k], ++k) {
        feeds.emplace_back(xcol[k], Rows(xs, begin, sizes[k]));
        feeds.emplace_back(ycol[k], Rows(ys, begin, sizes[k]));
      }
      value = sess.run({loss}, feeds, {train})[0].scalar<float>();
      single_value = single_sess.run({single_loss}, {{sx, xs}, {sy, ys}}, {single_train})[0].scalar<float>();
      max_relative = std::max(max_relative, std::abs(double{value} - single_value) / std::abs(double{single_value}));
      if (step % print_every == 0) {
        std::cout << "step " << step << "  loss " << value << "  single-process " << single_value << "\n";
      }
    }
    std::cout << "final loss after " << steps << " steps: data-parallel " << value << ", single process "
              << single_value << " (largest relative difference over the run: " << max_relative << ")\n";
    return 0;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
