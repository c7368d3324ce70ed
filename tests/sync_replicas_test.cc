// Synchronous data-parallel training on real `tw server` processes (ps: 1, worker: 2):
// each worker thread builds its own graph and session to its own task.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"

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

// Worker `task`'s graph for the late-join test: loss = w[task], so a worker's gradient is
// the unit vector of its own coordinate and w shows whose gradients were applied: each
// sync step moves the sum of w's coordinates down by exactly one (SGD, rate 1, the mean
// of the aggregated gradients), split between the workers that contributed.
struct CoordinateWorker {
  Graph g;
  Variable w, step;
  GradientDescentOptimizer sgd{1.0};
  SyncReplicasOptimizer sync{sgd, 2, 2};
  Operation train;
  Output w_value, step_value;  // Made before the chief's sync loop starts.

  explicit CoordinateWorker(int task) {
    {
      auto on = g.device("/job:ps/task:0");
      w = Variable(g, zeros(g, TensorShape({2})), "w");
      step = get_or_create_global_step(g);
    }
    auto on = g.device("/job:worker/task:" + std::to_string(task));
    std::vector<float> unit(2, 0.0f);
    unit[task] = 1.0f;
    train = sync.minimize(reduce_sum(w * constant(g, unit, TensorShape({2}))), step);
    w_value = w.value();
    step_value = step.value();
  }
};

MonitoredTrainingSessionOptions SyncOptions(const testing::LocalCluster& cluster, int task,
                                            std::shared_ptr<SessionRunHook> sync_hook) {
  MonitoredTrainingSessionOptions o;
  o.master = cluster.target("worker", task);
  o.is_chief = task == 0;
  o.log_step_count_steps = 0;
  o.recovery_wait_secs = 0.05;
  o.max_wait_secs = 60;
  o.hooks = {std::move(sync_hook)};
  return o;
}

// The chief trains alone (its hook's init tokens let one worker supply both gradients of
// a step); worker 1's client starts only once the global step reached kJoinAt, joins the
// lockstep and contributes; the chief ends training after worker 1's kLateRuns-th run.
TEST(SyncReplicasClusterTest, WorkerJoiningLateContributesUnderMonitoredSessions) {
  auto started = testing::LocalCluster::Start({{"ps", 1}, {"worker", 2}}, kTw);
  ASSERT_TRUE(started.ok()) << started.status();
  auto& cluster = **started;
  constexpr int64_t kJoinAt = 10;
  constexpr int kLateRuns = 30;
  CoordinateWorker chief(0), late(1);
  auto chief_hook = chief.sync.make_session_run_hook(/*is_chief=*/true);
  absl::Notification join;
  std::atomic<int> late_runs{0};
  int64_t steps_by_runner = -1;
  std::thread chief_thread([&] {
    MonitoredTrainingSession sess(chief.g, SyncOptions(cluster, 0, chief_hook));
    while (late_runs.load() < kLateRuns) {
      const int64_t step = sess.run({chief.step_value}, {}, {chief.train})[0].scalar<int64_t>();
      if (step >= kJoinAt && !join.HasBeenNotified()) join.Notify();
    }
    const auto* runner = static_cast<SyncReplicasOptimizerHook&>(*chief_hook).chief_runner();
    EXPECT_NE(runner, nullptr) << "the chief's hook started no sync loop";
    sess.close();  // Stops the sync loop: worker 1's pending or next run ends.
    if (runner != nullptr) steps_by_runner = runner->steps();
  });
  join.WaitForNotification();
  MonitoredTrainingSession sess(late.g, SyncOptions(cluster, 1, late.sync.make_session_run_hook(false)));
  const std::vector<Tensor> at_join = sess.run({late.w_value, late.step_value});
  for (;;) {
    try {
      sess.run(late.train);
      ++late_runs;
    } catch (const StatusError& e) {
      EXPECT_STATUS(e.status(), absl::StatusCode::kOutOfRange, "sync_token_q");
      break;
    }
  }
  chief_thread.join();
  const std::vector<Tensor> final_values = sess.run({late.w_value, late.step_value});
  const int64_t join_step = at_join[1].scalar<int64_t>(), final_step = final_values[1].scalar<int64_t>();
  const float chief_w_at_join = at_join[0].flat<float>()[0], late_w_at_join = at_join[0].flat<float>()[1];
  const float chief_w = final_values[0].flat<float>()[0], late_w = final_values[0].flat<float>()[1];
  EXPECT_GE(join_step, kJoinAt);
  EXPECT_EQ(late_w_at_join, 0.0f) << "worker 1 contributed before it started";
  EXPECT_NEAR(chief_w_at_join, -join_step, 1e-3) << "the chief alone made every step before the join";
  EXPECT_GE(late_runs.load(), kLateRuns);
  EXPECT_GT(final_step, join_step) << "training stopped at the join";
  EXPECT_EQ(final_step, steps_by_runner) << "a global step was counted twice or lost";
  // Every step applied one averaged update (the coordinates fell by one per step) ...
  EXPECT_NEAR(chief_w + late_w, -static_cast<float>(final_step), 1e-3);
  // ... and after the join both workers' gradients were in them.
  EXPECT_LE(late_w, -1.0f) << "worker 1's gradients were not counted";
  EXPECT_LE(chief_w, chief_w_at_join - 1.0f) << "the chief's gradients were not counted after the join";
}

}  // namespace
}  // namespace tw
