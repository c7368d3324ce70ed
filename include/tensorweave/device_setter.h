// replica_device_setter, as TensorFlow 1.x's tf.train.replica_device_setter: a device
// function that puts variables on parameter-server tasks and every other op on the
// worker device.
//
//   auto cluster = tw::ClusterSpec::Parse("ps|h:1;h:2,worker|h:3");
//   {
//     auto on = g.device(tw::replica_device_setter(*cluster, "/job:worker/task:0"));
//     tw::Variable w1(g, ...);  // /job:ps/task:0
//     tw::Variable w2(g, ...);  // /job:ps/task:1 (round-robin)
//     auto y = tw::matmul(x, w1);  // /job:worker/task:0
//   }
//
// As in TF, a device already set by a device scope inside the setter's wins field by
// field, and a variable whose device names another job than the ps job keeps its task.
// The strategy is asked for every ps op created in its scope, including the slots an
// optimizer makes under colocate_with (which then puts them with their variable anyway),
// as TF does. Invalid arguments throw StatusError (InvalidArgument).
#ifndef TENSORWEAVE_DEVICE_SETTER_H_
#define TENSORWEAVE_DEVICE_SETTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensorweave/cluster_spec.h"
#include "tensorweave/graph.h"

namespace tw {

// TF's STANDARD_PS_OPS: the op types placed on ps tasks by default.
std::vector<std::string> standard_ps_ops();

// Picks the ps task (0 .. ps_tasks-1) of a ps op.
using PsStrategy = std::function<int(const DeviceFunctionInput& op)>;

// Task 0, 1, ..., num_tasks-1, 0, ... in creation order (TF's default).
class RoundRobinStrategy {
 public:
  explicit RoundRobinStrategy(int num_tasks);
  int operator()(const DeviceFunctionInput& op);

 private:
  int num_tasks_;
  int next_task_ = 0;
};

// The bytes of a variable op: its "shape" attr's elements times its "dtype" attr's size
// (TF's byte_size_load_fn); 0 for an op without both attrs. InvalidArgument naming the
// op when the shape is not fully defined.
int64_t byte_size_load_fn(const DeviceFunctionInput& op);

// Each op to the task with the least load so far (the lowest index on a tie), then adds
// load_fn(op) to that task (TF's GreedyLoadBalancingStrategy).
class GreedyLoadBalancingStrategy {
 public:
  explicit GreedyLoadBalancingStrategy(
      int num_tasks, std::function<int64_t(const DeviceFunctionInput&)> load_fn = byte_size_load_fn);
  int operator()(const DeviceFunctionInput& op);
  const std::vector<int64_t>& loads() const { return loads_; }

 private:
  std::vector<int64_t> loads_;
  std::function<int64_t(const DeviceFunctionInput&)> load_fn_;
};

// ps_tasks ps tasks (0: a device function that changes nothing). ps_ops empty means
// standard_ps_ops(); ps_strategy empty means RoundRobinStrategy(ps_tasks).
DeviceFunction replica_device_setter(int ps_tasks, const std::string& worker_device = "/job:worker",
                                     const std::string& ps_device = "/job:ps",
                                     std::vector<std::string> ps_ops = {},
                                     PsStrategy ps_strategy = nullptr);
// As above with ps_tasks = the number of tasks of ps_device's job in `cluster` (a cluster
// without that job gives a device function that changes nothing, as TF).
DeviceFunction replica_device_setter(const ClusterSpec& cluster,
                                     const std::string& worker_device = "/job:worker",
                                     const std::string& ps_device = "/job:ps",
                                     std::vector<std::string> ps_ops = {},
                                     PsStrategy ps_strategy = nullptr);

}  // namespace tw

#endif  // TENSORWEAVE_DEVICE_SETTER_H_
