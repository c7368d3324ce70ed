// Between-graph replication on an in-process cluster (ps: 1 task, worker: 2 tasks): each
// worker builds its own graph and session to its own task, with the variables on
// /job:ps/task:0. Asynchronous training with plain SGD, and synchronous training with
// SyncReplicasOptimizer: exact global steps, averaged updates, stale gradients dropped,
// and stopping that leaves no thread waiting.
#include "tensorweave/sync_replicas.h"

#include <gtest/gtest.h>

#include <thread>

#include "tensorweave/server.h"
#include "testing/test_util.h"

namespace tw {
namespace {

constexpr float kLearningRate = 0.1f;

// One worker's data: y = x W for a W both workers share.
struct Batch {
  std::vector<float> x;  // [2, 2]
  std::vector<float> y;  // [2, 1]
};
const Batch kBatches[2] = {{{1, 0, 0, 1}, {1, 2}}, {{1, 1, 2, 0}, {3, 2}}};

// d/dW of mean((x W - y)^2) for one batch of 2 rows, by hand.
std::vector<double> Gradient(const Batch& b, const std::vector<double>& w) {
  std::vector<double> g(2, 0.0);
  for (int r = 0; r < 2; ++r) {
    const double err = b.x[2 * r] * w[0] + b.x[2 * r + 1] * w[1] - b.y[r];
    for (int c = 0; c < 2; ++c) g[c] += 2.0 / 2 * b.x[2 * r + c] * err;
  }
  return g;
}

// The graph and session of one worker.
struct Replica {
  Graph g;
  Variable w, step;
  Output loss, w_value, step_value;  // Made up front: a running chief runner reads the graph.
  Operation train;
  std::unique_ptr<SyncReplicasOptimizer> sync;
  std::unique_ptr<GradientDescentOptimizer> sgd;
  std::unique_ptr<Session> sess;

  // Builds the model and the train op (sync when replicas_to_aggregate > 0).
  Replica(const InProcessCluster& cluster, int task, int replicas_to_aggregate = 0,
          int total_num_replicas = 0) {
    {
      auto on = g.device("/job:ps/task:0");
      w = Variable(g, zeros(g, TensorShape({2, 1})), "W");
      step = get_or_create_global_step(g);
    }
    const Batch& b = kBatches[task];
    auto x = constant(g, b.x, TensorShape({2, 2}));
    auto y = constant(g, b.y, TensorShape({2, 1}));
    loss = reduce_mean(square(matmul(x, w) - y));
    sgd = std::make_unique<GradientDescentOptimizer>(kLearningRate);
    if (replicas_to_aggregate > 0) {
      sync = std::make_unique<SyncReplicasOptimizer>(*sgd, replicas_to_aggregate,
                                                     total_num_replicas);
      train = sync->minimize(loss, step);
    } else {
      train = sgd->minimize(loss, &step);
    }
    w_value = w.value();
    step_value = step.value();
    sess = std::make_unique<Session>(g, cluster.target("worker", task));
  }
  std::vector<double> W() {
    Tensor t = sess->run(w_value);
    return {t.flat<float>()[0], t.flat<float>()[1]};
  }
  int64_t GlobalStep() { return sess->run(step_value).scalar<int64_t>(); }
  absl::Status Train() {
    try {
      sess->run(train);
      return absl::OkStatus();
    } catch (const StatusError& e) {
      return e.status();
    }
  }
};

InProcessCluster StartCluster() {
  return ValueOrThrow(StartInProcessCluster({{"ps", 1}, {"worker", 2}}));
}

// Runs `steps` train steps on every replica at once, one thread each, all replicas
// finishing step k before any starts step k + 1: left free, a fast replica may take a
// slow one's sync token (as in TF), and the exact trajectories checked below assume
// lockstep.
void TrainTogether(std::vector<Replica*> replicas, int steps) {
  for (int i = 0; i < steps; ++i) {
    std::vector<std::thread> threads;
    for (Replica* r : replicas) {
      threads.emplace_back([r] { EXPECT_TRUE(r->Train().ok()); });
    }
    for (auto& t : threads) t.join();
  }
}

// The chief (worker 0) initializes the shared and its local state, the other worker its
// local step.
void InitializeSync(Replica& chief, Replica& other) {
  chief.sess->run(global_variables_initializer(chief.g));
  chief.sess->run(local_variables_initializer(chief.g));
  chief.sess->run(chief.sync->chief_init_op());
  other.sess->run(local_variables_initializer(other.g));
  other.sess->run(other.sync->local_step_init_op());
}

TEST(BetweenGraphReplicationTest, AsyncWorkersShareVariablesAndConverge) {
  InProcessCluster cluster = StartCluster();
  Replica a(cluster, 0), b(cluster, 1);
  a.sess->run(global_variables_initializer(a.g));
  TrainTogether({&a, &b}, 150);
  EXPECT_EQ(a.W(), b.W()) << "both workers read the one W on the ps";
  EXPECT_EQ(a.GlobalStep(), 300);
  // Both batches fit y = x W with W = (1, 2): the shared W must approach it.
  EXPECT_LT(a.sess->run(a.loss).scalar<float>(), 1e-3f);
  EXPECT_LT(b.sess->run(b.loss).scalar<float>(), 1e-3f);
}

TEST(BetweenGraphReplicationTest, SyncReplicasAveragesBothWorkersGradientsOncePerStep) {
  InProcessCluster cluster = StartCluster();
  Replica chief(cluster, 0, 2, 2), other(cluster, 1, 2, 2);
  InitializeSync(chief, other);
  SyncReplicasChiefRunner runner(chief.g, cluster.target("worker", 0), *chief.sync);
  runner.Start();

  std::vector<double> w0 = chief.W();
  TrainTogether({&chief, &other}, 1);
  std::vector<double> g0 = Gradient(kBatches[0], w0), g1 = Gradient(kBatches[1], w0);
  std::vector<double> w1 = chief.W();
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(w1[c], w0[c] - kLearningRate * (g0[c] + g1[c]) / 2, 1e-6) << "component " << c;
  }
  EXPECT_EQ(chief.GlobalStep(), 1);
  EXPECT_EQ(other.sess->run(other.sync->local_step().value()).scalar<int64_t>(), 1);

  constexpr int kSteps = 6;
  TrainTogether({&chief, &other}, kSteps - 1);
  EXPECT_EQ(chief.GlobalStep(), kSteps);
  EXPECT_EQ(runner.steps(), kSteps);
  std::vector<double> w = w0;
  for (int k = 0; k < kSteps; ++k) {
    std::vector<double> a = Gradient(kBatches[0], w), b = Gradient(kBatches[1], w);
    for (int c = 0; c < 2; ++c) w[c] -= kLearningRate * (a[c] + b[c]) / 2;
  }
  std::vector<double> got = other.W();
  for (int c = 0; c < 2; ++c) EXPECT_NEAR(got[c], w[c], 1e-5) << "component " << c;

  EXPECT_TRUE(runner.Stop().ok());
  // The closed token queue ends a worker's step instead of leaving it waiting.
  EXPECT_STATUS(other.Train(), absl::StatusCode::kOutOfRange, "sync_token_q");
}

TEST(BetweenGraphReplicationTest, StaleGradientsAreDropped) {
  InProcessCluster cluster = StartCluster();
  // One gradient makes an update; the second worker is always one step behind.
  Replica chief(cluster, 0, 1, 2), other(cluster, 1, 1, 2);
  InitializeSync(chief, other);
  SyncReplicasChiefRunner runner(chief.g, cluster.target("worker", 0), *chief.sync);
  runner.Start();
  std::vector<double> w0 = chief.W();
  ASSERT_TRUE(chief.Train().ok());  // Update 1, from the chief's gradient alone.
  std::vector<double> g0 = Gradient(kBatches[0], w0), w1 = chief.W();
  for (int c = 0; c < 2; ++c) EXPECT_NEAR(w1[c], w0[c] - kLearningRate * g0[c], 1e-6);
  EXPECT_EQ(chief.GlobalStep(), 1);
  // The other worker's gradient is of local step 0 < global step 1: dropped; it still
  // gets a token (of step 1) and moves on.
  ASSERT_TRUE(other.Train().ok());
  ConditionalAccumulator accumulator;
  {
    auto on = other.g.device("/job:ps/task:0");
    accumulator = ConditionalAccumulator(other.g, DType::kFloat, PartialShape({2, 1}), "W/grad_accum",
                                         "probe");
  }
  EXPECT_EQ(other.sess->run(accumulator.num_accumulated()).scalar<int32_t>(), 0);
  EXPECT_EQ(other.W(), w1);
  EXPECT_EQ(chief.GlobalStep(), 1);
  EXPECT_EQ(other.sess->run(other.sync->local_step().value()).scalar<int64_t>(), 1);
  Status stopped = runner.Stop();
  EXPECT_TRUE(stopped.ok()) << stopped;
}

TEST(BetweenGraphReplicationTest, StoppingReleasesAWaitingWorkerAndTheChief) {
  InProcessCluster cluster = StartCluster();
  Replica chief(cluster, 0, 2, 2), other(cluster, 1, 2, 2);
  InitializeSync(chief, other);
  SyncReplicasChiefRunner runner(chief.g, cluster.target("worker", 0), *chief.sync);
  runner.Start();
  absl::Status waited;
  // Alone, the chief's gradient is not enough: the chief's sync step waits for a second
  // one and the worker for a token.
  std::thread worker([&] { waited = chief.Train(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(runner.Stop().ok());
  worker.join();
  EXPECT_STATUS(waited, absl::StatusCode::kOutOfRange, "is closed");
  EXPECT_EQ(runner.steps(), 0);
  EXPECT_EQ(chief.GlobalStep(), 0);
}

TEST(SyncReplicasOptimizerTest, ValidatesItsArguments) {
  GradientDescentOptimizer sgd(0.1);
  EXPECT_THROW(SyncReplicasOptimizer(sgd, 0), StatusError);
  SyncReplicasOptimizer opt(sgd, 3, 2);
  try {
    opt.chief_sync_op();
    FAIL() << "built ops before apply_gradients";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kFailedPrecondition, "call apply_gradients");
  }
  Graph g;
  Variable w(g, constant(g, 1.0f), "w");
  Variable step = get_or_create_global_step(g);
  opt.minimize(w * w, step);
  EXPECT_EQ(local_variables(g).size(), 1u);
  EXPECT_EQ(local_variables(g)[0].name(), "sync_rep_local_step");
  try {
    opt.get_init_tokens_op(0);
    FAIL() << "3 of 2 replicas need a token in advance";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "need at least 1");
  }
  EXPECT_THROW(SyncReplicasChiefRunner(g, "", opt), StatusError);
}

TEST(SyncReplicasOptimizerTest, SessionRunHookValidatesItsUse) {
  GradientDescentOptimizer sgd(0.1);
  SyncReplicasOptimizer opt(sgd, 3, 2);
  try {
    opt.make_session_run_hook(true);
    FAIL() << "made a hook before apply_gradients";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kFailedPrecondition, "call apply_gradients");
  }
  Graph g;
  Variable w(g, constant(g, 1.0f), "w");
  Variable step = get_or_create_global_step(g);
  opt.minimize(w * w, step);  // builds the sync ops the hook looks for
  try {
    opt.make_session_run_hook(true, /*num_tokens=*/0)->begin(g);
    FAIL() << "3 of 2 replicas need a token in advance";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "need at least 1");
  }
  // The chief's sync loop runs in its own session, which must reach the same cluster.
  auto hook = opt.make_session_run_hook(true);
  hook->begin(g);
  Session local(g);
  local.run(global_variables_initializer(g));
  try {
    hook->after_create_session(local);
    FAIL() << "started a sync loop on a session of its own";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kInvalidArgument, "needs a cluster target");
  }
  try {
    SyncReplicasOptimizerHook(opt, false).after_create_session(local);
    FAIL() << "ran before begin()";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kFailedPrecondition, "begin() was not called");
  }
}

}  // namespace
}  // namespace tw
