// Traced runs (RunOptions.trace_level): RunMetadata.step_stats from a local session on
// two CPU devices; nothing recorded without tracing.
#include <gtest/gtest.h>

#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "tensorweave/proto/config.pb.h"
#include "tensorweave/tensorweave.h"
#include "core/proto_namespace.h"
#include "testing/test_util.h"

namespace tw {
namespace {

struct TwoDeviceGraph {
  Graph g;
  Output x, y1, y2, y, big;
  TwoDeviceGraph() {
    x = constant(g, 2);
    {
      auto on = g.device("/cpu:1");
      y2 = x - 66;
    }
    auto on = g.device("/cpu:0");
    y1 = x + 300;
    y = y1 + y2;
    big = fill(g, {3, 4}, constant(g, 1.5f));
  }
};

SessionConfig TwoCpus() {
  SessionConfig config;
  config.cpu_device_count = 2;
  return config;
}

RunOptions Traced(RunOptions::TraceLevel level = RunOptions::FULL_TRACE) {
  RunOptions options;
  options.set_trace_level(level);
  return options;
}

TEST(StepStatsTest, EveryNodeOfEveryDeviceOnceWithItsOutputs) {
  TwoDeviceGraph m;
  Session sess(m.g, "", TwoCpus());
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(sess.Run(Traced(), {}, {m.y.name(), m.big.name()}, {}, &out, &metadata).ok());
  EXPECT_EQ(out[0].scalar<int32_t>(), 238);
  const StepStats& stats = metadata.step_stats();
  ASSERT_EQ(stats.dev_stats_size(), 2);
  absl::flat_hash_map<std::string, const NodeExecStats*> nodes;
  std::set<std::string> devices;
  int sends = 0, recvs = 0;
  for (const DeviceStepStats& dev : stats.dev_stats()) {
    devices.insert(dev.device());
    for (const NodeExecStats& ns : dev.node_stats()) {
      EXPECT_TRUE(nodes.emplace(ns.node_name(), &ns).second) << ns.node_name() << " recorded twice";
      EXPECT_LE(ns.op_start_rel_micros(), ns.op_end_rel_micros());
      EXPECT_LE(ns.op_end_rel_micros(), ns.all_end_rel_micros());
      EXPECT_LE(ns.scheduled_micros(), ns.all_start_micros());
      EXPECT_GT(ns.all_start_micros(), 0);
      EXPECT_TRUE(absl::StartsWith(ns.timeline_label(), ns.node_name() + " = ")) << ns.timeline_label();
      if (absl::StrContains(ns.timeline_label(), " = _Send(")) ++sends;
      if (absl::StrContains(ns.timeline_label(), " = _Recv(")) {
        ++recvs;
        // The peer: the other device.
        const std::string other = absl::EndsWith(dev.device(), "CPU:0") ? "CPU:1" : "CPU:0";
        EXPECT_TRUE(absl::StrContains(ns.timeline_label(), "@/job:localhost/replica:0/task:0/device:" + other + ")"))
            << ns.timeline_label();
        EXPECT_TRUE(absl::StrContains(ns.timeline_label(), "us in the rendezvous")) << ns.timeline_label();
      }
    }
  }
  EXPECT_EQ(devices, (std::set<std::string>{"/job:localhost/replica:0/task:0/device:CPU:0",
                                            "/job:localhost/replica:0/task:0/device:CPU:1"}));
  // x (on CPU:0) goes to CPU:1, y2 comes back.
  EXPECT_EQ(sends, 2);
  EXPECT_EQ(recvs, 2);
  for (const Output& o : {m.x, m.y1, m.y2, m.y, m.big}) ASSERT_TRUE(nodes.contains(o.op().name())) << o.name();
  // A node starts after the node it consumes on its device finished.
  const NodeExecStats& y1 = *nodes[m.y1.op().name()];
  const NodeExecStats& y = *nodes[m.y.op().name()];
  EXPECT_GE(y.all_start_micros(), y1.all_start_micros() + y1.all_end_rel_micros());
  EXPECT_TRUE(absl::StartsWith(y.timeline_label(), m.y.op().name() + " = Add(" + m.y1.op().name() + ", "))
      << y.timeline_label();
  // Outputs: slot, dtype, shape, bytes.
  ASSERT_EQ(y.output_size(), 1);
  EXPECT_EQ(y.output(0).slot(), 0);
  EXPECT_EQ(y.output(0).tensor_description().dtype(), DT_INT32);
  EXPECT_EQ(y.output(0).tensor_description().shape().dim_size(), 0);
  EXPECT_EQ(y.output(0).tensor_description().allocation_description().requested_bytes(), 4);
  const NodeExecStats& big = *nodes[m.big.op().name()];
  ASSERT_EQ(big.output_size(), 1);
  EXPECT_EQ(big.output(0).tensor_description().dtype(), DT_FLOAT);
  ASSERT_EQ(big.output(0).tensor_description().shape().dim_size(), 2);
  EXPECT_EQ(big.output(0).tensor_description().shape().dim(0).size(), 3);
  EXPECT_EQ(big.output(0).tensor_description().shape().dim(1).size(), 4);
  EXPECT_EQ(big.output(0).tensor_description().allocation_description().requested_bytes(), 48);
}

TEST(StepStatsTest, EveryTraceLevelRecords) {
  Graph g;
  auto y = constant(g, 3) * 4;
  Session sess(g);
  std::vector<Tensor> out;
  for (auto level : {RunOptions::SOFTWARE_TRACE, RunOptions::HARDWARE_TRACE, RunOptions::FULL_TRACE}) {
    RunMetadata metadata;
    ASSERT_TRUE(sess.Run(Traced(level), {}, {y.name()}, {}, &out, &metadata).ok());
    ASSERT_EQ(metadata.step_stats().dev_stats_size(), 1);
    EXPECT_EQ(metadata.step_stats().dev_stats(0).device(), "/job:localhost/replica:0/task:0/device:CPU:0");
    // Const, Const, Mul, _Retval.
    EXPECT_EQ(metadata.step_stats().dev_stats(0).node_stats_size(), 4);
  }
}

TEST(StepStatsTest, NothingRecordedWithoutTracing) {
  TwoDeviceGraph m;
  Session sess(m.g, "", TwoCpus());
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(sess.Run(Traced(RunOptions::NO_TRACE), {}, {m.y.name()}, {}, &out, &metadata).ok());
  EXPECT_FALSE(metadata.has_step_stats());
  EXPECT_EQ(out[0].scalar<int32_t>(), 238);
  ASSERT_TRUE(sess.Run({}, {m.y.name()}, {}, &out, nullptr, 0, &metadata).ok());
  EXPECT_FALSE(metadata.has_step_stats());
  // A traced run without a RunMetadata to fill runs as an untraced one.
  ASSERT_TRUE(sess.Run(Traced(), {}, {m.y.name()}, {}, &out, nullptr).ok());
  EXPECT_EQ(out[0].scalar<int32_t>(), 238);
}

}  // namespace
}  // namespace tw
