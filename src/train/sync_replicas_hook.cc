// SyncReplicasOptimizer::make_session_run_hook and its hook, as TF 1.x's
// _SyncReplicasOptimizerHook: the local init and the chief's queue runner inside a
// MonitoredTrainingSession.
#include "absl/strings/str_cat.h"
#include "tensorweave/sync_replicas.h"

namespace tw {

std::shared_ptr<SessionRunHook> SyncReplicasOptimizer::make_session_run_hook(bool is_chief, int num_tokens) {
  Built(sync_op_);
  return std::make_shared<SyncReplicasOptimizerHook>(*this, is_chief, num_tokens);
}

SyncReplicasOptimizerHook::SyncReplicasOptimizerHook(SyncReplicasOptimizer& opt, bool is_chief, int num_tokens)
    : opt_(opt), is_chief_(is_chief), num_tokens_(num_tokens) {}

SyncReplicasOptimizerHook::~SyncReplicasOptimizerHook() {
  if (runner_ != nullptr) runner_->Stop().IgnoreError();
}

void SyncReplicasOptimizerHook::begin(Graph& graph) {
  // Every op is built here: the runner's session reads the graph on its own thread.
  graph_ = &graph;
  if (is_chief_) {
    local_init_op_ = opt_.chief_init_op();
    init_tokens_op_ = opt_.get_init_tokens_op(num_tokens_);
  } else {
    local_init_op_ = opt_.local_step_init_op();
  }
}

void SyncReplicasOptimizerHook::after_create_session(Session& session) {
  if (graph_ == nullptr) {
    throw StatusError(absl::FailedPreconditionError("SyncReplicasOptimizerHook: begin() was not called"));
  }
  if (runner_ != nullptr) {
    // A recovery: the old loop's session (and perhaps its tasks) is gone.
    runner_->Stop().IgnoreError();
    runner_.reset();
  }
  session.run(local_init_op_);
  if (!is_chief_) return;
  session.run(init_tokens_op_);
  runner_ = std::make_unique<SyncReplicasChiefRunner>(*graph_, session.target(), opt_);
  runner_->Start();
}

void SyncReplicasOptimizerHook::end(Session&) {
  if (runner_ == nullptr) return;
  Status status = runner_->Stop();
  if (!status.ok()) {
    throw StatusError(Status(status.code(), absl::StrCat("the sync replicas chief runner failed: ", status.message())));
  }
}

}  // namespace tw
