// The seeds' map/reduce: the mean of 100 random values, computed as the means of two
// slices on two tasks and combined on task 0. The slices have unequal sizes (30 and 70),
// so the partial means are weighted by tw::size (seed exercise 2). --job renames the job
// (exercise 1): only the device strings change.
//   map_reduce_mean [--cluster_spec=SPEC] [--job=local]
#include <cmath>
#include <iostream>
#include <random>

#include "example_cluster.h"
#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

int main(int argc, char** argv) {
  tw::InitProcess();
  try {
    std::string job;
    auto cluster = tw::examples::ClusterFromArgs(argc, argv, "local", 2, &job);
    tw::Graph g;
    auto x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({100}), "x");
    tw::Output mean1, size1, mean;
    {
      auto on = g.device("/job:" + job + "/task:1");
      auto first = tw::slice(x, {0}, {30});
      mean1 = tw::reduce_mean(first);
      size1 = tw::cast(tw::size(first), tw::DType::kFloat);
    }
    {
      auto on = g.device("/job:" + job + "/task:0");
      auto second = tw::slice(x, {30}, {-1});
      auto size2 = tw::cast(tw::size(second), tw::DType::kFloat);
      mean = (size1 * mean1 + size2 * tw::reduce_mean(second)) / (size1 + size2);
    }
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    tw::Tensor values(tw::DType::kFloat, tw::TensorShape({100}));
    double expected = 0;
    for (float& v : values.flat<float>()) expected += (v = uniform(rng));
    expected /= 100;

    tw::Session sess(g, "grpc://" + tw::ValueOrThrow(cluster.spec.address(job, 0)));
    float result = sess.run(mean, {{x, values}}).scalar<float>();
    std::cout << "mean over /job:" << job << " tasks 0 and 1 (slices of 70 and 30): " << result
              << " (plain loop: " << expected << ")\n";
    return std::abs(result - expected) < 1e-5 ? 0 : 1;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
