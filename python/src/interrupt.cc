// Blocking calls that Ctrl-C interrupts: Python runs signal handlers only on the main
// thread and only between bytecodes, so a long C++ call there runs on a helper thread
// while the main thread wakes every 100 ms to run the handlers.
//
// Waking a sleeping thread costs 20-50 us on a VM whose idle vCPUs halt, twice per call:
// more than a small step. So both sides first spin briefly: the main thread on the
// call's end, the helper on the next call (a loop of Session.run calls).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bindings.h"

namespace tw::python {

namespace {

// How long each side polls before it sleeps: longer than Python's own work between two
// calls (~10-20 us), short enough not to matter beside a long step.
constexpr std::chrono::microseconds kSpin(60);

// Polls `ready` for kSpin; true once it held.
template <typename Ready>
bool SpinUntil(Ready ready) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  do {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
    }
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

bool OnMainThread() {
  static const unsigned long main_ident =  // NOLINT(runtime/int): CPython's type.
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return PyThread_get_thread_ident() == main_ident;
}

// The helper thread, started on first use and kept (starting a thread per run would cost
// more than a small step). Only the main thread hands it work, one call at a time.
class Helper {
 public:
  static Helper& Get() {
    // Never destroyed: the thread outlives exit. A forked child has no thread: a new one.
    static Helper* helper = nullptr;
    static pid_t owner = 0;
    if (helper == nullptr || owner != getpid()) {
      helper = new Helper();
      owner = getpid();
    }
    return *helper;
  }
  // Starts `work`; Wait() then returns true once it has returned.
  void Start(const std::function<void()>* work) {
    absl::MutexLock lock(&mu_);
    done_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    work_.store(work, std::memory_order_release);
  }
  bool Wait(absl::Duration timeout) {
    if (SpinUntil([this] { return done_.load(std::memory_order_acquire); })) return true;
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(+[](std::atomic<bool>* d) { return d->load(); }, &done_),
                                timeout);
  }
  std::exception_ptr error() {
    absl::MutexLock lock(&mu_);
    return error_;
  }

 private:
  Helper() : thread_([this] { Loop(); }) { thread_.detach(); }
  void Loop() {
    while (true) {
      const std::function<void()>* work = nullptr;
      SpinUntil([&] { return (work = work_.load(std::memory_order_acquire)) != nullptr; });
      if (work == nullptr) {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](std::atomic<const std::function<void()>*>* w) { return w->load() != nullptr; }, &work_));
        work = work_.load();
      }
      std::exception_ptr error;
      try {
        (*work)();
      } catch (...) {
        error = std::current_exception();
      }
      absl::MutexLock lock(&mu_);
      work_.store(nullptr, std::memory_order_relaxed);
      error_ = error;
      done_.store(true, std::memory_order_release);
    }
  }

  absl::Mutex mu_;
  // Written under mu_ (so a sleeping side's Await sees the change), read by spins without it.
  std::atomic<const std::function<void()>*> work_{nullptr};
  std::atomic<bool> done_{false};
  std::exception_ptr error_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace

void CallInterruptibly(const std::function<void()>& work, const std::function<void()>& interrupt) {
  if (!OnMainThread()) {  // No signal handler runs here: nothing to wait for.
    py::gil_scoped_release no_gil;
    work();
    return;
  }
  Helper& helper = Helper::Get();
  helper.Start(&work);
  bool interrupted = false;
  while (true) {
    bool finished;
    {
      py::gil_scoped_release no_gil;
      finished = helper.Wait(absl::Milliseconds(100));
    }
    if (finished) break;
    if (PyErr_CheckSignals() != 0) {  // A handler raised (KeyboardInterrupt); it is set.
      interrupted = true;
      break;
    }
  }
  if (interrupted) {
    py::error_already_set raised;  // Takes the pending exception while the GIL is held.
    {
      py::gil_scoped_release no_gil;
      interrupt();
      helper.Wait(absl::InfiniteDuration());
    }
    throw raised;
  }
  if (std::exception_ptr error = helper.error()) std::rethrow_exception(error);
}

}  // namespace tw::python
