// MonitoredTrainingSession in one process: initialization or restore, checkpoints, the
// standard hooks, non-chief readiness and recovery from Aborted/Unavailable runs.
#include "tensorweave/monitored_session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tensorweave/tensorweave.h"
#include "testing/step_hooks.h"
#include "testing/test_util.h"
#include "testing/scratch_dir.h"

namespace tw {
namespace {

using testing::ScratchDir;

// y = 2x + 1 fitted by gradient descent, with a global step the train op increments.
struct Regression {
  explicit Regression(Graph& g)
      : step(get_or_create_global_step(g)),
        w(g, constant(g, 0.0f), "w"),
        b(g, constant(g, 0.0f), "b") {
    Output x = constant(g, std::vector<float>{0, 1, 2, 3}, TensorShape({4}));
    Output y = constant(g, std::vector<float>{1, 3, 5, 7}, TensorShape({4}));
    loss = reduce_mean(square(w * x + b - y));
    GradientDescentOptimizer opt(0.05);
    train = opt.minimize(loss, &step);
  }
  Variable step, w, b;
  Output loss;
  Operation train;
};

MonitoredTrainingSessionOptions Quiet() {
  MonitoredTrainingSessionOptions o;
  o.log_step_count_steps = 0;
  o.recovery_wait_secs = 0.05;
  return o;
}

std::shared_ptr<SessionRunHook> StopAt(int64_t last_step) {
  return std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(last_step));
}

// Trains until a hook stops; returns how many runs were made.
int TrainUntilStop(MonitoredTrainingSession& sess, const Regression& m) {
  int runs = 0;
  while (!sess.should_stop()) {
    sess.run(m.train);
    ++runs;
  }
  return runs;
}

TEST(MonitoredTrainingSessionTest, ChiefInitializesSavesEveryNStepsAndAtTheEnd) {
  ScratchDir dir;
  Graph g;
  Regression m(g);
  auto o = Quiet();
  o.checkpoint_dir = dir.path();
  o.save_checkpoint_steps = 3;
  o.hooks = {StopAt(7)};
  float w_at_end;
  {
    MonitoredTrainingSession sess(g, o);
    EXPECT_EQ(sess.run(m.w.value()).scalar<float>(), 0.0f) << "initialized, not restored";
    EXPECT_EQ(sess.run(m.step.value()).scalar<int64_t>(), 0);
    EXPECT_EQ(TrainUntilStop(sess, m), 7) << "StopAtStepHook stops at exactly last_step";
    EXPECT_EQ(sess.run(m.step.value()).scalar<int64_t>(), 7);
    w_at_end = sess.run(m.w.value()).scalar<float>();
    EXPECT_NE(w_at_end, 0.0f);
  }  // The destructor saves the final checkpoint.
  std::vector<std::string> files = {"checkpoint"};
  for (int step : {0, 3, 6, 7}) {
    files.push_back(absl::StrCat("model.ckpt-", step, ".data-00000-of-00001"));
    files.push_back(absl::StrCat("model.ckpt-", step, ".index"));
  }
  EXPECT_EQ(dir.List(), files);
  EXPECT_EQ(latest_checkpoint(dir.path()), dir / "model.ckpt-7");

  // A new chief on the same directory restores instead of initializing.
  Graph g2;
  Regression m2(g2);
  o.hooks = {std::make_shared<StopAtStepHook>(StopAtStepHook::NumSteps(3))};
  MonitoredTrainingSession sess(g2, o);
  EXPECT_EQ(sess.run(m2.step.value()).scalar<int64_t>(), 7);
  EXPECT_EQ(sess.run(m2.w.value()).scalar<float>(), w_at_end);
  EXPECT_EQ(TrainUntilStop(sess, m2), 3) << "num_steps counts from the restored step";
  EXPECT_EQ(sess.run(m2.step.value()).scalar<int64_t>(), 10);
  sess.close();
  EXPECT_EQ(latest_checkpoint(dir.path()), dir / "model.ckpt-10");
  EXPECT_TRUE(sess.should_stop());
  try {
    sess.run(m2.train);
    FAIL() << "ran on a closed session";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kFailedPrecondition, "closed");
  }
}

// Records what its before_run asked for, as after_run sees it.
class RecordingHook : public SessionRunHook {
 public:
  explicit RecordingHook(Output tensor) : tensor_(tensor) {}
  void after_create_session(Session& session) override { ++sessions_created; }
  SessionRunArgs before_run(SessionRunContext& context) override {
    original_fetches.push_back(context.original_args().fetches.size());
    return {{tensor_}, {}};
  }
  void after_run(SessionRunContext&, const SessionRunValues& values) override {
    seen.push_back(values.results.at(0));
  }
  void end(Session&) override { ended = true; }

  std::vector<size_t> original_fetches;
  std::vector<Tensor> seen;
  int sessions_created = 0;
  bool ended = false;

 private:
  Output tensor_;
};

TEST(MonitoredTrainingSessionTest, HooksSeeTheValuesTheyFetch) {
  Graph g;
  Regression m(g);
  auto recorder = std::make_shared<RecordingHook>(m.loss);
  std::ostringstream log;
  auto o = Quiet();
  o.hooks = {recorder, std::make_shared<LoggingTensorHook>(
                           std::vector<std::pair<std::string, Output>>{{"loss", m.loss}, {"step", m.step.value()}},
                           2, &log)};
  {
    MonitoredTrainingSession sess(g, o);
    EXPECT_EQ(recorder->sessions_created, 1);
    for (int i = 0; i < 5; ++i) {
      std::vector<Tensor> out = sess.run({m.loss, m.w.read()}, {}, {m.train});
      ASSERT_EQ(out.size(), 2u) << "the hooks' fetches are not returned";
      ASSERT_EQ(recorder->seen.size(), static_cast<size_t>(i + 1));
      EXPECT_TENSOR_EQ(recorder->seen.back(), out[0]);
    }
    EXPECT_EQ(recorder->original_fetches, (std::vector<size_t>(5, 2)));
    EXPECT_FALSE(recorder->ended);
  }
  EXPECT_TRUE(recorder->ended);
  // Initial loss: mean of (1, 9, 25, 49) = 21; logged at runs 0, 2 and 4.
  std::vector<std::string> lines = absl::StrSplit(log.str(), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << log.str();
  EXPECT_TRUE(absl::StartsWith(lines[0], "loss = 21, step = ")) << lines[0];
  EXPECT_NE(lines[2].find(" sec)"), std::string::npos) << lines[2];
}

TEST(MonitoredTrainingSessionTest, StepCounterPrintsStepsPerSecond) {
  Graph g;
  Regression m(g);
  std::ostringstream log;
  auto o = Quiet();
  o.hooks = {std::make_shared<StepCounterHook>(2, /*batch_size=*/4, &log), StopAt(6)};
  MonitoredTrainingSession sess(g, o);
  TrainUntilStop(sess, m);
  std::vector<std::string> lines = absl::StrSplit(log.str(), '\n', absl::SkipEmpty());
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    EXPECT_TRUE(absl::StartsWith(line, "global_step/sec: ")) << line;
    EXPECT_NE(line.find(", examples/sec: "), std::string::npos) << line;
  }
}

TEST(MonitoredTrainingSessionTest, HooksNeedAGlobalStep) {
  Graph g;
  Variable w(g, constant(g, 1.0f), "w");
  auto o = Quiet();
  o.hooks = {StopAt(3)};
  try {
    MonitoredTrainingSession sess(g, o);
    FAIL() << "StopAtStepHook without a global step";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kFailedPrecondition,
                  "Global step should be created to use StopAtStepHook");
  }
}

TEST(MonitoredTrainingSessionTest, OtherErrorsPropagateWithoutRecovery) {
  Graph g;
  Regression m(g);
  Output fed = placeholder(g, DType::kFloat, PartialShape({}));
  MonitoredTrainingSession sess(g, Quiet());
  try {
    sess.run(fed * 2.0);
    FAIL() << "ran without its feed";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument) << e.status();
  }
  EXPECT_EQ(sess.recoveries(), 0);
  EXPECT_EQ(sess.run(fed * 2.0, {{fed, F32({}, {4})}}).scalar<float>(), 8.0f);
}

// Fails the step once with `error` when the global step reaches `at` (after the run), as
// a task that dies would.
class FailOnceHook : public SessionRunHook {
 public:
  FailOnceHook(Output step, int64_t at, Status error) : step_(step), at_(at), error_(std::move(error)) {}
  SessionRunArgs before_run(SessionRunContext&) override { return {{step_}, {}}; }
  void after_run(SessionRunContext& context, const SessionRunValues&) override {
    if (!failed_ && context.session().run(step_).scalar<int64_t>() == at_) {
      failed_ = true;
      throw StatusError(error_);
    }
  }

 private:
  Output step_;
  int64_t at_;
  Status error_;
  bool failed_ = false;
};

using testing::StepAtCreationHook;

TEST(MonitoredTrainingSessionTest, ChiefRecoversFromTheLatestCheckpoint) {
  for (Status error : {absl::UnavailableError("task went away"), absl::AbortedError("task restarted")}) {
    ScratchDir dir;
    Graph g;
    Regression m(g);
    auto created = std::make_shared<StepAtCreationHook>(m.step.value());
    auto o = Quiet();
    o.checkpoint_dir = dir.path();
    o.save_checkpoint_steps = 4;
    // A new local session has fresh, uninitialized variables: like a restarted ps.
    o.hooks = {created, std::make_shared<FailOnceHook>(m.step.value(), 10, error), StopAt(15)};
    MonitoredTrainingSession sess(g, o);
    int runs = TrainUntilStop(sess, m);
    EXPECT_EQ(sess.recoveries(), 1) << error;
    EXPECT_EQ(created->steps, (std::vector<int64_t>{0, 8})) << "restored the step of model.ckpt-8";
    EXPECT_EQ(runs, 16) << "9 runs to step 9; the 10th fails at step 10 and is retried from 8 (to 9); 6 more to 15";
    EXPECT_EQ(sess.run(m.step.value()).scalar<int64_t>(), 15);
  }
}

TEST(MonitoredTrainingSessionTest, NonChiefFailsWhenNobodyInitializes) {
  auto cluster = StartInProcessCluster("local", 1);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  Graph g;
  Regression m(g);
  auto o = Quiet();
  o.master = cluster->target(0);
  o.is_chief = false;
  o.max_wait_secs = 0.3;
  try {
    MonitoredTrainingSession sess(g, o);
    FAIL() << "a non-chief session was ready without initialization";
  } catch (const StatusError& e) {
    EXPECT_STATUS(e.status(), absl::StatusCode::kDeadlineExceeded, "uninitialized variables: global_step, w, b");
  }
}

TEST(MonitoredTrainingSessionTest, NonChiefWaitsForTheChief) {
  auto cluster = StartInProcessCluster("local", 1);
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  const std::string target = cluster->target(0);
  int64_t non_chief_step = -1;
  std::thread non_chief([&] {
    Graph g;
    Regression m(g);
    auto o = Quiet();
    o.master = target;
    o.is_chief = false;
    o.max_wait_secs = 60;
    o.checkpoint_dir = "/nonexistent/never/written";  // Non-chiefs neither restore nor save.
    MonitoredTrainingSession sess(g, o);
    sess.run(m.train);
    non_chief_step = sess.run(m.step.value()).scalar<int64_t>();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // Let the non-chief start waiting.
  Graph g;
  Regression m(g);
  auto o = Quiet();
  o.master = target;
  MonitoredTrainingSession chief(g, o);
  non_chief.join();
  EXPECT_GE(non_chief_step, 1) << "the non-chief trained on the chief's variables";
  EXPECT_EQ(chief.run(m.step.value()).scalar<int64_t>(), non_chief_step);
}

}  // namespace
}  // namespace tw
