// Ties a process's life to another's. A `tw server` that a test or `tw cluster` started
// must not outlive it: a parent ended by a sanitizer report, a ctest timeout or SIGKILL
// never runs ProcessCluster's destructor, and the orphaned server would keep its ports,
// its CPU and the parent's output pipe (so whoever reads that pipe, ctest, waits forever).
#ifndef TENSORWEAVE_SRC_CORE_PARENT_WATCH_H_
#define TENSORWEAVE_SRC_CORE_PARENT_WATCH_H_

#include <sys/types.h>

#include "absl/status/status.h"

namespace tw {

// Sends this process SIGTERM once process `pid` has exited (at once if it is already
// gone), and ends it with _exit(1) if it is still running 10 s later. The caller takes
// SIGTERM as its normal stop (it must block it in every thread and sigwait for it, as
// `tw server` does). Uses a pidfd (Linux 5.3+): the watch holds on the process itself,
// so a reused pid cannot be mistaken for it.
absl::Status StopWhenProcessExits(pid_t pid);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_PARENT_WATCH_H_
