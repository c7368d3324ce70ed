// Brings a new session's variables to a usable state, as TensorFlow 1.x's
// tf.train.SessionManager: the chief restores the latest checkpoint or initializes; other
// workers wait until the chief has done so.
#ifndef TENSORWEAVE_SRC_TRAIN_SESSION_MANAGER_H_
#define TENSORWEAVE_SRC_TRAIN_SESSION_MANAGER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "tensorweave/saver.h"
#include "tensorweave/session.h"
#include "tensorweave/variables.h"

namespace tw::train {

class SessionManager {
 public:
  // Builds the init op and the readiness checks of the global variables that exist now,
  // and the restoring Saver when `restores` (else at the first restore): no op is added to
  // the graph later, while other threads (a sync chief runner) may be running it.
  // `saveables` (e.g. tf.data iterators' positions) are restored with the variables.
  explicit SessionManager(Graph& graph, bool restores = false, std::vector<Saver::Saveable> saveables = {});

  // Restores the latest checkpoint of `checkpoint_dir` ("" = none) or, without one, runs
  // the initializers; then checks that every variable is initialized (FailedPrecondition
  // naming those that are not).
  Status PrepareSession(Session& session, const std::string& checkpoint_dir);

  // Checks readiness every `poll` until every variable is initialized; DeadlineExceeded
  // naming the uninitialized variables after `max_wait`. Unavailable and Aborted
  // (a task down or restarted) return at once: the session must be created again.
  Status WaitForSession(Session& session, absl::Duration max_wait, absl::Duration poll);

  // The names of the variables not initialized in `session`.
  StatusOr<std::vector<std::string>> ReportUninitialized(Session& session);

 private:
  std::unique_ptr<Saver> MakeSaver();
  Graph* graph_;
  std::vector<Variable> variables_;
  std::vector<Saver::Saveable> saveables_;
  std::vector<Output> is_initialized_;
  Operation init_op_;
  std::unique_ptr<Saver> saver_;  // Made at the first restore.
};

// Runs `fn`, returning the Status of a StatusError it throws (the client API throws).
Status CaptureStatus(const std::function<void()>& fn);

// Unavailable and Aborted: a task went away or restarted; the session can be re-created.
bool IsPreemption(const Status& status);

}  // namespace tw::train

#endif  // TENSORWEAVE_SRC_TRAIN_SESSION_MANAGER_H_
