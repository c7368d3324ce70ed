// Synchronous data-parallel training, as TensorFlow 1.x's tf.train.SyncReplicasOptimizer:
// every worker (between-graph replication: each builds its own graph and session) applies
// its gradients to a ConditionalAccumulator per variable, colocated with the variable,
// then waits for a token from the sync token queue (on the global step's device). The
// chief runs chief_sync_op() in a loop (SyncReplicasChiefRunner): it takes the mean of
// replicas_to_aggregate gradients from every accumulator, applies them once with the
// wrapped optimizer, increments the global step and enqueues one token per replica
// holding the new global step, which each worker stores as its local step. Gradients
// computed from a local step older than the global step are stale and dropped.
//
//   tw::GradientDescentOptimizer sgd(0.1);
//   tw::SyncReplicasOptimizer opt(sgd, /*replicas_to_aggregate=*/2, /*total_num_replicas=*/2);
//   auto train = opt.minimize(loss, step);
//   // chief: global_variables_initializer, local_variables_initializer, chief_init_op();
//   //        SyncReplicasChiefRunner runner(g, target, opt); runner.Start();
//   // other workers: local_variables_initializer, local_step_init_op() once the chief is up.
//   for (...) sess.run(train);
//
// Or, as TF's opt.make_session_run_hook(is_chief), let a MonitoredTrainingSession do
// the initialization and run the chief's sync loop:
//   o.hooks = {opt.make_session_run_hook(is_chief), ...};
//   tw::MonitoredTrainingSession sess(g, o);   // o.master: a grpc:// cluster target
//   while (!sess.should_stop()) sess.run(train);
// When the chief's session closes, its hook stops the sync loop and closes the token
// queue: other workers' runs then fail with OutOfRange (their end of training).
//
// Errors while building throw StatusError.
#ifndef TENSORWEAVE_SYNC_REPLICAS_H_
#define TENSORWEAVE_SYNC_REPLICAS_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "tensorweave/data_flow_ops.h"
#include "tensorweave/optimizers.h"
#include "tensorweave/session.h"
#include "tensorweave/session_run_hook.h"

namespace tw {

class SyncReplicasOptimizer {
 public:
  // `opt` must outlive this. total_num_replicas <= 0 means replicas_to_aggregate.
  SyncReplicasOptimizer(Optimizer& opt, int replicas_to_aggregate, int total_num_replicas = -1,
                        const std::string& name = "sync_replicas");
  SyncReplicasOptimizer(const SyncReplicasOptimizer&) = delete;
  SyncReplicasOptimizer& operator=(const SyncReplicasOptimizer&) = delete;

  GradsAndVars compute_gradients(const Output& loss, const std::vector<Variable>& var_list = {}) {
    return opt_.compute_gradients(loss, var_list);
  }
  // Gradients the caller aggregates itself (Python's IndexedSlices, through
  // SparseConditionalAccumulators): `send(local_step)` builds the worker's ops that hand
  // them over, `apply()` the chief's ops that take and apply them (they run before the
  // global step's increment), `init(global_step)` the chief's ops that set their
  // accumulators' global step. Each may be empty.
  struct CallerGradients {
    std::function<std::vector<Operation>(const Output& local_step)> send;
    std::function<std::vector<Operation>()> apply;
    std::function<std::vector<Operation>(const Output& global_step)> init;
  };
  // The worker's train op (apply to the accumulators, wait for a token, store it as the
  // local step). Builds the chief's ops too. Once per optimizer.
  Operation apply_gradients(const GradsAndVars& grads_and_vars, const Variable& global_step,
                            const CallerGradients& caller = {});
  Operation minimize(const Output& loss, const Variable& global_step,
                     const std::vector<Variable>& var_list = {});

  // After apply_gradients:
  // The chief's step: take, apply, increment the global step, enqueue the tokens.
  Operation chief_sync_op() const { return Built(sync_op_); }
  // The chief's initialization: its local step and every accumulator's global step set
  // to the global step.
  Operation chief_init_op() const { return Built(chief_init_op_); }
  // A worker's local step set to the global step.
  Operation local_step_init_op() const { return Built(local_step_init_op_); }
  // Puts num_tokens tokens (replicas_to_aggregate when -1) in the token queue so workers
  // can start before the first update (TF's default for the chief). InvalidArgument below
  // replicas_to_aggregate - total_num_replicas.
  Operation get_init_tokens_op(int num_tokens = -1);
  // Closes the token queue and cancels waiting enqueues; workers waiting for a token fail
  // with OutOfRange.
  Operation close_token_queue_op() const { return Built(close_queue_op_); }
  Variable local_step() const;
  // The hook that makes a MonitoredTrainingSession train with this optimizer (after
  // apply_gradients; `*this` must outlive it). See SyncReplicasOptimizerHook.
  std::shared_ptr<SessionRunHook> make_session_run_hook(bool is_chief, int num_tokens = -1);
  int replicas_to_aggregate() const { return replicas_to_aggregate_; }
  int total_num_replicas() const { return total_num_replicas_; }

 private:
  Operation Built(const Operation& op) const;
  Optimizer& opt_;
  const int replicas_to_aggregate_, total_num_replicas_;
  const std::string name_;
  std::optional<Variable> global_step_, local_step_;
  FIFOQueue token_queue_;
  Operation sync_op_, chief_init_op_, local_step_init_op_, close_queue_op_;
};

// TF's chief queue runner for SyncReplicasOptimizer: runs chief_sync_op() in a loop on its
// own thread, through its own session to `target` (a grpc:// cluster target: the state
// it works on lives in the cluster, shared with the workers' sessions). Build the whole
// graph before Start() and add no op to it until Stop() (not even a fresh var.value()):
// the runner's session reads the graph on its thread.
class SyncReplicasChiefRunner {
 public:
  SyncReplicasChiefRunner(Graph& g, const std::string& target, const SyncReplicasOptimizer& opt);
  ~SyncReplicasChiefRunner();  // Stop()s.
  SyncReplicasChiefRunner(const SyncReplicasChiefRunner&) = delete;
  SyncReplicasChiefRunner& operator=(const SyncReplicasChiefRunner&) = delete;

  void Start();
  // Closes the token queue (workers waiting for a token fail with OutOfRange), cancels the
  // sync step in flight (closing the runner's session) and joins the thread. Returns the
  // error that ended the loop before Stop, if any. Idempotent.
  Status Stop();
  // Completed sync steps (global step increments made by this runner).
  int64_t steps() const { return steps_.load(); }

 private:
  void Loop();
  Session session_;
  Operation sync_op_, close_queue_op_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int64_t> steps_{0};
  absl::Mutex mu_;
  Status error_ ABSL_GUARDED_BY(mu_);
};

// TF's _SyncReplicasOptimizerHook. begin() builds the chief's init-tokens op;
// after_create_session runs the local init (the chief: chief_init_op(), then num_tokens
// tokens; others: local_step_init_op()) and, on the chief, starts a SyncReplicasChiefRunner
// on the session's target (stopping the previous one after a recovery); end() stops it
// and throws the error that ended the sync loop, if any.
class SyncReplicasOptimizerHook : public SessionRunHook {
 public:
  SyncReplicasOptimizerHook(SyncReplicasOptimizer& opt, bool is_chief, int num_tokens = -1);
  ~SyncReplicasOptimizerHook() override;  // Stops the chief's runner.
  void begin(Graph& graph) override;
  void after_create_session(Session& session) override;
  void end(Session& session) override;
  // The chief's runner while one runs (null on other workers).
  const SyncReplicasChiefRunner* chief_runner() const { return runner_.get(); }

 private:
  SyncReplicasOptimizer& opt_;
  const bool is_chief_;
  const int num_tokens_;
  Graph* graph_ = nullptr;
  Operation local_init_op_, init_tokens_op_;
  std::unique_ptr<SyncReplicasChiefRunner> runner_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SYNC_REPLICAS_H_
