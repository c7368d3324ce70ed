// SyncReplicasOptimizer and its chief runner (tf.train.SyncReplicasOptimizer and the
// QueueRunner TF makes for it), following TF 1.x's graph construction op for op.
#include "tensorweave/sync_replicas.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "client/op_builder.h"
#include "tensorweave/gradients.h"
#include "train/train_util.h"

namespace tw {
namespace {

[[noreturn]] void Throw(absl::Status status) { throw StatusError(std::move(status)); }

}  // namespace

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer& opt, int replicas_to_aggregate,
                                             int total_num_replicas, const std::string& name)
    : opt_(opt),
      replicas_to_aggregate_(replicas_to_aggregate),
      total_num_replicas_(total_num_replicas <= 0 ? replicas_to_aggregate : total_num_replicas),
      name_(name) {
  if (replicas_to_aggregate < 1) {
    Throw(absl::InvalidArgumentError(absl::StrCat(
        "SyncReplicasOptimizer: replicas_to_aggregate must be at least 1, not ",
        replicas_to_aggregate)));
  }
}

Operation SyncReplicasOptimizer::Built(const Operation& op) const {
  if (!op.valid()) {
    Throw(absl::FailedPreconditionError(
        "SyncReplicasOptimizer: call apply_gradients (or minimize) first"));
  }
  return op;
}

Variable SyncReplicasOptimizer::local_step() const {
  Built(sync_op_);
  return *local_step_;
}

Operation SyncReplicasOptimizer::minimize(const Output& loss, const Variable& global_step,
                                          const std::vector<Variable>& var_list) {
  return apply_gradients(compute_gradients(loss, var_list), global_step);
}

Operation SyncReplicasOptimizer::apply_gradients(const GradsAndVars& grads_and_vars, const Variable& global_step,
                                                 const CallerGradients& caller) {
  if (sync_op_.valid()) {
    Throw(absl::FailedPreconditionError(
        "SyncReplicasOptimizer: apply_gradients may be called only once"));
  }
  if (grads_and_vars.empty()) {
    Throw(absl::InvalidArgumentError("SyncReplicasOptimizer: must supply at least one variable"));
  }
  Graph& g = *global_step.handle().graph();
  global_step_ = global_step;
  const std::string step_device = global_step.handle().op().device();

  // The local step lives where this worker's ops go (TF's local_anchor), not on a ps.
  const std::string local_device = no_op(g, "local_anchor").device();
  {
    train::Colocation on_worker = train::OnDevice(g, local_device);
    auto top = g.name_scope("");
    Output zero;
    {
      auto init_scope = g.name_scope("sync_rep_local_step/Initializer/");
      zero = zeros(g, TensorShape(), global_step.dtype());
    }
    local_step_ = Variable(g, zero, "sync_rep_local_step", /*trainable=*/false, {kLocalVariables});
  }
  local_step_init_op_ = local_step_->assign(global_step.value(), "local_step_init").op();

  std::vector<Operation> train_ops;
  std::vector<std::pair<ConditionalAccumulator, Variable>> accumulators;
  GradsAndVars aggregated;
  {
    auto ns = g.name_scope(name_);
    for (const auto& [grad, var] : grads_and_vars) {
      if (!HasGradient(grad)) {
        aggregated.emplace_back(grad, var);
        continue;
      }
      train::Colocation on_var = train::ColocateWith(g, var);
      ConditionalAccumulator accumulator(g, grad.dtype(), var.shape(),
                                         absl::StrCat(var.name(), "/grad_accum"));
      train_ops.push_back(accumulator.apply_grad(grad, local_step_->read()));
      aggregated.emplace_back(accumulator.take_grad(replicas_to_aggregate_), var);
      accumulators.emplace_back(accumulator, var);
    }
    if (caller.send) {
      for (const Operation& op : caller.send(local_step_->read())) train_ops.push_back(op);
    }
  }
  if (train_ops.empty()) {
    Throw(absl::InvalidArgumentError("SyncReplicasOptimizer: no variable has a gradient"));
  }

  std::vector<Operation> caller_updates;
  if (caller.apply) {
    auto ns = g.name_scope(name_);
    caller_updates = caller.apply();
  }
  train::Colocation on_step = train::OnDevice(g, step_device);
  auto top = g.name_scope("");
  Operation update_op;
  {
    auto after_caller = g.control_dependencies(caller_updates);
    if (!accumulators.empty()) {
      update_op = opt_.apply_gradients(aggregated, &global_step);
    } else {  // Only the caller's gradients: the step is counted after their updates.
      Output one = client::Scalar(g, global_step.dtype(), 1, "update/one");
      update_op = global_step.assign_add(one, "update").op();
    }
  }
  token_queue_ = FIFOQueue(g, -1, {global_step.dtype()}, {PartialShape({})}, "sync_token_q",
                           "sync_token_q");
  Output token;
  {
    auto after_apply = g.control_dependencies(train_ops);
    token = token_queue_.dequeue()[0];
  }
  Operation train_op = local_step_->assign(token, "local_step_update").op();
  {
    auto after_update = g.control_dependencies(std::vector<Operation>{update_op});
    const int64_t tokens_per_step = std::max(total_num_replicas_, replicas_to_aggregate_);
    // A fresh read under the control dependency: the global step after the update.
    Output tokens = fill(g, {tokens_per_step}, global_step.value());
    sync_op_ = token_queue_.enqueue_many({tokens});
  }
  close_queue_op_ = token_queue_.close(/*cancel_pending_enqueues=*/true);

  std::vector<Operation> chief_init{local_step_init_op_};
  for (auto& [accumulator, var] : accumulators) {
    train::Colocation on_var = train::ColocateWith(g, var);
    chief_init.push_back(accumulator.set_global_step(global_step.value(), "SetGlobalStep"));
  }
  if (caller.init) {
    for (const Operation& op : caller.init(global_step.value())) chief_init.push_back(op);
  }
  chief_init_op_ = group(g, chief_init, "chief_init");
  return train_op;
}

Operation SyncReplicasOptimizer::get_init_tokens_op(int num_tokens) {
  Built(sync_op_);
  const int tokens_needed = replicas_to_aggregate_ - total_num_replicas_;
  if (num_tokens == -1) {
    num_tokens = replicas_to_aggregate_;
  } else if (num_tokens < tokens_needed) {
    Throw(absl::InvalidArgumentError(absl::StrCat(
        "get_init_tokens_op: too few tokens (", num_tokens, ") to aggregate ",
        replicas_to_aggregate_, " gradients from ", total_num_replicas_, " replicas; need at least ",
        tokens_needed)));
  }
  Graph& g = *global_step_->handle().graph();
  train::Colocation on_step = train::ColocateWith(g, *global_step_);
  auto top = g.name_scope("");
  if (num_tokens <= 0) return no_op(g, "no_init_tokens");
  return token_queue_.enqueue_many({fill(g, {num_tokens}, global_step_->value())}, "init_tokens");
}

SyncReplicasChiefRunner::SyncReplicasChiefRunner(Graph& g, const std::string& target,
                                                 const SyncReplicasOptimizer& opt)
    : session_(g, target),
      sync_op_(opt.chief_sync_op()),
      close_queue_op_(opt.close_token_queue_op()) {
  if (target.rfind("grpc://", 0) != 0) {
    Throw(absl::InvalidArgumentError(absl::StrCat(
        "SyncReplicasChiefRunner needs a cluster target (grpc://host:port), not '", target,
        "': its own session must share the workers' queue and accumulators")));
  }
}

SyncReplicasChiefRunner::~SyncReplicasChiefRunner() { Stop().IgnoreError(); }

void SyncReplicasChiefRunner::Start() {
  if (thread_.joinable() || stopping_.load()) return;
  thread_ = std::thread([this] { Loop(); });
}

void SyncReplicasChiefRunner::Loop() {
  const std::vector<std::string> targets{sync_op_.name()};
  while (!stopping_.load()) {
    Status s = session_.Run({}, {}, targets, nullptr);
    if (s.ok()) {
      ++steps_;
      continue;
    }
    if (stopping_.load()) return;  // The cancellation Stop() caused.
    {
      absl::MutexLock lock(&mu_);
      error_ = s;
    }
    // As TF's QueueRunner: the queue is closed so workers waiting for a token end too.
    session_.Run({}, {}, {close_queue_op_.name()}, nullptr).IgnoreError();
    return;
  }
}

Status SyncReplicasChiefRunner::Stop() {
  if (!stopping_.exchange(true)) {
    if (thread_.joinable()) {
      session_.Run({}, {}, {close_queue_op_.name()}, nullptr).IgnoreError();
      // Cancels the sync step still waiting for gradients (see Session::close).
      try {
        session_.close();
      } catch (const StatusError&) {
      }
      thread_.join();
    }
  }
  absl::MutexLock lock(&mu_);
  return error_;
}

}  // namespace tw
