// The C++ collective op builders (tensorweave/collective_ops.h) on three real `tw server`
// processes: an all-reduce per task (sum and mean of values whose sum is known), then a
// broadcast from task 2, all in one graph run from task 0's session.
#include <gtest/gtest.h>

#include <string>

#include "tensorweave/collective_ops.h"
#include "tensorweave/tensorweave.h"
#include "testing/local_cluster.h"

namespace tw {
namespace {

TEST(CollectiveTest, AllReduceAndBroadcastAcrossServerProcesses) {
  auto cluster = testing::LocalCluster::Start({{"worker", 3}}, std::string(TW_BINARY_DIR) + "/tools/tw");
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  std::vector<Output> sums, means, received;
  const TensorShape shape({2, 3});
  for (int t = 0; t < 3; ++t) {
    auto on = g.device("/job:worker/task:" + std::to_string(t));
    // Task t holds t + i for element i: the sum is 3 + 3i, the mean 1 + i.
    std::vector<float> values(6);
    for (int i = 0; i < 6; ++i) values[i] = static_cast<float>(t + i);
    Output x = constant(g, values, shape, "x" + std::to_string(t));
    sums.push_back(collective_all_reduce(x, {3, 1, 1}, "Add", "Id"));
    means.push_back(collective_all_reduce(x, {3, 1, 2}, "Add", "Div"));
    received.push_back(t == 2 ? collective_broadcast_send(x, {3, 1, 3})
                              : collective_broadcast_recv(g, DType::kFloat, shape, {3, 1, 3}));
  }
  Session s(g, (*cluster)->target("worker", 0));
  std::vector<Output> fetches = sums;
  fetches.insert(fetches.end(), means.begin(), means.end());
  fetches.insert(fetches.end(), received.begin(), received.end());
  std::vector<Tensor> out = s.run(fetches);
  for (int t = 0; t < 3; ++t) {
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(out[t].flat<float>()[i], 3.0f + 3 * i) << "sum on task " << t;
      EXPECT_EQ(out[3 + t].flat<float>()[i], 1.0f + i) << "mean on task " << t;
      EXPECT_EQ(out[6 + t].flat<float>()[i], 2.0f + i) << "broadcast on task " << t;
    }
    EXPECT_EQ(out[6 + t].shape(), shape);
  }
}

}  // namespace
}  // namespace tw
