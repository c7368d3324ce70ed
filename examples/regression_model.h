// The model of distributed_regression (and its tests): y = 2x + 1 fitted by gradient
// descent, the parameters and the global step on `ps_device`, the computation on
// `worker_device` (between-graph replication: each worker builds the same graph).
#ifndef TENSORWEAVE_EXAMPLES_REGRESSION_MODEL_H_
#define TENSORWEAVE_EXAMPLES_REGRESSION_MODEL_H_

#include <string>
#include <vector>

#include "tensorweave/tensorweave.h"

namespace tw::examples {

struct RegressionModel {
  Variable step, w, b;
  Output loss;
  Operation train;
};

inline RegressionModel BuildRegression(Graph& g, const std::string& ps_device, const std::string& worker_device,
                                       double learning_rate = 0.1) {
  RegressionModel m;
  {
    auto on = g.device(ps_device);
    m.step = get_or_create_global_step(g);
    m.w = Variable(g, constant(g, 0.0f), "w");
    m.b = Variable(g, constant(g, 0.0f), "b");
  }
  auto on = g.device(worker_device);
  Output x = constant(g, std::vector<float>{0, 1, 2, 3}, TensorShape({4}));
  Output y = constant(g, std::vector<float>{1, 3, 5, 7}, TensorShape({4}));
  m.loss = reduce_mean(square(m.w * x + m.b - y), {}, false, "loss");
  GradientDescentOptimizer opt(learning_rate);
  m.train = opt.minimize(m.loss, &m.step);
  return m;
}

}  // namespace tw::examples

#endif  // TENSORWEAVE_EXAMPLES_REGRESSION_MODEL_H_
