// Graphs spread over several local CPU devices: partitioning, _Send/_Recv through the
// step's rendezvous, cross-device control edges, errors that cancel the other partitions.
#include <gtest/gtest.h>

#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

SessionConfig TwoCpus() {
  SessionConfig config;
  config.cpu_device_count = 2;
  return config;
}

TEST(MultiDeviceTest, Seed238AcrossTwoDevices) {
  Graph g;
  auto x = constant(g, 2);
  Output y1, y2, y;
  {
    auto on = g.device("/cpu:1");
    y2 = x - 66;
  }
  {
    auto on = g.device("/cpu:0");
    y1 = x + 300;
    y = y1 + y2;
  }
  Session sess(g, "", TwoCpus());
  EXPECT_EQ(sess.run(y).scalar<int32_t>(), 238);
  EXPECT_EQ(sess.list_devices().size(), 2u);
}

TEST(MultiDeviceTest, MapReduceMeanWithUnequalSlices) {
  Graph g;
  auto x = placeholder(g, DType::kFloat, PartialShape({100}), "x");
  Output mean1, size1, mean2, size2, mean;
  {
    auto on = g.device("/cpu:1");
    auto first = slice(x, {0}, {30});
    mean1 = reduce_mean(first);
    size1 = cast(size(first), DType::kFloat);
  }
  {
    auto on = g.device("/cpu:0");
    auto second = slice(x, {30}, {-1});
    mean2 = reduce_mean(second);
    size2 = cast(size(second), DType::kFloat);
    mean = (size1 * mean1 + size2 * mean2) / (size1 + size2);
  }
  Tensor values(DType::kFloat, TensorShape({100}));
  double expected = 0;
  for (int i = 0; i < 100; ++i) {
    values.flat<float>()[i] = static_cast<float>(i * i % 17);
    expected += values.flat<float>()[i];
  }
  Session sess(g, "", TwoCpus());
  EXPECT_NEAR(sess.run(mean, {{x, values}}).scalar<float>(), expected / 100, 1e-4);
}

TEST(MultiDeviceTest, ChainThatCrossesDevicesManyTimes) {
  Graph g;
  Output x = constant(g, 0.0f);
  for (int i = 0; i < 20; ++i) {
    auto on = g.device(i % 2 ? "/cpu:1" : "/cpu:0");
    x = x + 1.0;
  }
  Session sess(g, "", TwoCpus());
  EXPECT_EQ(sess.run(x).scalar<float>(), 20.0f);
  EXPECT_EQ(sess.run(x).scalar<float>(), 20.0f) << "a second step reuses the partitions";
}

TEST(MultiDeviceTest, ControlEdgeAcrossDevicesOrdersEffects) {
  Graph g;
  Variable v(g, constant(g, 1.0f), "v");  // On the default device, cpu:0.
  auto init = global_variables_initializer(g);
  Output update, read;
  {
    auto on = g.device("/cpu:0");
    update = v.assign(constant(g, 7.0f));
  }
  {
    auto on = g.device("/cpu:1");
    auto deps = g.control_dependencies({update});
    read = identity(constant(g, 0.0f)) + 1.0;
  }
  Session sess(g, "", TwoCpus());
  sess.run(init);
  sess.run(std::vector<Output>{read});
  EXPECT_EQ(sess.run(v.value()).scalar<float>(), 7.0f) << "the assign ran as a dependency of cpu:1's op";
}

TEST(MultiDeviceTest, VariableOnOneDeviceReadOnAnother) {
  Graph g;
  Variable w;
  {
    auto on = g.device("/cpu:1");
    w = Variable(g, constant(g, 3.0f), "w");
  }
  Output y;
  {
    auto on = g.device("/cpu:0");
    y = w.value() * 2.0;
  }
  Session sess(g, "", TwoCpus());
  sess.run(global_variables_initializer(g));
  EXPECT_EQ(sess.run(y).scalar<float>(), 6.0f);
}

TEST(MultiDeviceTest, ErrorInOnePartitionEndsTheWholeStep) {
  Graph g;
  auto p = placeholder(g, DType::kFloat, PartialShape({}), "unfed");
  Output far, y;
  {
    auto on = g.device("/cpu:1");
    far = p * 2.0;  // Fails: nothing feeds `unfed`.
  }
  {
    auto on = g.device("/cpu:0");
    y = far + 1.0;  // Waits on a _Recv that never gets its tensor.
  }
  Session sess(g, "", TwoCpus());
  try {
    sess.run(y);
    FAIL() << "the step succeeded without its placeholder";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "node 'unfed' (Placeholder)");
  }
  EXPECT_EQ(sess.run(y, {{p, Tensor::Scalar(1.0f)}}).scalar<float>(), 3.0f) << "the session still works";
}

}  // namespace
}  // namespace tw
