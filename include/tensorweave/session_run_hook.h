// SessionRunHook: code that runs around every step of a MonitoredTrainingSession, as
// TensorFlow 1.x's tf.train.SessionRunHook.
//
//   begin()                    once, before the first session is created: build ops here.
//   after_create_session(s)    after each session is created and its variables are ready
//                              (again after a recovery).
//   before_run(ctx)            before each run: may ask for more fetches (SessionRunArgs).
//   after_run(ctx, values)     after each run, with the values of those fetches.
//   end(s)                     when the MonitoredTrainingSession closes normally.
//
// A hook stops training by calling ctx.request_stop(). Hooks throw StatusError on errors.
#ifndef TENSORWEAVE_SESSION_RUN_HOOK_H_
#define TENSORWEAVE_SESSION_RUN_HOOK_H_

#include <vector>

#include "tensorweave/session.h"

namespace tw {

// What a hook adds to a run: more tensors to fetch, more ops to run.
struct SessionRunArgs {
  std::vector<Output> fetches;
  std::vector<Operation> targets;
};

// The run being made: what the caller asked for, the session it runs in, and the stop flag.
class SessionRunContext {
 public:
  SessionRunContext(const SessionRunArgs& original_args, Session& session)
      : original_args_(original_args), session_(&session) {}
  const SessionRunArgs& original_args() const { return original_args_; }
  Session& session() const { return *session_; }
  // Training stops after this step (should_stop() becomes true).
  void request_stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

 private:
  const SessionRunArgs& original_args_;
  Session* session_;
  bool stop_requested_ = false;
};

// The values of the fetches a hook's before_run asked for, in the same order.
struct SessionRunValues {
  std::vector<Tensor> results;
};

class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  virtual void begin(Graph& graph) {}
  virtual void after_create_session(Session& session) {}
  virtual SessionRunArgs before_run(SessionRunContext& context) { return {}; }
  virtual void after_run(SessionRunContext& context, const SessionRunValues& values) {}
  virtual void end(Session& session) {}
};

}  // namespace tw

#endif  // TENSORWEAVE_SESSION_RUN_HOOK_H_
