#include "core/deadline_timer.h"

namespace tw {

DeadlineTimer::~DeadlineTimer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    pending_.clear();
    when_.clear();
    wake_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

int64_t DeadlineTimer::Schedule(absl::Time when, std::function<void()> fn) {
  absl::MutexLock lock(&mu_);
  const int64_t id = next_id_++;
  pending_.emplace(std::make_pair(when, id), std::move(fn));
  when_[id] = when;
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  if (pending_.begin()->first.second == id) wake_.Signal();  // A new earliest deadline.
  return id;
}

bool DeadlineTimer::Cancel(int64_t id) {
  absl::MutexLock lock(&mu_);
  auto it = when_.find(id);
  if (it == when_.end()) return false;
  pending_.erase({it->second, id});
  when_.erase(it);
  return true;
}

void DeadlineTimer::Loop() {
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    if (pending_.empty()) {
      wake_.Wait(&mu_);
      continue;
    }
    const absl::Time first = pending_.begin()->first.first;
    if (absl::Now() < first) {
      wake_.WaitWithDeadline(&mu_, first);  // Woken early by an earlier deadline or the destructor.
      continue;
    }
    auto node = pending_.extract(pending_.begin());
    when_.erase(node.key().second);
    mu_.Unlock();
    node.mapped()();
    mu_.Lock();
  }
}

}  // namespace tw
