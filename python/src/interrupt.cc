// Blocking calls that Ctrl-C interrupts: Python runs signal handlers only on the main
// thread and only between bytecodes, so a long C++ call there runs on a helper thread
// while the main thread wakes every 100 ms to run the handlers.
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "bindings.h"

namespace tw::python {

namespace {

bool OnMainThread() {
  static const unsigned long main_ident =  // NOLINT(runtime/int): CPython's type.
      py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  return PyThread_get_thread_ident() == main_ident;
}

}  // namespace

void CallInterruptibly(const std::function<void()>& work, const std::function<void()>& interrupt) {
  if (!OnMainThread()) {  // No signal handler runs here: nothing to wait for.
    py::gil_scoped_release no_gil;
    work();
    return;
  }
  absl::Notification done;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      work();
    } catch (...) {
      error = std::current_exception();
    }
    done.Notify();
  });
  bool interrupted = false;
  while (true) {
    bool finished;
    {
      py::gil_scoped_release no_gil;
      finished = done.WaitForNotificationWithTimeout(absl::Milliseconds(100));
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
      worker.join();
    }
    throw raised;
  }
  worker.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace tw::python
