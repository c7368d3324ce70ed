// The standard hooks of TensorFlow 1.x's tf.train: stop at a global step, save
// checkpoints, log tensors, count steps per second. Each one that needs the global step
// looks it up in begin() (tw::get_global_step) and throws FailedPrecondition without one.
//
//   std::vector<std::shared_ptr<tw::SessionRunHook>> hooks = {
//       std::make_shared<tw::StopAtStepHook>(tw::StopAtStepHook::LastStep(1000)),
//       std::make_shared<tw::LoggingTensorHook>(
//           std::vector<std::pair<std::string, tw::Output>>{{"loss", loss}}, 100)};
#ifndef TENSORWEAVE_BASIC_SESSION_RUN_HOOKS_H_
#define TENSORWEAVE_BASIC_SESSION_RUN_HOOKS_H_

#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "tensorweave/saver.h"
#include "tensorweave/session_run_hook.h"
#include "tensorweave/variables.h"

namespace tw {

// Fires every `every_steps` global steps (> 0) or every `every_secs` seconds (> 0), as
// TF's SecondOrStepTimer; the first check always fires.
class SecondOrStepTimer {
 public:
  SecondOrStepTimer(int64_t every_steps, double every_secs);
  bool should_trigger_for_step(int64_t step) const;
  // Records a trigger at `step`; returns the seconds and steps since the previous one
  // (nullopt at the first).
  std::optional<std::pair<double, int64_t>> update_last_triggered_step(int64_t step);
  std::optional<int64_t> last_triggered_step() const;

 private:
  int64_t every_steps_;
  double every_secs_;
  bool triggered_ = false;
  int64_t last_step_ = 0;
  absl::Time last_time_;
};

// Requests a stop once the global step reaches last_step. With num_steps, last_step is
// the global step seen when a session is created plus num_steps.
class StopAtStepHook : public SessionRunHook {
 public:
  static StopAtStepHook NumSteps(int64_t num_steps) { return StopAtStepHook(num_steps, -1); }
  static StopAtStepHook LastStep(int64_t last_step) { return StopAtStepHook(-1, last_step); }

  void begin(Graph& graph) override;
  void after_create_session(Session& session) override;
  SessionRunArgs before_run(SessionRunContext& context) override;
  void after_run(SessionRunContext& context, const SessionRunValues& values) override;
  int64_t last_step() const { return last_step_; }

 private:
  StopAtStepHook(int64_t num_steps, int64_t last_step);
  int64_t num_steps_, last_step_;
  Output step_;
};

// Saves a checkpoint "<checkpoint_dir>/model.ckpt-<global step>" when a session is
// created, every `every_steps` steps or `every_secs` seconds, and at the end.
class CheckpointSaverHook : public SessionRunHook {
 public:
  // Saves the global variables and `saveables` (e.g. tf.data iterators' positions).
  CheckpointSaverHook(std::string checkpoint_dir, int64_t every_steps, double every_secs = 0,
                      int max_to_keep = 5, std::vector<Saver::Saveable> saveables = {});
  void begin(Graph& graph) override;
  void after_create_session(Session& session) override;
  SessionRunArgs before_run(SessionRunContext& context) override;
  void after_run(SessionRunContext& context, const SessionRunValues& values) override;
  void end(Session& session) override;

 private:
  void Save(Session& session, int64_t step);
  std::string prefix_;
  int max_to_keep_;
  std::vector<Saver::Saveable> saveables_;
  SecondOrStepTimer timer_;
  Output step_;
  std::unique_ptr<Saver> saver_;
};

// Prints "name = value, ..." (and the seconds since the last print) every `every_n_iter`
// runs, to `out`.
class LoggingTensorHook : public SessionRunHook {
 public:
  LoggingTensorHook(std::vector<std::pair<std::string, Output>> tensors, int64_t every_n_iter,
                    std::ostream* out = &std::cerr);
  SessionRunArgs before_run(SessionRunContext& context) override;
  void after_run(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  std::vector<std::pair<std::string, Output>> tensors_;
  SecondOrStepTimer timer_;
  int64_t iter_ = 0;
  std::ostream* out_;
};

// Prints "global_step/sec: X" (and "examples/sec: Y" given batch_size) every
// `every_n_steps` global steps, to `out`.
class StepCounterHook : public SessionRunHook {
 public:
  explicit StepCounterHook(int64_t every_n_steps, int64_t batch_size = 0, std::ostream* out = &std::cerr);
  void begin(Graph& graph) override;
  SessionRunArgs before_run(SessionRunContext& context) override;
  void after_run(SessionRunContext& context, const SessionRunValues& values) override;

 private:
  SecondOrStepTimer timer_;
  int64_t batch_size_;
  std::ostream* out_;
  Output step_;
};

}  // namespace tw

#endif  // TENSORWEAVE_BASIC_SESSION_RUN_HOOKS_H_
