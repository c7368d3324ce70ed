// `tw server --cluster_resolver=NAME`: the cluster and this task from a cluster manager's
// environment (tensorweave/cluster_resolver.h), configured by the server's flags.
#ifndef TW_TOOLS_TW_RESOLVER_H_
#define TW_TOOLS_TW_RESOLVER_H_

#include <string>

#include "tensorweave/cluster_spec.h"
#include "tensorweave/status.h"

namespace tw::cli {

struct ResolverFlags {
  std::string name;  // tf_config, slurm, mpi, kubernetes
  std::string jobs;  // JOB:N,... (slurm, mpi, kubernetes)
  int base_port = 8888;
  std::string k8s_service, k8s_namespace, k8s_statefulset_prefix, k8s_cluster_domain;
};

struct ResolvedTask {
  ClusterSpec cluster;
  std::string job;
  int task = 0;
  std::string description;  // what was read, for the server's log
};

// InvalidArgument naming the flag or variable that is wrong (FailedPrecondition for a
// variable the cluster manager should have set).
StatusOr<ResolvedTask> Resolve(const ResolverFlags& flags);

}  // namespace tw::cli

#endif  // TW_TOOLS_TW_RESOLVER_H_
