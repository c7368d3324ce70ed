#include "core/parent_watch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"

namespace tw {

absl::Status StopWhenProcessExits(pid_t pid) {
  if (pid <= 0) return absl::InvalidArgumentError(absl::StrCat("no process to watch: pid ", pid));
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0 && errno != ESRCH) {
    return absl::InternalError(absl::StrCat("cannot watch process ", pid, ": ", std::strerror(errno)));
  }
  // ESRCH: it is gone already; stop at once.
  std::thread([fd] {
    if (fd >= 0) {
      pollfd p{fd, POLLIN, 0};
      while (poll(&p, 1, -1) < 0 && errno == EINTR) {
      }
      close(fd);
    }
    kill(getpid(), SIGTERM);
    // A stop that hangs must not leave the orphan behind either.
    std::this_thread::sleep_for(std::chrono::seconds(10));
    _exit(1);
  }).detach();
  return absl::OkStatus();
}

}  // namespace tw
