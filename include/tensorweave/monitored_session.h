// MonitoredTrainingSession: a Session for training loops that takes care of
// initialization, checkpoints, hooks and recovery, as TensorFlow 1.x's
// tf.train.MonitoredTrainingSession (the successor of tf.train.Supervisor).
//
//   tw::Variable step = tw::get_or_create_global_step(g);
//   tw::Operation train = opt.minimize(loss, &step);
//   tw::MonitoredTrainingSessionOptions o;
//   o.master = server_target;  o.is_chief = task_index == 0;  o.checkpoint_dir = "/ckpt";
//   o.hooks = {std::make_shared<tw::StopAtStepHook>(tw::StopAtStepHook::LastStep(1000))};
//   tw::MonitoredTrainingSession sess(g, o);
//   while (!sess.should_stop()) sess.run(train);
//
// The chief restores the latest checkpoint of checkpoint_dir, or runs the initializers of
// every global variable when there is none. Other workers never initialize: they wait
// (polling every recovery_wait_secs) until every global variable is initialized, for at
// most max_wait_secs (then DeadlineExceeded naming the uninitialized variables).
// When a run fails with Unavailable or Aborted (a task died or restarted), the session
// is closed and created again the same way (the chief restores the latest checkpoint, so
// the global step comes from it) and the run is retried, until recovery_deadline_secs;
// other errors propagate. Hooks get after_create_session again after each recovery.
// Errors throw StatusError.
#ifndef TENSORWEAVE_MONITORED_SESSION_H_
#define TENSORWEAVE_MONITORED_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "tensorweave/basic_session_run_hooks.h"
#include "tensorweave/session_run_hook.h"

namespace tw {

namespace train {
class SessionManager;
}  // namespace train

struct MonitoredTrainingSessionOptions {
  std::string master;  // "" runs in this process; "grpc://host:port" on a cluster.
  bool is_chief = true;
  std::string checkpoint_dir;  // "" = no restore and no checkpoints.
  // The chief saves every save_checkpoint_steps steps when > 0, else every
  // save_checkpoint_secs seconds when > 0, else never (only with a checkpoint_dir).
  int64_t save_checkpoint_steps = 0;
  double save_checkpoint_secs = 600;
  // The chief prints global steps per second every this many steps (0: never).
  int64_t log_step_count_steps = 100;
  std::vector<std::shared_ptr<SessionRunHook>> hooks;
  std::vector<std::shared_ptr<SessionRunHook>> chief_only_hooks;  // Dropped on non-chiefs.
  SessionConfig config;
  double max_wait_secs = 7200;           // A non-chief's wait for the chief's initialization.
  double recovery_wait_secs = 30;        // Between readiness checks and recovery attempts.
  double recovery_deadline_secs = 600;   // How long to try to re-create a session.
  // Saved in the chief's checkpoints and restored with the variables (TF's
  // SAVEABLE_OBJECTS, e.g. a one-shot tf.data iterator, so a restarted chief resumes its
  // input pipeline).
  std::vector<Saver::Saveable> saveables;
};

class MonitoredTrainingSession {
 public:
  // Calls every hook's begin, then creates the session (see above).
  MonitoredTrainingSession(Graph& graph, MonitoredTrainingSessionOptions options);
  // Closes (see close()); errors are dropped.
  ~MonitoredTrainingSession();
  MonitoredTrainingSession(const MonitoredTrainingSession&) = delete;
  MonitoredTrainingSession& operator=(const MonitoredTrainingSession&) = delete;

  // As tw::Session's run, with the hooks around it and recovery; `cancellation` (may be
  // null) lets another thread end the run (Cancelled, not retried).
  std::vector<Tensor> run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation>& targets = {}, RunCancellation* cancellation = nullptr);
  Tensor run(const Output& fetch, const FeedDict& feeds = {});
  void run(const Operation& target, const FeedDict& feeds = {});

  // The underlying session's run, without hooks or recovery: what queue runners' threads and
  // the local-variable initialization use (TensorFlow's raw session). FailedPrecondition
  // after close().
  std::vector<Tensor> run_without_hooks(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                                        const std::vector<Operation>& targets = {},
                                        RunCancellation* cancellation = nullptr);

  // True once a hook requested a stop (or after close()).
  bool should_stop() const { return stop_requested_ || closed_; }
  // Calls every hook's end (the chief's CheckpointSaverHook saves a final checkpoint),
  // then closes the session. Idempotent.
  void close();

  // How many times a failed session was re-created.
  int recoveries() const { return recoveries_; }

 private:
  void CreateSessionWithRecovery(absl::Time deadline);
  Status CreateSessionOnce();
  Status RunOnce(const SessionRunArgs& args, const FeedDict& feeds, std::vector<Tensor>* outputs,
                 RunCancellation* cancellation);

  Graph* graph_;
  MonitoredTrainingSessionOptions options_;
  std::vector<std::shared_ptr<SessionRunHook>> hooks_;
  std::unique_ptr<train::SessionManager> manager_;
  std::unique_ptr<Session> session_;
  bool stop_requested_ = false;
  bool closed_ = false;
  int recoveries_ = 0;
};

}  // namespace tw

#endif  // TENSORWEAVE_MONITORED_SESSION_H_
