#include "train/session_manager.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tw::train {
Status CaptureStatus(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const StatusError& e) {
    return e.status();
  }
  return absl::OkStatus();
}

bool IsPreemption(const Status& status) { return absl::IsUnavailable(status) || absl::IsAborted(status); }

SessionManager::SessionManager(Graph& graph, bool restores, std::vector<Saver::Saveable> saveables)
    : graph_(&graph), variables_(global_variables(graph)), saveables_(std::move(saveables)) {
  for (const Variable& v : variables_) is_initialized_.push_back(v.is_initialized());
  init_op_ = variables_initializer(graph, variables_, "init");
  if (restores && (!variables_.empty() || !saveables_.empty())) saver_ = MakeSaver();
}

std::unique_ptr<Saver> SessionManager::MakeSaver() {
  return std::make_unique<Saver>(*graph_, variables_, saveables_, /*max_to_keep=*/0);
}

StatusOr<std::vector<std::string>> SessionManager::ReportUninitialized(Session& session) {
  std::vector<std::string> names;
  if (variables_.empty()) return names;
  std::vector<Tensor> flags;
  TW_RETURN_IF_ERROR(CaptureStatus([&] { flags = session.run(is_initialized_); }));
  for (size_t i = 0; i < flags.size(); ++i) {
    if (!flags[i].scalar<bool>()) names.push_back(variables_[i].name());
  }
  return names;
}

Status SessionManager::PrepareSession(Session& session, const std::string& checkpoint_dir) {
  TW_RETURN_IF_ERROR(CaptureStatus([&] {
    const std::string checkpoint = checkpoint_dir.empty() ? "" : latest_checkpoint(checkpoint_dir);
    if (checkpoint.empty()) {
      session.run(init_op_);
      return;
    }
    if (saver_ == nullptr) saver_ = MakeSaver();
    saver_->restore(session, checkpoint);
  }));
  TW_ASSIGN_OR_RETURN(std::vector<std::string> uninitialized, ReportUninitialized(session));
  if (!uninitialized.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("Init operations did not make model ready: uninitialized variables: ",
                                                      absl::StrJoin(uninitialized, ", ")));
  }
  return absl::OkStatus();
}

Status SessionManager::WaitForSession(Session& session, absl::Duration max_wait, absl::Duration poll) {
  const absl::Time deadline = absl::Now() + max_wait;
  while (true) {
    TW_ASSIGN_OR_RETURN(std::vector<std::string> uninitialized, ReportUninitialized(session));
    if (uninitialized.empty()) return absl::OkStatus();
    if (absl::Now() + poll > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("Session was not ready after waiting ",
                                                      absl::FormatDuration(max_wait), ": uninitialized variables: ",
                                                      absl::StrJoin(uninitialized, ", ")));
    }
    std::this_thread::sleep_for(absl::ToChronoNanoseconds(poll));
  }
}

}  // namespace tw::train
