// MonitoredTrainingSession on real `tw server` processes: asynchronous between-graph
// training by two client processes; the chief recovers from a ps restart through its
// latest checkpoint; a killed non-chief client, and a killed worker server with its
// client, rejoin.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <regex>
#include <thread>

#include "regression_model.h"
#include "tensorweave/tensorweave.h"
#include "testing/command_util.h"
#include "testing/local_cluster.h"
#include "testing/step_hooks.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"

namespace tw {
namespace {

const std::string kTw = std::string(TW_BINARY_DIR) + "/tools/tw";
const std::string kTrainer = std::string(TW_BINARY_DIR) + "/examples/distributed_regression";

using testing::StepAtCreationHook;

// Restarts the ps task once, right after the step that reaches `at`.
class RestartPsHook : public SessionRunHook {
 public:
  RestartPsHook(testing::LocalCluster* cluster, Output step, int64_t at) : cluster_(cluster), step_(step), at_(at) {}
  void after_run(SessionRunContext& context, const SessionRunValues&) override {
    if (restarted_ || context.session().run(step_).scalar<int64_t>() != at_) return;
    restarted_ = true;
    ASSERT_TRUE(cluster_->Restart("ps", 0).ok());
  }

 private:
  testing::LocalCluster* cluster_;
  Output step_;
  int64_t at_;
  bool restarted_ = false;
};

TEST(MonitoredSessionClusterTest, ChiefRestoresTheCheckpointWhenThePsRestarts) {
  testing::ScratchDir dir;  // The tasks write the checkpoints: inside their file access root.
  auto cluster = testing::LocalCluster::Start({{"ps", 1}, {"worker", 1}}, kTw,
                                              {"--rpc_timeout_ms=5000", "--file_access_root=" + dir.path()});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  auto m = examples::BuildRegression(g, "/job:ps/task:0", "/job:worker/task:0");
  auto created = std::make_shared<StepAtCreationHook>(m.step.value());
  MonitoredTrainingSessionOptions o;
  o.master = (*cluster)->target("worker", 0);
  o.checkpoint_dir = dir.path();
  o.save_checkpoint_steps = 5;
  o.log_step_count_steps = 0;
  o.recovery_wait_secs = 0.2;
  o.recovery_deadline_secs = 60;
  o.hooks = {created, std::make_shared<RestartPsHook>(cluster->get(), m.step.value(), 13),
             std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(150))};
  MonitoredTrainingSession sess(g, o);
  int runs = 0;
  while (!sess.should_stop()) {
    sess.run(m.train);
    ++runs;
  }
  EXPECT_EQ(sess.recoveries(), 1);
  EXPECT_EQ(created->steps, (std::vector<int64_t>{0, 10})) << "the restarted ps got model.ckpt-10";
  // 13 runs reach step 13; the one after the restart is retried from 10; 140 more to 150.
  EXPECT_EQ(runs, 13 + 140);
  std::vector<Tensor> final_values = sess.run({m.step.value(), m.loss});
  EXPECT_EQ(final_values[0].scalar<int64_t>(), 150);
  EXPECT_LT(final_values[1].scalar<float>(), 1e-4f);
  sess.close();
  EXPECT_EQ(latest_checkpoint(dir.path()), dir / "model.ckpt-150");
}

// A client process whose output is read line by line, killed when the test wants.
class ClientProcess {
 public:
  explicit ClientProcess(const std::string& command) {
    // The shell prints its pid, then becomes the command (same pid).
    pipe_ = popen(("echo $$; exec " + command + " 2>&1").c_str(), "r");
    std::string first;
    if (pipe_ != nullptr && ReadLine(&first)) pid_ = std::atoi(first.c_str());
  }
  ~ClientProcess() {
    Kill();
    if (pipe_ != nullptr) pclose(pipe_);
  }
  // False at the end of the output.
  bool ReadLine(std::string* line) {
    char buffer[4096];
    if (fgets(buffer, sizeof buffer, pipe_) == nullptr) return false;
    *line = buffer;
    output_ += *line;
    return true;
  }
  void Kill() {
    if (pid_ > 0) kill(pid_, SIGKILL);
    pid_ = 0;
  }
  bool started() const { return pid_ > 0; }
  const std::string& output() const { return output_; }

 private:
  FILE* pipe_ = nullptr;
  pid_t pid_ = 0;
  std::string output_;
};

int64_t StepIn(const std::string& output, const std::regex& pattern) {
  std::smatch match;
  return std::regex_search(output, match, pattern) ? std::stoll(match[1]) : -1;
}

// The training runs of a client run with --log_every_n=1: a "global_step = " line per
// run, less the final run that reads the "done at" values (it trains nothing).
int RunsIn(const std::string& output) {
  int runs = 0;
  for (size_t at = output.find("global_step = "); at != std::string::npos; at = output.find("global_step = ", at + 1)) {
    if (at == 0 || output[at - 1] == '\n') ++runs;
  }
  return output.find(": done at global_step ") == std::string::npos ? runs : runs - 1;
}

TEST(MonitoredSessionClusterTest, KilledNonChiefClientRejoins) {
  testing::ScratchDir dir;  // The tasks write the checkpoints: inside their file access root.
  auto cluster = testing::LocalCluster::Start({{"ps", 1}, {"worker", 2}}, kTw,
                                              {"--rpc_timeout_ms=5000", "--file_access_root=" + dir.path()});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string trainer = kTrainer + " --cluster_spec='" + (*cluster)->spec().ToString() +
                              "' --recovery_wait_secs=0.1 --max_wait_secs=60 --checkpoint_dir=" + dir.path();
  // The non-chief starts first: it waits for the chief's initialization, then trains.
  ClientProcess non_chief(trainer + " --task_index=1 --num_steps=1000000 --log_every_n=1");
  ASSERT_TRUE(non_chief.started());
  auto chief = testing::RunCommand(trainer + " --task_index=0 --last_step=150 --save_checkpoint_steps=10");
  ASSERT_EQ(chief.exit_code, 0) << chief.output;
  // The chief initialized (the checkpoint directory is empty); the non-chief, waiting for
  // that, may have trained some steps before the chief read the step (checked below).
  const int64_t chief_ready = StepIn(chief.output, std::regex("task 0: session ready at global_step (\\d+)"));
  EXPECT_GE(chief_ready, 0) << chief.output;
  std::smatch done;
  ASSERT_TRUE(std::regex_search(chief.output, done, std::regex("task 0: done at global_step (\\d+), loss (\\S+),")))
      << chief.output;
  EXPECT_GE(std::stoll(done[1]), 150);
  EXPECT_LT(std::stod(done[2]), 1e-4) << chief.output;
  const std::string chief_checkpoint = latest_checkpoint(dir.path());
  EXPECT_NE(chief_checkpoint, "") << "the chief saved at its end";

  // Kill the non-chief once it has trained a step.
  std::string line;
  bool trained = false;
  while (!trained && non_chief.ReadLine(&line)) trained = line.rfind("global_step = ", 0) == 0;
  ASSERT_TRUE(trained) << non_chief.output();
  EXPECT_NE(non_chief.output().find("task 1: session ready at global_step "), std::string::npos);
  non_chief.Kill();
  while (non_chief.ReadLine(&line)) {
  }
  EXPECT_LE(chief_ready, RunsIn(non_chief.output())) << "steps the chief did not see the non-chief run";

  // Started again, it finds the variables ready (never initializes) and trains on.
  auto again = testing::RunCommand(trainer + " --task_index=1 --num_steps=20 --log_every_n=100");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const int64_t ready = StepIn(again.output, std::regex("task 1: session ready at global_step (\\d+)"));
  EXPECT_GE(ready, 150) << again.output;
  EXPECT_EQ(StepIn(again.output, std::regex("task 1: done at global_step (\\d+)")), ready + 20) << again.output;
  EXPECT_EQ(latest_checkpoint(dir.path()), chief_checkpoint) << "only the chief saves";
}

// The global step on the ps, read by a client of its own.
int64_t GlobalStepOnPs(const testing::LocalCluster& cluster) {
  Graph g;
  auto m = examples::BuildRegression(g, "/job:ps/task:0", "/job:ps/task:0");
  Session sess(g, cluster.target("ps", 0));
  return sess.run(m.step.value()).scalar<int64_t>();
}

TEST(MonitoredSessionClusterTest, AsyncWorkerProcessesTrainToTheLossThreshold) {
  auto cluster = testing::LocalCluster::Start({{"ps", 1}, {"worker", 2}}, kTw, {"--rpc_timeout_ms=5000"});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string trainer = kTrainer + " --cluster_spec='" + (*cluster)->spec().ToString() +
                              "' --recovery_wait_secs=0.1 --max_wait_secs=60 --last_step=300 --log_every_n=1";
  // Both clients run at once, each applying its own gradients (plain SGD) to the ps.
  testing::CommandResult other;
  std::thread other_thread([&] { other = testing::RunCommand(trainer + " --task_index=1"); });
  auto chief = testing::RunCommand(trainer + " --task_index=0");
  other_thread.join();
  ASSERT_EQ(chief.exit_code, 0) << chief.output;
  ASSERT_EQ(other.exit_code, 0) << other.output;
  for (const auto* r : {&chief, &other}) {
    std::smatch done;
    ASSERT_TRUE(std::regex_search(r->output, done, std::regex("task \\d: done at global_step (\\d+), loss (\\S+),")))
        << r->output;
    EXPECT_GE(std::stoll(done[1]), 300);
    EXPECT_LT(std::stod(done[2]), 1e-4) << r->output;
    EXPECT_GT(RunsIn(r->output), 0) << "a worker did not train: " << r->output;
  }
  // The chief initialized (there is no checkpoint); the other worker, started at the same
  // time, may have trained a few steps before the chief read the step (under a slow build
  // such as TSan), but no more than it ran.
  const int64_t chief_ready = StepIn(chief.output, std::regex("task 0: session ready at global_step (\\d+)"));
  EXPECT_GE(chief_ready, 0) << chief.output;
  EXPECT_LE(chief_ready, RunsIn(other.output)) << chief.output << other.output;
  // Every run of either worker incremented the shared global step once.
  EXPECT_EQ(GlobalStepOnPs(**cluster), RunsIn(chief.output) + RunsIn(other.output));
}

// Kill -9 a worker's `tw server` and its client mid-training, while the chief trains on;
// the server restarted on the same address and the client started again rejoin.
TEST(MonitoredSessionClusterTest, KilledWorkerServerRestartsAndItsClientRejoins) {
  auto cluster = testing::LocalCluster::Start({{"ps", 1}, {"worker", 2}}, kTw, {"--rpc_timeout_ms=5000"});
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string trainer = kTrainer + " --cluster_spec='" + (*cluster)->spec().ToString() +
                              "' --recovery_wait_secs=0.1 --max_wait_secs=60 --log_every_n=1";
  ClientProcess chief(trainer + " --task_index=0 --last_step=2000");
  ClientProcess first(trainer + " --task_index=1 --last_step=2000");
  ASSERT_TRUE(chief.started() && first.started());
  std::string line;
  int first_runs = 0;
  while (first_runs < 5 && first.ReadLine(&line)) first_runs += line.rfind("global_step = ", 0) == 0;
  ASSERT_EQ(first_runs, 5) << first.output();
  (*cluster)->Kill("worker", 1);
  first.Kill();
  while (first.ReadLine(&line)) {
  }
  first_runs = RunsIn(first.output());  // The runs it finished before it died.
  const int64_t step_at_kill = GlobalStepOnPs(**cluster);
  ASSERT_TRUE((*cluster)->Restart("worker", 1).ok());

  auto again = testing::RunCommand(trainer + " --task_index=1 --num_steps=50");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  const int64_t ready = StepIn(again.output, std::regex("task 1: session ready at global_step (\\d+)"));
  EXPECT_GE(ready, step_at_kill) << again.output;
  EXPECT_GE(StepIn(again.output, std::regex("task 1: done at global_step (\\d+)")), ready + 50) << again.output;
  EXPECT_GT(RunsIn(again.output), 0) << again.output;
  while (chief.ReadLine(&line)) {
  }
  std::smatch done;
  ASSERT_TRUE(std::regex_search(chief.output(), done, std::regex("task 0: done at global_step (\\d+), loss (\\S+),")))
      << chief.output();
  EXPECT_GE(std::stoll(done[1]), 2000);
  EXPECT_LT(std::stod(done[2]), 1e-4);
  // No step counted twice or lost: the killed client's step in flight may or may not
  // have been applied when its worker died.
  const int64_t runs = RunsIn(chief.output()) + first_runs + RunsIn(again.output);
  const int64_t final_step = GlobalStepOnPs(**cluster);
  EXPECT_GE(final_step, runs);
  EXPECT_LE(final_step, runs + 1);
}

}  // namespace
}  // namespace tw
