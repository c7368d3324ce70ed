// ThreadSanitizer builds only (TW_SANITIZE=thread): Debian's Abseil is not built with
// TSan, so TSan cannot see that absl::Mutex, CondVar, Notification and BlockingCounter
// order memory, and would report every guarded access as a race. The build links our
// calls to them (-Wl,--wrap, see the top CMakeLists.txt) through these wrappers, which
// tell TSan the happens-before edge each one makes: a release before unlocking /
// notifying / counting down, an acquire after locking / waiting. Races are then found
// as if Abseil were instrumented (readers are treated like writers, which can only hide
// reader-reader edges that are not races anyway).
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) && !defined(__SANITIZE_THREAD__)
#define __SANITIZE_THREAD__ 1  // clang says it this way
#endif
#endif
#if defined(__SANITIZE_THREAD__)

#include <sanitizer/tsan_interface.h>

#include <atomic>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

// Itanium C++ ABI names of Debian 12's Abseil 20220623 (inline namespace "debian3");
// `this` is the first argument.
#define TW_MUTEX(name) _ZN4absl7debian35Mutex##name
#define TW_CONDVAR(name) _ZN4absl7debian37CondVar##name
#define TW_NOTIFICATION(name) _ZNK4absl7debian312Notification##name
#define TW_REAL(sym) __real_##sym
#define TW_WRAP(sym) __wrap_##sym

using absl::Condition;
using absl::Duration;
using absl::Mutex;
using absl::Time;

namespace {
void Acquire(const void* p) { __tsan_acquire(const_cast<void*>(p)); }
void Release(const void* p) { __tsan_release(const_cast<void*>(p)); }
}  // namespace

// `mu` is the object that orders memory; acquire after locking, release before unlocking.
#define TW_ACQUIRE_AFTER(sym, Ret, Params, Args)                         \
  extern "C" Ret TW_REAL(sym) Params;                                    \
  extern "C" Ret TW_WRAP(sym) Params {                                   \
    auto r = TW_REAL(sym) Args;                                          \
    Acquire(mu);                                                  \
    return r;                                                            \
  }
#define TW_ACQUIRE_AFTER_VOID(sym, Params, Args)                         \
  extern "C" void TW_REAL(sym) Params;                                   \
  extern "C" void TW_WRAP(sym) Params {                                  \
    TW_REAL(sym) Args;                                                   \
    Acquire(mu);                                                  \
  }
#define TW_RELEASE_BEFORE_VOID(sym, Params, Args)                        \
  extern "C" void TW_REAL(sym) Params;                                   \
  extern "C" void TW_WRAP(sym) Params {                                  \
    Release(mu);                                                  \
    TW_REAL(sym) Args;                                                   \
  }

TW_ACQUIRE_AFTER_VOID(TW_MUTEX(4LockEv), (Mutex * mu), (mu))
TW_ACQUIRE_AFTER_VOID(TW_MUTEX(10ReaderLockEv), (Mutex * mu), (mu))
TW_ACQUIRE_AFTER(TW_MUTEX(7TryLockEv), bool, (Mutex * mu), (mu))
TW_ACQUIRE_AFTER(TW_MUTEX(13ReaderTryLockEv), bool, (Mutex * mu), (mu))
TW_ACQUIRE_AFTER_VOID(TW_MUTEX(8LockWhenERKNS0_9ConditionE), (Mutex * mu, const Condition& c), (mu, c))
TW_ACQUIRE_AFTER_VOID(TW_MUTEX(14ReaderLockWhenERKNS0_9ConditionE), (Mutex * mu, const Condition& c), (mu, c))
TW_ACQUIRE_AFTER(TW_MUTEX(19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE), bool,
                 (Mutex * mu, const Condition& c, Duration d), (mu, c, d))
TW_ACQUIRE_AFTER(TW_MUTEX(20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE), bool,
                 (Mutex * mu, const Condition& c, Time t), (mu, c, t))
// Await and CondVar waits unlock and lock again: release before, acquire after.
#define TW_WAIT(sym, Ret, Params, Args)                                  \
  extern "C" Ret TW_REAL(sym) Params;                                    \
  extern "C" Ret TW_WRAP(sym) Params {                                   \
    Release(mu);                                                  \
    auto r = TW_REAL(sym) Args;                                          \
    Acquire(mu);                                                  \
    return r;                                                            \
  }
#define TW_WAIT_VOID(sym, Params, Args)                                  \
  extern "C" void TW_REAL(sym) Params;                                   \
  extern "C" void TW_WRAP(sym) Params {                                  \
    Release(mu);                                                  \
    TW_REAL(sym) Args;                                                   \
    Acquire(mu);                                                  \
  }
TW_WAIT_VOID(TW_MUTEX(5AwaitERKNS0_9ConditionE), (Mutex * mu, const Condition& c), (mu, c))
TW_WAIT(TW_MUTEX(16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE), bool,
        (Mutex * mu, const Condition& c, Duration d), (mu, c, d))
TW_WAIT(TW_MUTEX(17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE), bool,
        (Mutex * mu, const Condition& c, Time t), (mu, c, t))
TW_WAIT_VOID(TW_CONDVAR(4WaitEPNS0_5MutexE), (absl::CondVar * cv, Mutex* mu), (cv, mu))
TW_WAIT(TW_CONDVAR(15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE), bool,
        (absl::CondVar * cv, Mutex* mu, Duration d), (cv, mu, d))
TW_WAIT(TW_CONDVAR(16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE), bool,
        (absl::CondVar * cv, Mutex* mu, Time t), (cv, mu, t))
TW_RELEASE_BEFORE_VOID(TW_MUTEX(6UnlockEv), (Mutex * mu), (mu))
TW_RELEASE_BEFORE_VOID(TW_MUTEX(12ReaderUnlockEv), (Mutex * mu), (mu))

// Notification: Notify releases, a wait that saw it acquires. HasBeenNotified is inline
// and passes the address of its notified_yet_ flag (after the Mutex member): both the
// object and the flag are released.
namespace {
void* FlagOf(const absl::Notification* n) {
  return const_cast<char*>(reinterpret_cast<const char*>(n)) + sizeof(Mutex);
}
}  // namespace
extern "C" void __real__ZN4absl7debian312Notification6NotifyEv(absl::Notification* mu);
extern "C" void __wrap__ZN4absl7debian312Notification6NotifyEv(absl::Notification* mu) {
  Release(mu);
  Release(FlagOf(mu));
  __real__ZN4absl7debian312Notification6NotifyEv(mu);
}
TW_ACQUIRE_AFTER_VOID(TW_NOTIFICATION(19WaitForNotificationEv), (const absl::Notification* mu), (mu))
TW_ACQUIRE_AFTER(TW_NOTIFICATION(30WaitForNotificationWithTimeoutENS0_8DurationE), bool,
                 (const absl::Notification* mu, Duration d), (mu, d))
TW_ACQUIRE_AFTER(TW_NOTIFICATION(31WaitForNotificationWithDeadlineENS0_4TimeE), bool,
                 (const absl::Notification* mu, Time t), (mu, t))
extern "C" bool __real__ZN4absl7debian312Notification23HasBeenNotifiedInternalEPKSt6atomicIbE(
    const std::atomic<bool>* flag);
extern "C" bool __wrap__ZN4absl7debian312Notification23HasBeenNotifiedInternalEPKSt6atomicIbE(
    const std::atomic<bool>* flag) {
  const bool notified = __real__ZN4absl7debian312Notification23HasBeenNotifiedInternalEPKSt6atomicIbE(flag);
  if (notified) Acquire(flag);
  return notified;
}

// BlockingCounter: each DecrementCount releases, Wait acquires.
TW_RELEASE_BEFORE_VOID(_ZN4absl7debian315BlockingCounter14DecrementCountEv, (absl::BlockingCounter * mu), (mu))
TW_ACQUIRE_AFTER_VOID(_ZN4absl7debian315BlockingCounter4WaitEv, (absl::BlockingCounter * mu), (mu))

#endif  // __SANITIZE_THREAD__
