// replica_device_setter: variables to ps tasks by strategy, everything else to the worker
// device, merged with the device scopes around and inside it as TensorFlow does.
#include "tensorweave/device_setter.h"

#include <gtest/gtest.h>

#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

Variable MakeVar(Graph& g, const std::string& name, int64_t elements = 2) {
  return Variable(g, zeros(g, TensorShape({elements})), name);
}

std::string DeviceOf(const Variable& v) { return v.handle().op().device(); }

TEST(ReplicaDeviceSetterTest, RoundRobinOverTwoPsTasks) {
  Graph g;
  auto on = g.device(replica_device_setter(2));
  std::vector<Variable> vars;
  for (const char* name : {"a", "b", "c", "d", "e"}) vars.push_back(MakeVar(g, name));
  EXPECT_EQ(DeviceOf(vars[0]), "/job:ps/task:0");
  EXPECT_EQ(DeviceOf(vars[1]), "/job:ps/task:1");
  EXPECT_EQ(DeviceOf(vars[2]), "/job:ps/task:0");
  EXPECT_EQ(DeviceOf(vars[3]), "/job:ps/task:1");
  EXPECT_EQ(DeviceOf(vars[4]), "/job:ps/task:0");
  // The read and the initializer stay with their variable; other ops go to the worker.
  EXPECT_EQ(vars[1].read().op().device(), "/job:ps/task:1");
  EXPECT_EQ(vars[1].initializer().device(), "/job:ps/task:1");
  EXPECT_EQ(vars[1].initial_value().op().device(), "/job:worker");
  EXPECT_EQ((vars[0] + vars[1]).op().device(), "/job:worker");
}

TEST(ReplicaDeviceSetterTest, RoundRobinOverTheThreePsTasksOfAClusterSpec) {
  ClusterSpec cluster = ValueOrThrow(ClusterSpec::Parse(
      "ps|localhost:1;localhost:2;localhost:3,worker|localhost:4;localhost:5"));
  Graph g;
  auto on = g.device(replica_device_setter(cluster, "/job:worker/task:1"));
  std::vector<std::string> devices;
  for (const char* name : {"a", "b", "c", "d"}) devices.push_back(DeviceOf(MakeVar(g, name)));
  EXPECT_EQ(devices, (std::vector<std::string>{"/job:ps/task:0", "/job:ps/task:1",
                                               "/job:ps/task:2", "/job:ps/task:0"}));
  EXPECT_EQ(constant(g, 1.0f).op().device(), "/job:worker/task:1");
}

TEST(ReplicaDeviceSetterTest, GreedyPutsTheBigVariableAloneOnOneTask) {
  Graph g;
  auto on = g.device(replica_device_setter(2, "/job:worker", "/job:ps", {},
                                           GreedyLoadBalancingStrategy(2)));
  Variable big = MakeVar(g, "big", 1000);
  std::vector<Variable> small;
  for (const char* name : {"s1", "s2", "s3", "s4"}) small.push_back(MakeVar(g, name, 10));
  EXPECT_EQ(DeviceOf(big), "/job:ps/task:0");
  for (const Variable& v : small) EXPECT_EQ(DeviceOf(v), "/job:ps/task:1") << v.name();
}

TEST(ReplicaDeviceSetterTest, GreedyBalancesByBytesNotByCount) {
  GreedyLoadBalancingStrategy greedy(3);
  Graph g;
  auto on = g.device(replica_device_setter(3, "/job:worker", "/job:ps", {},
                                           [&greedy](const DeviceFunctionInput& op) { return greedy(op); }));
  // float32 [100] = 400 bytes, float64 [100] = 800, float32 [150] = 600.
  Variable a(g, zeros(g, TensorShape({100}), DType::kFloat), "a");
  Variable b(g, zeros(g, TensorShape({100}), DType::kDouble), "b");
  Variable c(g, zeros(g, TensorShape({150}), DType::kFloat), "c");
  Variable d(g, zeros(g, TensorShape({10}), DType::kFloat), "d");   // Least: task 0 (400).
  Variable e(g, zeros(g, TensorShape({10}), DType::kFloat), "e");   // Task 0 (440).
  EXPECT_EQ(DeviceOf(a), "/job:ps/task:0");
  EXPECT_EQ(DeviceOf(b), "/job:ps/task:1");
  EXPECT_EQ(DeviceOf(c), "/job:ps/task:2");
  EXPECT_EQ(DeviceOf(d), "/job:ps/task:0");
  EXPECT_EQ(DeviceOf(e), "/job:ps/task:0");
  EXPECT_EQ(greedy.loads(), (std::vector<int64_t>{480, 800, 600}));
}

TEST(ReplicaDeviceSetterTest, InnerScopesOverrideFieldByField) {
  Graph g;
  auto outer = g.device("/device:CPU:0");  // Fills only what the setter leaves unset.
  auto on = g.device(replica_device_setter(2, "/job:worker/task:0"));
  EXPECT_EQ(constant(g, 1.0f).op().device(), "/job:worker/task:0/device:CPU:0");
  {
    auto inner = g.device("/task:3");
    EXPECT_EQ(constant(g, 1.0f).op().device(), "/job:worker/task:3/device:CPU:0");
    EXPECT_EQ(DeviceOf(MakeVar(g, "v0")), "/job:ps/task:3/device:CPU:0");  // Strategy: 0.
  }
  {
    // Another job: the variable keeps that job and task, and the strategy is not asked.
    auto inner = g.device("/job:worker/task:1");
    EXPECT_EQ(DeviceOf(MakeVar(g, "pinned")), "/job:worker/task:1/device:CPU:0");
  }
  EXPECT_EQ(DeviceOf(MakeVar(g, "v1")), "/job:ps/task:1/device:CPU:0");
  {
    auto inner = g.device("/device:CPU:2");
    EXPECT_EQ(DeviceOf(MakeVar(g, "v2")), "/job:ps/task:0/device:CPU:2");
  }
}

TEST(ReplicaDeviceSetterTest, UserStrategyAndPsOps) {
  Graph g;
  auto on = g.device(replica_device_setter(
      4, "/job:worker", "/job:ps", {"VarHandleOp", "Const"},
      [](const DeviceFunctionInput& op) { return op.name == "w" ? 3 : 2; }));
  Variable w = MakeVar(g, "w");
  EXPECT_EQ(DeviceOf(w), "/job:ps/task:3");
  EXPECT_EQ(constant(g, 1.0f, "c").op().device(), "/job:ps/task:2");
  EXPECT_EQ(square(constant(g, 1.0f)).op().device(), "/job:worker");
}

TEST(ReplicaDeviceSetterTest, NoPsJobChangesNothing) {
  ClusterSpec workers_only = ValueOrThrow(ClusterSpec::Parse("worker|localhost:1;localhost:2"));
  Graph g;
  auto outer = g.device("/job:worker/task:1");
  auto on = g.device(replica_device_setter(workers_only));
  EXPECT_EQ(DeviceOf(MakeVar(g, "w")), "/job:worker/task:1");
  EXPECT_EQ(constant(g, 1.0f).op().device(), "/job:worker/task:1");
  auto none = g.device(replica_device_setter(0));
  EXPECT_EQ(constant(g, 2.0f).op().device(), "/job:worker/task:1");
}

TEST(ReplicaDeviceSetterTest, OptimizerSlotsLiveWithTheirVariable) {
  Graph g;
  auto on = g.device(replica_device_setter(2));
  Variable w = MakeVar(g, "w");  // Task 0.
  Variable b = MakeVar(g, "b");  // Task 1.
  auto loss = reduce_sum(square(w)) + reduce_sum(square(b));
  AdamOptimizer adam(0.1);
  MomentumOptimizer momentum(0.1, 0.9);
  adam.minimize(loss);
  momentum.minimize(loss);
  for (const Variable& var : {w, b}) {
    const std::string device = DeviceOf(var);
    for (const char* slot : {"m", "v"}) EXPECT_EQ(DeviceOf(adam.get_slot(var, slot)), device) << slot;
    EXPECT_EQ(DeviceOf(momentum.get_slot(var, "momentum")), device);
    EXPECT_EQ(g.operation("Adam/update_" + var.name() + "/ResourceApplyAdam").device(), device);
  }
  EXPECT_EQ(DeviceOf(w), "/job:ps/task:0");
  EXPECT_EQ(DeviceOf(b), "/job:ps/task:1");
  // As TF, Adam's beta powers live with the first variable by name: "b".
  EXPECT_EQ(DeviceOf(adam.get_beta_accumulators(g).first), "/job:ps/task:1");
}

TEST(ReplicaDeviceSetterTest, InvalidArguments) {
  EXPECT_STATUS(ErrorOf([] { replica_device_setter(-1); }), absl::StatusCode::kInvalidArgument,
                "replica_device_setter: ps_tasks must be >= 0, got -1");
  EXPECT_STATUS(ErrorOf([] { replica_device_setter(1, "/job:worker/nonsense:3"); }),
                absl::StatusCode::kInvalidArgument, "replica_device_setter: invalid worker_device");
  EXPECT_STATUS(ErrorOf([] { replica_device_setter(1, "/job:worker", "ps"); }),
                absl::StatusCode::kInvalidArgument, "replica_device_setter: invalid ps_device");
  EXPECT_STATUS(ErrorOf([] { GreedyLoadBalancingStrategy(0); }), absl::StatusCode::kInvalidArgument,
                "GreedyLoadBalancingStrategy: num_tasks must be positive, got 0");

  Graph g;
  {
    auto on = g.device(replica_device_setter(2, "/job:worker", "/job:ps", {},
                                             [](const DeviceFunctionInput&) { return 2; }));
    EXPECT_STATUS(ErrorOf([&] { MakeVar(g, "w"); }), absl::StatusCode::kInvalidArgument,
                  "replica_device_setter: ps_strategy chose task 2 for 'w' but there are 2 ps tasks");
  }
  {
    auto on = g.device(replica_device_setter(2, "/job:worker", "/job:ps", {},
                                             GreedyLoadBalancingStrategy(2)));
    auto added = g.TryAddOperation("VarHandleOp", "unknown",  {},
                                   {{"dtype", MakeAttr(DType::kFloat)},
                                    {"shape", MakeAttr(PartialShape({-1, 2}))}});
    EXPECT_STATUS(added.status(), absl::StatusCode::kInvalidArgument,
                  "byte_size_load_fn: 'unknown' (VarHandleOp) has shape [?,2], not fully defined");
  }
  auto bad = g.device([](const DeviceFunctionInput&) { return std::string("/job:x/bogus:1"); });
  EXPECT_STATUS(ErrorOf([&] { constant(g, 1.0f, "c"); }), absl::StatusCode::kInvalidArgument,
                "device function chose an invalid device for 'c'");
}

}  // namespace
}  // namespace tw
