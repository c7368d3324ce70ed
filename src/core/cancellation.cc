#include "core/cancellation.h"

#include <vector>

namespace tw {

void CancellationManager::StartCancel() {
  std::vector<std::function<void()>> to_run;
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_.exchange(true)) return;
    for (auto& [token, fn] : callbacks_) to_run.push_back(std::move(fn));
    callbacks_.clear();
  }
  for (auto& fn : to_run) fn();
}

CancellationManager::Token CancellationManager::RegisterCallback(std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  if (cancelled_.load()) return kInvalidToken;
  Token t = next_++;
  callbacks_.emplace(t, std::move(fn));
  return t;
}

bool CancellationManager::DeregisterCallback(Token token) {
  absl::MutexLock lock(&mu_);
  return callbacks_.erase(token) > 0;
}

}  // namespace tw
