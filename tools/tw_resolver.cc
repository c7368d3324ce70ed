#include "tw_resolver.h"

#include "absl/strings/str_cat.h"
#include "tensorweave/cluster_resolver.h"
#ifdef TW_HAVE_MPI
#include "distributed/mpi/mpi_address_exchange.h"
#endif

namespace tw::cli {
namespace {

template <typename Resolver>
ResolvedTask From(const Resolver& r) {
  return {r.cluster_spec(), r.task_type(), r.task_id(), r.description()};
}

}  // namespace

StatusOr<ResolvedTask> Resolve(const ResolverFlags& flags) {
  if (flags.name == "tf_config") {
    TW_ASSIGN_OR_RETURN(auto r, TFConfigClusterResolver::Create());
    return From(r);
  }
  if (flags.name != "slurm" && flags.name != "mpi" && flags.name != "kubernetes") {
    return absl::InvalidArgumentError(absl::StrCat("--cluster_resolver must be tf_config, slurm, mpi or kubernetes, not '",
                                                   flags.name, "'"));
  }
  if (flags.jobs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--cluster_resolver=", flags.name, " needs --resolver_jobs (e.g. ps:1,worker:2)"));
  }
  auto jobs = ParseJobCounts(flags.jobs);
  if (!jobs.ok()) return absl::InvalidArgumentError(absl::StrCat("--resolver_jobs: ", jobs.status().message()));
  if (flags.base_port > 65535) return absl::InvalidArgumentError("--base_port must be at most 65535");
  if (flags.name == "slurm") {
    TW_ASSIGN_OR_RETURN(auto r, SlurmClusterResolver::Create({.jobs = *jobs, .port_base = flags.base_port}));
    return From(r);
  }
  if (flags.name == "mpi") {
    MpiOptions options{.jobs = *jobs, .port_base = flags.base_port};
#ifdef TW_HAVE_MPI
    options.exchange = MpiAllgatherAddresses;
#endif
    TW_ASSIGN_OR_RETURN(auto r, MpiClusterResolver::Create(options));
    return From(r);
  }
  KubernetesOptions options{.jobs = *jobs, .port = flags.base_port};
  options.service = flags.k8s_service;
  options.namespace_ = flags.k8s_namespace;
  options.statefulset_prefix = flags.k8s_statefulset_prefix;
  options.cluster_domain = flags.k8s_cluster_domain;
  TW_ASSIGN_OR_RETURN(auto r, KubernetesClusterResolver::Create(options));
  return From(r);
}

}  // namespace tw::cli
