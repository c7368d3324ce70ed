// Debian's Abseil keeps its debug default for absl::Mutex: every Lock() records lock order
// in a process-wide graph (a global lock and a graph update per Lock) and a lock-order
// cycle aborts the process, even one that never deadlocked. A server must not die for
// that, and the global lock showed up in the profile of every task, so tw::InitProcess()
// (include/tensorweave/process.h) turns the check off. The tests turn it back on (tests/test_main.cc sets
// TW_MUTEX_DEADLOCK_DETECTION=1, which the `tw server` processes they start inherit).
#ifndef TENSORWEAVE_SRC_CORE_MUTEX_MODE_H_
#define TENSORWEAVE_SRC_CORE_MUTEX_MODE_H_

namespace tw {

// Turns Abseil's mutex deadlock detection off unless TW_MUTEX_DEADLOCK_DETECTION is set
// in the environment (then it stays on and aborts on a cycle). Once per process.
void ConfigureMutexDeadlockDetection();

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_MUTEX_MODE_H_
