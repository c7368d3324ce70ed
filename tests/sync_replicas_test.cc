// Synchronous data-parallel training on real `tw server` processes (ps: 1, worker: 2):
// each worker thread builds its own graph and session to its own task.
#include <gtest/gtest.h>

#include <thread>

#include "tensorweave/tensorweave.h"
#include "testing/local_cluster.h"
#include "testing/test_util.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";

// Worker `task`'s graph: y = x W on its own batch, W and the global step on the ps.
struct Worker {
  Graph g;
  Variable w, step;
  GradientDescentOptimizer sgd{0.05};
  SyncReplicasOptimizer sync{sgd, 2, 2};
  Operation train;
  std::unique_ptr<Session> sess;

  Worker(const testing::LocalCluster& cluster, int task) {
    {
      auto on = g.device("/job:ps/task:0");
      w = Variable(g, zeros(g, TensorShape({2, 1})), "W");
      step = get_or_create_global_step(g);
    }
    // Both batches fit W = (1, -1).
    std::vector<float> x = task == 0 ? std::vector<float>{1, 0, 1, 1} : std::vector<float>{0, 1, 2, 1};
    std::vector<float> y = task == 0 ? std::vector<float>{1, 0} : std::vector<float>{-1, 1};
    auto loss = reduce_mean(square(matmul(constant(g, x, TensorShape({2, 2})), w) -
                                   constant(g, y, TensorShape({2, 1}))));
    train = sync.minimize(loss, step);
    sess = std::make_unique<Session>(g, cluster.target("worker", task));
  }
};

TEST(SyncReplicasClusterTest, TwoWorkerProcessesTrainInLockstep) {
  auto started = testing::LocalCluster::Start({{"ps", 1}, {"worker", 2}}, kTw);
  ASSERT_TRUE(started.ok()) << started.status();
  auto& cluster = **started;
  Worker chief(cluster, 0), other(cluster, 1);
  chief.sess->run(global_variables_initializer(chief.g));
  chief.sess->run(local_variables_initializer(chief.g));
  chief.sess->run(chief.sync.chief_init_op());
  other.sess->run(local_variables_initializer(other.g));
  other.sess->run(other.sync.local_step_init_op());
  SyncReplicasChiefRunner runner(chief.g, cluster.target("worker", 0), chief.sync);
  runner.Start();

  // The chief makes kSteps steps, then stops the sync loop; the other worker runs until
  // its step fails with OutOfRange (the token queue closed). Counting the other worker's
  // steps too could leave it waiting forever: a fast worker may take a slow one's token.
  constexpr int kSteps = 200;
  std::thread chief_thread([&] {
    for (int i = 0; i < kSteps; ++i) EXPECT_NO_THROW(chief.sess->run(chief.train));
    EXPECT_TRUE(runner.Stop().ok());
  });
  int other_steps = 0;
  for (;;) {
    try {
      other.sess->run(other.train);
      ++other_steps;
    } catch (const StatusError& e) {
      EXPECT_STATUS(e.status(), absl::StatusCode::kOutOfRange, "sync_token_q");
      break;
    }
  }
  chief_thread.join();
  // Every update averaged two contributions; each worker waited for a token per step.
  const int64_t global_step = other.sess->run(other.step.value()).scalar<int64_t>();
  EXPECT_EQ(global_step, runner.steps());
  EXPECT_GE(global_step, kSteps / 2);
  // A worker may take a token of the other's round, so neither bounds the count alone.
  EXPECT_LE(global_step, (kSteps + other_steps) / 2);
  EXPECT_GE(other_steps, kSteps / 2 - 1);
  Tensor w = other.sess->run(other.w.value());
  EXPECT_NEAR(w.flat<float>()[0], 1.0f, 1e-2);
  EXPECT_NEAR(w.flat<float>()[1], -1.0f, 1e-2);
  try {
    other.sess->run(other.train);
    FAIL() << "a worker step ran after the chief stopped";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kOutOfRange, "sync_token_q");
  }
}

}  // namespace
}  // namespace tw
