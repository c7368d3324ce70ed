// The seeds' map/reduce starting point: the mean of 100 random values fed through a
// placeholder, computed by the graph and checked against a plain loop.
#include <cmath>
#include <iostream>
#include <random>

#include "tensorweave/process.h"
#include "tensorweave/tensorweave.h"

int main() {
  tw::InitProcess();
  try {
    tw::Graph g;
    auto x = tw::placeholder(g, tw::DType::kFloat, tw::PartialShape({100}), "x");
    auto mean = tw::reduce_mean(x);

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    tw::Tensor values(tw::DType::kFloat, tw::TensorShape({100}));
    double expected = 0;
    for (float& v : values.flat<float>()) {
      v = uniform(rng);
      expected += v;
    }
    expected /= 100;

    tw::Session sess(g);
    float result = sess.run(mean, {{x, values}}).scalar<float>();
    std::cout << "mean of 100 random values: " << result << " (plain loop: " << expected << ")\n";
    return std::abs(result - expected) < 1e-5 ? 0 : 1;
  } catch (const tw::StatusError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
