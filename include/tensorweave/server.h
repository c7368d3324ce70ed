// Server: one task of a cluster. Hosts a MasterService (client sessions reach it at
// target() = "grpc://host:port") and a WorkerService (runs graph partitions, serves
// tensors to other tasks) in one gRPC server.
//
//   auto cluster = tw::ClusterSpec::Parse("local|localhost:2222;localhost:2223");
//   auto server = tw::Server::Create(*cluster, "local", 1);
//   (*server)->Start();  (*server)->Join();
#ifndef TENSORWEAVE_SERVER_H_
#define TENSORWEAVE_SERVER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorweave/cluster_spec.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/security.h"
#include "tensorweave/status.h"

namespace tw {

struct ServerOptions {
  // Deadline of every call between tasks (a task that is down or hung fails the step
  // within it, naming the task).
  int64_t rpc_timeout_ms = 30000;
  // Threads of the task's kernels: within one op (intra) and across ops (inter); <= 0:
  // one per core.
  int intra_op_threads = 0;
  int inter_op_threads = 0;
  // TLS and the cluster token this task demands of its clients and presents to the other
  // tasks (tensorweave/security.h). Without either the task only serves a loopback
  // address, unless insecure_allow_remote (then it warns).
  TransportSecurity security;
  bool insecure_allow_remote = false;
  // Caps on tensor sizes, graph sizes and concurrent steps (resource_limits.h).
  ResourceLimits limits;
  // The directory tree the graphs run here may read and write files in (SaveTensors,
  // RestoreTensors, ...); a file outside it (`..` and symlinks resolved) is PermissionDenied.
  // Empty: no limit, as an in-process session (`tw server` defaults it to its working
  // directory). Must be an existing directory (Server::Create: InvalidArgument otherwise).
  std::string file_access_root;
  // A session that runs no step and sees no call for this long is closed (as TF1's
  // session_gc_seconds): a client that left without CloseSession holds nothing for ever.
  int64_t session_gc_seconds = 24 * 60 * 60;
  // Bytes of step replies (RunStep, RunGraph) held at once for clients that have not read
  // them yet (slow or never-reading clients); a reply beyond it is ResourceExhausted.
  int64_t max_pending_reply_bytes = int64_t{4} << 30;
};

class Server {
 public:
  // The task (job, task) of `cluster`; InvalidArgument if the cluster has no such task.
  static StatusOr<std::unique_ptr<Server>> Create(const ClusterSpec& cluster, const std::string& job, int task,
                                                  const ServerOptions& options = {});
  // A one-task cluster ("localhost" job) on a free loopback port, started.
  static StatusOr<std::unique_ptr<Server>> CreateLocal(const ServerOptions& options = {});
  virtual ~Server() = default;

  // Binds the task's address and starts serving; Unavailable (naming the address) if it
  // cannot bind, e.g. the port is in use; InvalidArgument for unreadable security files;
  // FailedPrecondition for a non-loopback address without TLS or a token.
  virtual Status Start() = 0;
  // Blocks until Stop() is called.
  virtual void Join() = 0;
  // Stops serving; in-flight calls are cancelled. Idempotent.
  virtual void Stop() = 0;
  // "grpc://host:port" of this task.
  virtual std::string target() const = 0;
};

// A whole cluster of in-process servers (real gRPC on free loopback ports), all started.
// For examples, benchmarks and tests.
struct InProcessCluster {
  ClusterSpec spec;
  // One job: servers[i] is task i. Several: jobs in name order, tasks ascending.
  std::vector<std::unique_ptr<Server>> servers;
  std::string target(int task) const { return servers[task]->target(); }
  // "grpc://host:port" of (job, task); InvalidArgument-throwing for an unknown task.
  std::string target(const std::string& job, int task) const {
    return "grpc://" + ValueOrThrow(spec.address(job, task));
  }
};
// One job of `tasks` tasks.
StatusOr<InProcessCluster> StartInProcessCluster(const std::string& job, int tasks,
                                                 const ServerOptions& options = {});
// Jobs by name -> number of tasks, e.g. {{"ps", 1}, {"worker", 2}}.
StatusOr<InProcessCluster> StartInProcessCluster(const std::map<std::string, int>& jobs,
                                                 const ServerOptions& options = {});

}  // namespace tw

#endif  // TENSORWEAVE_SERVER_H_
