#include "kernels/script_callback.h"

#include "absl/synchronization/mutex.h"

namespace tw {
namespace {

struct Slot {
  absl::Mutex mu;
  ScriptCallback callback ABSL_GUARDED_BY(mu);
};

Slot& GlobalSlot() {
  static Slot* slot = new Slot;  // Never destroyed: kernels may call during exit.
  return *slot;
}

}  // namespace

void SetScriptCallback(ScriptCallback callback) {
  Slot& s = GlobalSlot();
  absl::MutexLock lock(&s.mu);
  s.callback = std::move(callback);
}

ScriptCallback GetScriptCallback() {
  Slot& s = GlobalSlot();
  absl::MutexLock lock(&s.mu);
  return s.callback;
}

}  // namespace tw
