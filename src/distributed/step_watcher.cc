#include "distributed/step_watcher.h"

#include <vector>

namespace tw {

StepWatcher::StepWatcher(absl::Duration period) : period_(period), thread_([this] { Loop(); }) {}

StepWatcher::~StepWatcher() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

StepWatcher::Id StepWatcher::Watch(std::function<bool()> client_gone, std::function<void()> abort) {
  absl::MutexLock lock(&mu_);
  Id id = next_++;
  entries_[id] = Entry{std::move(client_gone), std::move(abort)};
  return id;
}

void StepWatcher::Unwatch(Id id) {
  absl::MutexLock lock(&mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  mu_.Await(absl::Condition(
      +[](Entry* e) { return !e->aborting; }, &it->second));
  entries_.erase(id);
}

void StepWatcher::Loop() {
  absl::MutexLock lock(&mu_);
  while (!mu_.AwaitWithTimeout(absl::Condition(&stop_), period_)) {
    std::vector<Id> gone;
    for (auto& [id, entry] : entries_) {
      if (entry.client_gone()) gone.push_back(id);
    }
    for (Id id : gone) {
      Entry& entry = entries_[id];
      entry.aborting = true;
      std::function<void()> abort = std::move(entry.abort);
      entry.client_gone = [] { return false; };  // Abort once.
      mu_.Unlock();  // Aborting makes RPCs; Watch/Unwatch of other steps go on meanwhile.
      abort();
      mu_.Lock();
      entries_[id].aborting = false;
    }
  }
}

}  // namespace tw
