// Blocking calls that Ctrl-C interrupts: Python runs signal handlers only on the main
// thread and only between bytecodes, so a long C++ call there runs on a helper thread
// while the main thread wakes every 100 ms to run the handlers.
#include <unistd.h>

#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bindings.h"

namespace tw::python {

namespace {

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
    work_ = work;
    done_ = false;
    error_ = nullptr;
  }
  bool Wait(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&done_), timeout);
  }
  std::exception_ptr error() {
    absl::MutexLock lock(&mu_);
    return error_;
  }

 private:
  Helper() : thread_([this] { Loop(); }) { thread_.detach(); }
  void Loop() {
    while (true) {
      const std::function<void()>* work;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(+[](const std::function<void()>** w) { return *w != nullptr; }, &work_));
        work = work_;
      }
      std::exception_ptr error;
      try {
        (*work)();
      } catch (...) {
        error = std::current_exception();
      }
      absl::MutexLock lock(&mu_);
      work_ = nullptr;
      error_ = error;
      done_ = true;
    }
  }

  absl::Mutex mu_;
  const std::function<void()>* work_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
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
