#include "tensorweave/monitored_session.h"

#include <exception>
#include <optional>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "train/session_manager.h"

namespace tw {
using train::CaptureStatus;

MonitoredTrainingSession::MonitoredTrainingSession(Graph& graph, MonitoredTrainingSessionOptions options)
    : graph_(&graph), options_(std::move(options)) {
  hooks_ = options_.hooks;
  if (options_.is_chief) {
    hooks_.insert(hooks_.end(), options_.chief_only_hooks.begin(), options_.chief_only_hooks.end());
    if (options_.log_step_count_steps > 0) {
      hooks_.push_back(std::make_shared<StepCounterHook>(options_.log_step_count_steps));
    }
    if (!options_.checkpoint_dir.empty() &&
        (options_.save_checkpoint_steps > 0 || options_.save_checkpoint_secs > 0)) {
      const bool by_steps = options_.save_checkpoint_steps > 0;
      hooks_.push_back(std::make_shared<CheckpointSaverHook>(
          options_.checkpoint_dir, by_steps ? options_.save_checkpoint_steps : 0,
          by_steps ? 0 : options_.save_checkpoint_secs, /*max_to_keep=*/5, options_.saveables));
    }
  }
  for (const auto& hook : hooks_) {
    if (hook == nullptr) throw StatusError(absl::InvalidArgumentError("a hook of MonitoredTrainingSession is null"));
    hook->begin(graph);
  }
  // After the hooks' begin, so that variables they make are initialized too.
  manager_ = std::make_unique<train::SessionManager>(
      graph, /*restores=*/options_.is_chief && !options_.checkpoint_dir.empty(), options_.saveables);
  CreateSessionWithRecovery(absl::Now() + absl::Seconds(options_.recovery_deadline_secs));
}

MonitoredTrainingSession::~MonitoredTrainingSession() {
  // While an exception unwinds, the hooks' end (e.g. a final checkpoint) is skipped, as TF.
  if (std::uncaught_exceptions() > 0) closed_ = true;
  // Nothing may leave a destructor: a hook's end can throw anything (a Python hook's
  // error, e.g. the sync loop's), and an escaping exception aborted the process.
  try {
    close();
  } catch (const StatusError& e) {
    std::cerr << "MonitoredTrainingSession: error while closing: " << e.status() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "MonitoredTrainingSession: error while closing: " << e.what() << std::endl;
  } catch (...) {
    std::cerr << "MonitoredTrainingSession: error while closing (not a std::exception)" << std::endl;
  }
}

Status MonitoredTrainingSession::CreateSessionOnce() {
  if (session_ != nullptr) {
    CaptureStatus([&] { session_->close(); }).IgnoreError();  // Its tasks may be gone.
    session_.reset();
  }
  return CaptureStatus([&] {
    auto session = std::make_unique<Session>(*graph_, options_.master, options_.config);
    if (options_.is_chief) {
      ThrowIfError(manager_->PrepareSession(*session, options_.checkpoint_dir));
    } else {
      ThrowIfError(manager_->WaitForSession(*session, absl::Seconds(options_.max_wait_secs),
                                            absl::Seconds(options_.recovery_wait_secs)));
    }
    for (const auto& hook : hooks_) hook->after_create_session(*session);
    session_ = std::move(session);
  });
}

void MonitoredTrainingSession::CreateSessionWithRecovery(absl::Time deadline) {
  while (true) {
    Status status = CreateSessionOnce();
    if (status.ok()) return;
    if (!train::IsPreemption(status)) throw StatusError(status);
    const absl::Duration wait = absl::Seconds(options_.recovery_wait_secs);
    if (absl::Now() + wait > deadline) {
      throw StatusError(absl::DeadlineExceededError(
          absl::StrCat("could not create a session within recovery_deadline_secs (", options_.recovery_deadline_secs,
                       "): ", status.ToString())));
    }
    std::cerr << "MonitoredTrainingSession: cannot create a session yet (" << status << "), retrying" << std::endl;
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(wait));
  }
}

Status MonitoredTrainingSession::RunOnce(const SessionRunArgs& args, const FeedDict& feeds,
                                         std::vector<Tensor>* outputs, RunCancellation* cancellation) {
  return CaptureStatus([&] {
    SessionRunContext context(args, *session_);
    std::vector<Output> fetches = args.fetches;
    std::vector<Operation> targets = args.targets;
    std::vector<size_t> first_fetch;  // Where each hook's fetches start.
    for (const auto& hook : hooks_) {
      SessionRunArgs extra = hook->before_run(context);
      first_fetch.push_back(fetches.size());
      fetches.insert(fetches.end(), extra.fetches.begin(), extra.fetches.end());
      targets.insert(targets.end(), extra.targets.begin(), extra.targets.end());
    }
    first_fetch.push_back(fetches.size());
    std::vector<Tensor> results = session_->run(fetches, feeds, targets, cancellation);
    for (size_t i = 0; i < hooks_.size(); ++i) {
      SessionRunValues values;
      values.results.assign(results.begin() + first_fetch[i], results.begin() + first_fetch[i + 1]);
      hooks_[i]->after_run(context, values);
    }
    if (context.stop_requested()) stop_requested_ = true;
    results.resize(args.fetches.size());
    *outputs = std::move(results);
  });
}

std::vector<Tensor> MonitoredTrainingSession::run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                                  const std::vector<Operation>& targets,
                                                  RunCancellation* cancellation) {
  if (closed_) throw StatusError(absl::FailedPreconditionError("run on a closed MonitoredTrainingSession"));
  const SessionRunArgs args{fetches, targets};
  std::optional<absl::Time> deadline;  // Of the recovery, from the first failure.
  while (true) {
    std::vector<Tensor> outputs;
    Status status = RunOnce(args, feeds, &outputs, cancellation);
    if (status.ok()) return outputs;
    if (!train::IsPreemption(status)) throw StatusError(status);
    std::cerr << "MonitoredTrainingSession: " << status << "; re-creating the session" << std::endl;
    if (!deadline) deadline = absl::Now() + absl::Seconds(options_.recovery_deadline_secs);
    if (absl::Now() > *deadline) {
      throw StatusError(absl::DeadlineExceededError(absl::StrCat(
          "the step kept failing for recovery_deadline_secs (", options_.recovery_deadline_secs, "): ",
          status.ToString())));
    }
    CreateSessionWithRecovery(*deadline);
    ++recoveries_;
  }
}

Tensor MonitoredTrainingSession::run(const Output& fetch, const FeedDict& feeds) {
  return run(std::vector<Output>{fetch}, feeds)[0];
}

void MonitoredTrainingSession::run(const Operation& target, const FeedDict& feeds) { run({}, feeds, {target}); }

void MonitoredTrainingSession::close() {
  const bool call_end = !closed_;
  closed_ = true;
  if (session_ == nullptr) return;
  // The session is closed whatever a hook's end throws; then that is passed on.
  std::exception_ptr end_error;
  if (call_end) {
    try {
      for (const auto& hook : hooks_) hook->end(*session_);
    } catch (...) {
      end_error = std::current_exception();
    }
  }
  CaptureStatus([&] { session_->close(); }).IgnoreError();
  session_.reset();
  if (end_error) std::rethrow_exception(end_error);
}

std::vector<Tensor> MonitoredTrainingSession::run_without_hooks(const std::vector<Output>& fetches,
                                                                const FeedDict& feeds,
                                                                const std::vector<Operation>& targets,
                                                                RunCancellation* cancellation) {
  if (closed_ || session_ == nullptr) {
    throw StatusError(absl::FailedPreconditionError("MonitoredTrainingSession is closed"));
  }
  return session_->run(fetches, feeds, targets, cancellation);
}

}  // namespace tw
