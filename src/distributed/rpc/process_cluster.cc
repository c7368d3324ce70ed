#include "distributed/rpc/process_cluster.h"

#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "core/net_util.h"
#include "distributed/rpc/grpc_util.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "core/proto_namespace.h"

extern char** environ;

namespace tw {
namespace {

// The tw server flags that make a task demand `security`.
std::vector<std::string> SecurityFlags(const TransportSecurity& security) {
  std::vector<std::string> flags;
  if (!security.tls_cert_file.empty()) flags.push_back("--tls_cert=" + security.tls_cert_file);
  if (!security.tls_key_file.empty()) flags.push_back("--tls_key=" + security.tls_key_file);
  if (!security.tls_ca_file.empty()) flags.push_back("--tls_ca=" + security.tls_ca_file);
  if (!security.cluster_token_file.empty()) flags.push_back("--cluster_token_file=" + security.cluster_token_file);
  return flags;
}

}  // namespace

// Waits until the task answers ListDevices (it is serving), for at most 20 s, asking in
// short rounds so that a task that exits meanwhile (a bad flag, a port taken) is reported
// at once instead of after the whole wait.
absl::Status ProcessCluster::WaitServing(const std::string& job, int task) {
  const std::string address = *spec_.address(job, task);
  TW_ASSIGN_OR_RETURN(SecurityMaterial security, LoadSecurityMaterial(security_, SecurityRole::kClient));
  auto stub = MasterService::NewStub(MakeChannel(address, MakeClientCredentials(security)));
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(20);
  while (true) {
    grpc::ClientContext ctx;
    ctx.set_wait_for_ready(true);  // Wait for the server to come up instead of failing fast.
    ctx.set_deadline(std::min(deadline, std::chrono::system_clock::now() + std::chrono::milliseconds(250)));
    ListDevicesResponse resp;
    grpc::Status status = stub->ListDevices(&ctx, ListDevicesRequest(), &resp);
    if (status.ok()) return absl::OkStatus();
    auto it = pids_.find({job, task});
    int wait_status = 0;
    if (it != pids_.end() && waitpid(it->second, &wait_status, WNOHANG) == it->second) {
      pids_.erase(it);
      const std::string how = WIFEXITED(wait_status) ? absl::StrCat("exited with status ", WEXITSTATUS(wait_status))
                                                     : absl::StrCat("was killed by signal ", WTERMSIG(wait_status));
      return absl::UnavailableError(absl::StrCat("tw server /job:", job, "/task:", task, " at ", address, " ", how,
                                                 " before serving (its stderr says why)"));
    }
    if (std::chrono::system_clock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat("tw server at ", address, " did not start within 20 s (last error: ",
                                                      status.error_message(), ")"));
    }
  }
}

absl::StatusOr<std::unique_ptr<ProcessCluster>> ProcessCluster::Start(const std::map<std::string, int>& jobs,
                                                                  const std::string& tw_binary,
                                                                  const std::vector<std::string>& extra_flags,
                                                                  const TransportSecurity& security,
                                                                  const std::string& stderr_path,
                                                                  const ProgressFn& progress) {
  if (!security.cluster_token.empty()) {
    return absl::InvalidArgumentError("a process cluster takes its token from a file (cluster_token_file)");
  }
  // The ports are free when picked but only bound by the tasks later: another process may
  // take one meanwhile, and its task exits. Such a start is tried again on new ports.
  absl::Status last;
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<std::unique_ptr<ProcessCluster>> cluster =
        TryStart(jobs, tw_binary, extra_flags, security, stderr_path, progress);
    if (cluster.ok() || cluster.status().code() != absl::StatusCode::kUnavailable) return cluster;
    last = cluster.status();
  }
  return last;
}

absl::StatusOr<std::unique_ptr<ProcessCluster>> ProcessCluster::TryStart(const std::map<std::string, int>& jobs,
                                                                     const std::string& tw_binary,
                                                                     const std::vector<std::string>& extra_flags,
                                                                     const TransportSecurity& security,
                                                                     const std::string& stderr_path,
                                                                     const ProgressFn& progress) {
  TW_ASSIGN_OR_RETURN(auto addresses, FreeLoopbackAddresses(jobs));
  std::unique_ptr<ProcessCluster> cluster(new ProcessCluster);
  TW_ASSIGN_OR_RETURN(cluster->spec_, ClusterSpec::FromJobs(addresses));
  cluster->tw_binary_ = tw_binary;
  cluster->extra_flags_ = extra_flags;
  cluster->stderr_path_ = stderr_path;
  for (std::string& flag : SecurityFlags(security)) cluster->extra_flags_.push_back(std::move(flag));
  cluster->security_ = security;
  const absl::Time start = absl::Now();
  for (const auto& [job, n] : jobs) {
    for (int i = 0; i < n; ++i) {
      TW_RETURN_IF_ERROR(cluster->Launch(job, i));
      if (progress) progress(job, i, absl::StrCat("started (pid ", cluster->pid(job, i), ")"));
    }
  }
  for (const auto& [job, n] : jobs) {
    for (int i = 0; i < n; ++i) {
      TW_RETURN_IF_ERROR(cluster->WaitServing(job, i));
      if (progress) progress(job, i, absl::StrFormat("serving (after %.2f s)", absl::ToDoubleSeconds(absl::Now() - start)));
    }
  }
  return cluster;
}

absl::Status ProcessCluster::Launch(const std::string& job, int task) {
  std::vector<std::string> args = {tw_binary_, "server", "--cluster_spec=" + spec_.ToString(),
                                   "--job_name=" + job, absl::StrCat("--task_index=", task),
                                   // A task stops when this process ends, even without
                                   // the destructor (killed, or ended by a sanitizer report).
                                   absl::StrCat("--parent_pid=", getpid())};
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (!stderr_path_.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  pid_t pid;
  int err = posix_spawn(&pid, tw_binary_.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return absl::InternalError(absl::StrCat("cannot start ", tw_binary_, ": ", strerror(err)));
  pids_[{job, task}] = pid;
  return absl::OkStatus();
}

std::string ProcessCluster::target(const std::string& job, int task) const {
  return "grpc://" + *spec_.address(job, task);
}

pid_t ProcessCluster::pid(const std::string& job, int task) const {
  auto it = pids_.find({job, task});
  return it == pids_.end() ? 0 : it->second;
}

void ProcessCluster::Kill(const std::string& job, int task) {
  auto it = pids_.find({job, task});
  if (it == pids_.end()) return;
  kill(it->second, SIGKILL);
  waitpid(it->second, nullptr, 0);
  pids_.erase(it);
}

absl::Status ProcessCluster::Terminate(const std::string& job, int task, absl::Duration within) {
  auto it = pids_.find({job, task});
  if (it == pids_.end()) return absl::NotFoundError(absl::StrCat("no running task /job:", job, "/task:", task));
  const pid_t pid = it->second;
  pids_.erase(it);
  kill(pid, SIGTERM);
  const absl::Time deadline = absl::Now() + within;
  while (absl::Now() < deadline) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) return absl::OkStatus();
    absl::SleepFor(absl::Milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return absl::DeadlineExceededError(absl::StrCat("/job:", job, "/task:", task, " did not exit within ",
                                                  absl::FormatDuration(within), " of SIGTERM"));
}

absl::Status ProcessCluster::Restart(const std::string& job, int task) {
  Kill(job, task);
  TW_RETURN_IF_ERROR(Launch(job, task));
  return WaitServing(job, task);
}

ProcessCluster::~ProcessCluster() {
  for (auto& [key, pid] : pids_) kill(pid, SIGTERM);
  for (auto& [key, pid] : pids_) {
    // Give each 5 s to stop cleanly, then kill it.
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) {
        pid = 0;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (pid != 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
}

}  // namespace tw
