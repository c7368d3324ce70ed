// Cancels a step: StartCancel() flips the flag and runs every registered callback once
// (e.g. to abort a pending Recv). Thread-safe.
#ifndef TENSORWEAVE_SRC_CORE_CANCELLATION_H_
#define TENSORWEAVE_SRC_CORE_CANCELLATION_H_

#include <atomic>
#include <cstdint>
#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace tw {

class CancellationManager {
 public:
  using Token = int64_t;
  static constexpr Token kInvalidToken = -1;

  bool IsCancelled() const { return cancelled_.load(std::memory_order_acquire); }
  void StartCancel();
  // Registers fn to run on cancellation; returns kInvalidToken (and does not keep fn)
  // when the manager is already cancelled, so the caller must handle that itself.
  Token RegisterCallback(std::function<void()> fn);
  // Returns false when the callback already ran or is running.
  bool DeregisterCallback(Token token);

 private:
  std::atomic<bool> cancelled_{false};
  absl::Mutex mu_;
  Token next_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<Token, std::function<void()>> callbacks_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_CANCELLATION_H_
