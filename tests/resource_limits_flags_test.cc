// `tw server`'s limit flags: parsed strictly, and enforced by the server processes.
#include <gtest/gtest.h>

#include "testing/command_util.h"
#include "testing/local_cluster.h"
#include "tensorweave/tensorweave.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

TEST(ResourceLimitFlagsTest, BadValuesAreRefusedNamingTheFlag) {
  for (const char* flag : {"--max_tensor_bytes=lots", "--max_graph_nodes=0", "--max_graph_bytes=-5",
                           "--max_concurrent_steps=1.5"}) {
    testing::CommandResult r =
        testing::RunCommand(kTw + " server --cluster_spec=local\\|localhost:1 --job_name=local " + flag);
    EXPECT_EQ(r.exit_code, 2) << flag;
    const std::string name(flag, std::string(flag).find('='));
    EXPECT_NE(r.output.find(name + " must be a positive integer"), std::string::npos) << r.output;
  }
}

TEST(ResourceLimitFlagsTest, KernelOutputOverTheLimitFailsTheStep) {
  auto cluster = testing::LocalCluster::Start({{"local", 2}}, kTw, {"--max_tensor_bytes=4096"});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  auto n = placeholder(g, DType::kInt32, PartialShape({}), "n");
  Output sum;
  {
    auto on = g.device("/job:local/task:1");
    // Fill with a run-time size: n ones, made on task 1 and summed on task 0.
    auto dims = reshape(n, Axes{1});
    auto big = g.AddOperation("Fill", "big", {dims, constant(g, 1.0f)}, {}).output(0);
    {
      auto on0 = g.device("/job:local/task:0");
      sum = reduce_sum(big);
    }
  }
  Session sess(g, (*cluster)->target("local", 0));
  EXPECT_EQ(sess.run(sum, {{n, Tensor::Scalar<int32_t>(1024)}}).scalar<float>(), 1024.0f);
  // 1025 floats are refused by task 1 before it allocates them (the tensor received from
  // another task is checked too: ResourceLimitsTest.TensorReceivedOverTheLimitFailsTheStep).
  EXPECT_STATUS(ErrorOf([&] { sess.run(sum, {{n, Tensor::Scalar<int32_t>(1025)}}); }),
                absl::StatusCode::kResourceExhausted,
                "node 'big' (Fill): output 0: float32 [1025] tensor of 4100 bytes is over the max_tensor_bytes "
                "limit of 4096");
  // The cluster carries on.
  EXPECT_EQ(sess.run(sum, {{n, Tensor::Scalar<int32_t>(3)}}).scalar<float>(), 3.0f);
}

}  // namespace
}  // namespace tw
