// The cluster resolvers (tensorweave/cluster_resolver.h) for tf.distribute.cluster_resolver,
// each resolved from a dict of environment variables; and tw::CheckHealth.
#include <map>
#include <string>
#include <vector>

#include "bindings.h"
#include "tensorweave/cluster_resolver.h"
#include "tensorweave/health.h"

namespace tw::python {
namespace {

py::tuple Result(const ClusterResolver& r) {
  return py::make_tuple(r.cluster_spec(), r.task_type(), r.task_id(), r.description());
}

}  // namespace

void BindClusterResolver(py::module_& m) {
  m.def("expand_hostlist", [](const std::string& list) { return ValueOrThrow(ExpandHostList(list)); });
  m.def("expand_tasks_per_node", [](const std::string& text) { return ValueOrThrow(ExpandTasksPerNode(text)); });
  // (cluster, task_type, task_id, description) of `kind` ("tf_config", "slurm", "mpi",
  // "kubernetes"); `options` holds the Kubernetes names and the MPI host.
  m.def("resolve_cluster", [](const std::string& kind, const JobCounts& jobs, int port,
                              const std::map<std::string, std::string>& env,
                              const std::map<std::string, std::string>& options) -> py::tuple {
    auto option = [&](const char* name, const std::string& fallback) {
      auto it = options.find(name);
      return it == options.end() ? fallback : it->second;
    };
    const EnvLookup lookup = MapEnvironment(env);
    if (kind == "tf_config") return Result(ValueOrThrow(TFConfigClusterResolver::Create(lookup)));
    if (kind == "slurm") return Result(ValueOrThrow(SlurmClusterResolver::Create({jobs, port}, lookup)));
    if (kind == "mpi") {
      return Result(ValueOrThrow(MpiClusterResolver::Create({.jobs = jobs, .port_base = port, .host = option("host", "")}, lookup)));
    }
    if (kind == "kubernetes") {
      KubernetesOptions k8s{.jobs = jobs, .port = port};
      k8s.service = option("service", k8s.service);
      k8s.namespace_ = option("namespace", "");
      k8s.statefulset_prefix = option("statefulset_prefix", k8s.statefulset_prefix);
      k8s.cluster_domain = option("cluster_domain", k8s.cluster_domain);
      k8s.hostname = option("hostname", "");
      return Result(ValueOrThrow(KubernetesClusterResolver::Create(k8s, lookup)));
    }
    throw StatusError(absl::InvalidArgumentError("unknown cluster resolver '" + kind + "'"));
  });
  // (devices, incarnation, active_steps) of the task at `address`, waiting up to wait_seconds.
  m.def("check_health", [](const std::string& address, double wait_seconds, int timeout_ms) {
    HealthReport report;
    {
      py::gil_scoped_release release;
      report = ValueOrThrow(CheckHealth(address, {.wait_seconds = wait_seconds, .timeout_ms = timeout_ms}));
    }
    return py::make_tuple(report.devices, report.incarnation, report.active_steps);
  }, py::arg("address"), py::arg("wait_seconds") = 0.0, py::arg("timeout_ms") = 2000);
}

}  // namespace tw::python
