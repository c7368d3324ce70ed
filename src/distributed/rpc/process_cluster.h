// A cluster of real `tw server` processes on free loopback ports, started and waited for
// until each serves, and always stopped (SIGTERM, then SIGKILL after 5 s) when destroyed;
// each task also stops by itself when this process ends without destroying it (`tw
// server --parent_pid`), so no task is left behind by a crash or a kill.
// What `tw cluster` runs for users, and what the multi-process tests start.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_PROCESS_CLUSTER_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_PROCESS_CLUSTER_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/security.h"

namespace tw {

class ProcessCluster {
 public:
  // Told each task's state as it comes up: "started (pid N)", then "serving (after S s)".
  using ProgressFn = std::function<void(const std::string& job, int task, const std::string& state)>;

  // jobs: job name -> number of tasks. `tw_binary` is the path of the tw command. Every
  // task demands `security` (given to it as --tls_cert... flags), which the wait for it
  // to serve presents as a client. `stderr_path`: a file every task appends its stderr to
  // (empty: this process's stderr). A task that exits before it serves fails the start at
  // once, naming it and its exit status.
  static absl::StatusOr<std::unique_ptr<ProcessCluster>> Start(const std::map<std::string, int>& jobs,
                                                             const std::string& tw_binary,
                                                             const std::vector<std::string>& extra_flags = {},
                                                             const TransportSecurity& security = {},
                                                             const std::string& stderr_path = "",
                                                             const ProgressFn& progress = {});
  ~ProcessCluster();

  const ClusterSpec& spec() const { return spec_; }
  std::string target(const std::string& job, int task) const;  // "grpc://localhost:port"
  pid_t pid(const std::string& job, int task) const;  // 0 if not running
  // Kills one task with SIGKILL (a crash), or restarts it with the same address.
  void Kill(const std::string& job, int task);
  absl::Status Restart(const std::string& job, int task);
  // Sends SIGTERM to one task and waits for it to exit, at most `within` (then kills it
  // and returns DeadlineExceeded): how long a task takes to stop, for tests.
  absl::Status Terminate(const std::string& job, int task, absl::Duration within);

 private:
  // One start on freshly picked ports; Unavailable when a task exited before serving.
  static absl::StatusOr<std::unique_ptr<ProcessCluster>> TryStart(const std::map<std::string, int>& jobs,
                                                                const std::string& tw_binary,
                                                                const std::vector<std::string>& extra_flags,
                                                                const TransportSecurity& security,
                                                                const std::string& stderr_path,
                                                                const ProgressFn& progress);
  absl::Status Launch(const std::string& job, int task);
  absl::Status WaitServing(const std::string& job, int task);
  ClusterSpec spec_;
  std::string tw_binary_;
  std::vector<std::string> extra_flags_;
  std::string stderr_path_;
  TransportSecurity security_;
  std::map<std::pair<std::string, int>, pid_t> pids_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_PROCESS_CLUSTER_H_
