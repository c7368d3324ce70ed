#include "tensorweave/basic_session_run_hooks.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tensorweave/optimizers.h"

namespace tw {
namespace {

// The value of the global step, read where the variable lives.
Output GlobalStepRead(Graph& graph, const std::string& hook) {
  std::optional<Variable> step = get_global_step(graph);
  if (!step) {
    throw StatusError(absl::FailedPreconditionError(
        absl::StrCat("Global step should be created to use ", hook, " (tw::get_or_create_global_step)")));
  }
  return step->value();
}

int64_t StepValue(const Tensor& t) {
  return t.dtype() == DType::kInt32 ? t.scalar<int32_t>() : t.scalar<int64_t>();
}

int64_t ReadStep(Session& session, const Output& step) { return StepValue(session.run(step)); }

}  // namespace

SecondOrStepTimer::SecondOrStepTimer(int64_t every_steps, double every_secs)
    : every_steps_(every_steps), every_secs_(every_secs) {
  if ((every_steps > 0) == (every_secs > 0)) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "exactly one of every_steps (", every_steps, ") and every_secs (", every_secs, ") must be positive")));
  }
}

bool SecondOrStepTimer::should_trigger_for_step(int64_t step) const {
  if (!triggered_) return true;
  if (step == last_step_) return false;
  if (every_secs_ > 0) return absl::Now() >= last_time_ + absl::Seconds(every_secs_);
  return step >= last_step_ + every_steps_;
}

std::optional<std::pair<double, int64_t>> SecondOrStepTimer::update_last_triggered_step(int64_t step) {
  const absl::Time now = absl::Now();
  std::optional<std::pair<double, int64_t>> elapsed;
  if (triggered_) elapsed = std::make_pair(absl::ToDoubleSeconds(now - last_time_), step - last_step_);
  triggered_ = true;
  last_step_ = step;
  last_time_ = now;
  return elapsed;
}

std::optional<int64_t> SecondOrStepTimer::last_triggered_step() const {
  return triggered_ ? std::optional<int64_t>(last_step_) : std::nullopt;
}

StopAtStepHook::StopAtStepHook(int64_t num_steps, int64_t last_step) : num_steps_(num_steps), last_step_(last_step) {
  if (num_steps < 0 && last_step < 0) {
    throw StatusError(absl::InvalidArgumentError("StopAtStepHook needs num_steps >= 0 or last_step >= 0"));
  }
}

void StopAtStepHook::begin(Graph& graph) { step_ = GlobalStepRead(graph, "StopAtStepHook"); }

void StopAtStepHook::after_create_session(Session& session) {
  // num_steps counts from the step of the first session (not again after a recovery).
  if (last_step_ < 0) last_step_ = ReadStep(session, step_) + num_steps_;
}

SessionRunArgs StopAtStepHook::before_run(SessionRunContext&) { return {{step_}, {}}; }

void StopAtStepHook::after_run(SessionRunContext& context, const SessionRunValues& values) {
  // The value fetched may precede this step's increment: confirm with a fresh read.
  if (StepValue(values.results[0]) + 1 >= last_step_ && ReadStep(context.session(), step_) >= last_step_) {
    context.request_stop();
  }
}

CheckpointSaverHook::CheckpointSaverHook(std::string checkpoint_dir, int64_t every_steps, double every_secs,
                                         int max_to_keep, std::vector<Saver::Saveable> saveables)
    : prefix_((std::filesystem::path(checkpoint_dir) / "model.ckpt").string()),
      max_to_keep_(max_to_keep),
      saveables_(std::move(saveables)),
      timer_(every_steps, every_secs) {
  if (checkpoint_dir.empty()) throw StatusError(absl::InvalidArgumentError("CheckpointSaverHook needs a checkpoint_dir"));
}

void CheckpointSaverHook::begin(Graph& graph) {
  step_ = GlobalStepRead(graph, "CheckpointSaverHook");
  saver_ = std::make_unique<Saver>(graph, global_variables(graph), saveables_, max_to_keep_);
  const std::filesystem::path dir = std::filesystem::path(prefix_).parent_path();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw StatusError(absl::PermissionDeniedError(
        absl::StrCat("cannot create checkpoint_dir '", dir.string(), "': ", error.message())));
  }
}

void CheckpointSaverHook::after_create_session(Session& session) {
  const int64_t step = ReadStep(session, step_);
  Save(session, step);
  timer_.update_last_triggered_step(step);
}

SessionRunArgs CheckpointSaverHook::before_run(SessionRunContext&) { return {{step_}, {}}; }

void CheckpointSaverHook::after_run(SessionRunContext& context, const SessionRunValues& values) {
  if (!timer_.should_trigger_for_step(StepValue(values.results[0]) + 1)) return;
  const int64_t step = ReadStep(context.session(), step_);
  if (!timer_.should_trigger_for_step(step)) return;
  timer_.update_last_triggered_step(step);
  Save(context.session(), step);
}

void CheckpointSaverHook::end(Session& session) {
  const int64_t step = ReadStep(session, step_);
  if (timer_.last_triggered_step() != step) Save(session, step);
}

void CheckpointSaverHook::Save(Session& session, int64_t step) { saver_->save(session, prefix_, step); }

LoggingTensorHook::LoggingTensorHook(std::vector<std::pair<std::string, Output>> tensors, int64_t every_n_iter,
                                     std::ostream* out)
    : tensors_(std::move(tensors)), timer_(every_n_iter, 0), out_(out) {
  if (tensors_.empty()) throw StatusError(absl::InvalidArgumentError("LoggingTensorHook needs tensors to log"));
}

SessionRunArgs LoggingTensorHook::before_run(SessionRunContext&) {
  SessionRunArgs args;
  if (timer_.should_trigger_for_step(iter_)) {
    for (const auto& [name, tensor] : tensors_) args.fetches.push_back(tensor);
  }
  return args;
}

void LoggingTensorHook::after_run(SessionRunContext&, const SessionRunValues& values) {
  if (!values.results.empty()) {
    std::string line;
    for (size_t i = 0; i < tensors_.size(); ++i) {
      absl::StrAppend(&line, i ? ", " : "", tensors_[i].first, " = ", values.results[i].ValueString());
    }
    if (auto elapsed = timer_.update_last_triggered_step(iter_)) {
      absl::StrAppendFormat(&line, " (%.3f sec)", elapsed->first);
    }
    *out_ << line << std::endl;
  }
  ++iter_;
}

StepCounterHook::StepCounterHook(int64_t every_n_steps, int64_t batch_size, std::ostream* out)
    : timer_(every_n_steps, 0), batch_size_(batch_size), out_(out) {}

void StepCounterHook::begin(Graph& graph) { step_ = GlobalStepRead(graph, "StepCounterHook"); }

SessionRunArgs StepCounterHook::before_run(SessionRunContext&) { return {{step_}, {}}; }

void StepCounterHook::after_run(SessionRunContext&, const SessionRunValues& values) {
  const int64_t step = StepValue(values.results[0]) + 1;
  if (!timer_.should_trigger_for_step(step)) return;
  auto elapsed = timer_.update_last_triggered_step(step);
  if (!elapsed || elapsed->first <= 0) return;
  const double steps_per_sec = static_cast<double>(elapsed->second) / elapsed->first;
  std::string line = absl::StrFormat("global_step/sec: %g", steps_per_sec);
  if (batch_size_ > 0) absl::StrAppendFormat(&line, ", examples/sec: %g", steps_per_sec * batch_size_);
  *out_ << line << std::endl;
}

}  // namespace tw
