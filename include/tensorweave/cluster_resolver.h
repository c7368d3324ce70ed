// Cluster resolvers, as TensorFlow's tf.distribute.cluster_resolver: the cluster spec and
// this task's job and index, read from what a cluster manager gives every process.
//
//   auto r = tw::SlurmClusterResolver::Create({.jobs = {{"ps", 1}, {"worker", 2}}});
//   tw::Server::Create(r->cluster_spec(), r->task_type(), r->task_id(), options);
//
//   TFConfigClusterResolver      TF_CONFIG's JSON (cluster and task)
//   SlurmClusterResolver         SLURM_PROCID, SLURM_(STEP|JOB)_NODELIST, SLURM_(STEP_)TASKS_PER_NODE
//   MpiClusterResolver           Open MPI's OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE
//   KubernetesClusterResolver    the pod's StatefulSet ordinal and its headless Service's DNS names
//
// Tasks are numbered in the order of `jobs` (the first N ranks are the first job's tasks,
// ...), and a task's port is `port_base` + its local index on its host, as TF's Slurm
// resolver does. Every error is InvalidArgument (FailedPrecondition for a missing variable)
// naming the variable or option that is wrong. The environment is read through an
// EnvLookup, so a test (or Python) can give its own.
#ifndef TENSORWEAVE_CLUSTER_RESOLVER_H_
#define TENSORWEAVE_CLUSTER_RESOLVER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensorweave/cluster_spec.h"
#include "tensorweave/status.h"

namespace tw {

// Reads one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup ProcessEnvironment();                                          // getenv
EnvLookup MapEnvironment(std::map<std::string, std::string> variables);  // a fixed set

// Jobs in task order: {{"ps", 1}, {"worker", 2}} gives ranks 0 -> ps:0, 1 -> worker:0, 2 -> worker:1.
using JobCounts = std::vector<std::pair<std::string, int>>;
// "ps:1,worker:2" -> {{"ps", 1}, {"worker", 2}}; InvalidArgument naming the bad item.
StatusOr<JobCounts> ParseJobCounts(const std::string& text);

// Slurm's compressed host lists, expanded as `scontrol show hostnames` does, in order and
// without removing duplicates: "node[01-03,7],gpu-a[1-2]" -> node01 node02 node03 node7
// gpu-a1 gpu-a2; several bracket groups multiply ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2);
// a range keeps the zero padding of its first number. InvalidArgument naming the position
// and what was expected (unbalanced brackets, empty names or ranges, a descending range,
// more than kMaxExpandedHosts hosts).
inline constexpr int kMaxExpandedHosts = 65536;
StatusOr<std::vector<std::string>> ExpandHostList(const std::string& hostlist);
// Slurm's tasks per node: "2(x3),1" -> {2, 2, 2, 1}.
StatusOr<std::vector<int>> ExpandTasksPerNode(const std::string& text);

class ClusterResolver {
 public:
  virtual ~ClusterResolver() = default;
  const ClusterSpec& cluster_spec() const { return cluster_; }
  const std::string& task_type() const { return task_type_; }
  int task_id() const { return task_id_; }
  // "grpc://host:port" of a task (this one when task_type is empty); "" with rpc_layer "".
  StatusOr<std::string> master(const std::string& task_type = "", int task_id = -1,
                               const std::string& rpc_layer = "grpc") const;
  // Accelerators per task: tensorweave runs on CPUs, so none.
  int num_accelerators() const { return 0; }
  // What the resolver read, for logs ("SLURM_PROCID=2 on node vm, ...").
  const std::string& description() const { return description_; }

 protected:
  ClusterSpec cluster_;
  std::string task_type_;
  int task_id_ = 0;
  std::string description_;
};

class TFConfigClusterResolver : public ClusterResolver {
 public:
  // FailedPrecondition when TF_CONFIG is unset; its parse errors otherwise.
  static StatusOr<TFConfigClusterResolver> Create(const EnvLookup& env = ProcessEnvironment());
};

struct SlurmOptions {
  JobCounts jobs;
  int port_base = 8888;  // TF's default
};
class SlurmClusterResolver : public ClusterResolver {
 public:
  static StatusOr<SlurmClusterResolver> Create(const SlurmOptions& options,
                                               const EnvLookup& env = ProcessEnvironment());
};

// Gathers every rank's "host:port" in rank order, given this rank's (MPI_Allgather in
// `tw`, when built with Open MPI).
using AddressExchange = std::function<StatusOr<std::vector<std::string>>(const std::string& mine)>;
struct MpiOptions {
  JobCounts jobs;
  int port_base = 8888;
  std::string host;  // this rank's host name; default gethostname()
  // Without an exchange only ranks on one host can be resolved (each rank's address is
  // then host:port_base+rank); ranks on several hosts fail with FailedPrecondition.
  AddressExchange exchange;
};
class MpiClusterResolver : public ClusterResolver {
 public:
  static StatusOr<MpiClusterResolver> Create(const MpiOptions& options, const EnvLookup& env = ProcessEnvironment());
};

// One StatefulSet per job, named statefulset_prefix + job, behind one headless Service:
// task i of job J is "<prefix>J-i.<service>.<namespace>.svc.<cluster_domain>:<port>". This
// pod's job and index come from its host name "<prefix>J-<ordinal>" (HOSTNAME, else
// gethostname()). Namespace: the option, else POD_NAMESPACE, else the service account's
// namespace file, else "default".
struct KubernetesOptions {
  JobCounts jobs;
  int port = 8888;
  std::string service = "tw";
  std::string namespace_;
  std::string statefulset_prefix = "tw-";
  std::string cluster_domain = "cluster.local";
  std::string hostname;  // default: HOSTNAME, else gethostname()
  std::string namespace_file = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};
class KubernetesClusterResolver : public ClusterResolver {
 public:
  static StatusOr<KubernetesClusterResolver> Create(const KubernetesOptions& options,
                                                    const EnvLookup& env = ProcessEnvironment());
};

}  // namespace tw

#endif  // TENSORWEAVE_CLUSTER_RESOLVER_H_
