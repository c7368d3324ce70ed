#include "core/mutex_mode.h"

#include <cstdlib>
#include <mutex>

#include "absl/synchronization/mutex.h"

namespace tw {

void ConfigureMutexDeadlockDetection() {
  static std::once_flag once;
  std::call_once(once, [] {
    const bool detect = std::getenv("TW_MUTEX_DEADLOCK_DETECTION") != nullptr;
    absl::SetMutexDeadlockDetectionMode(detect ? absl::OnDeadlockCycle::kAbort : absl::OnDeadlockCycle::kIgnore);
  });
}

}  // namespace tw
