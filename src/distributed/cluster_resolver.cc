// The cluster resolvers of tensorweave/cluster_resolver.h: each turns what its cluster
// manager puts in a process's environment into a ClusterSpec and this task's place in it.
#include "tensorweave/cluster_resolver.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tw {
namespace {

std::string HostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

// A variable that must be set (FailedPrecondition saying how the process should be started).
StatusOr<std::string> Required(const EnvLookup& env, const std::string& resolver,
                               std::initializer_list<const char*> names, const std::string& how) {
  for (const char* name : names) {
    if (std::optional<std::string> value = env(name); value.has_value() && !value->empty()) return *value;
  }
  return absl::FailedPreconditionError(absl::StrCat(resolver, " resolver: ", absl::StrJoin(names, " or "),
                                                    names.size() > 1 ? " are" : " is", " not set (", how, ")"));
}

// The first of `names` that is set, with its name.
std::pair<std::string, std::string> FirstSet(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (std::optional<std::string> value = env(name); value.has_value() && !value->empty()) return {name, *value};
  }
  return {};
}

StatusOr<int> NonNegative(const std::string& resolver, const std::string& name, const std::string& value) {
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(resolver, " resolver: ", name, "='", value, "' is not a non-negative integer"));
  }
  return n;
}

absl::Status CheckPort(const std::string& resolver, int port_base, int offset) {
  if (port_base < 1 || port_base + offset > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(resolver, " resolver: port ", port_base, " + local index ", offset,
                                                   " is not a port (1..65535); give another base port"));
  }
  return absl::OkStatus();
}

int TotalTasks(const JobCounts& jobs) {
  return std::accumulate(jobs.begin(), jobs.end(), 0, [](int n, const auto& job) { return n + job.second; });
}

std::string JobsText(const JobCounts& jobs) {
  return absl::StrJoin(jobs, ",", [](std::string* out, const auto& job) { absl::StrAppend(out, job.first, ":", job.second); });
}

// Fills cluster, task type and id from every rank's address (rank order) and this rank:
// the first jobs[0].second ranks are the first job's tasks, and so on.
absl::Status AssignRanks(const std::string& resolver, const JobCounts& jobs, const std::vector<std::string>& addresses,
                         int rank, const std::string& rank_name, ClusterSpec* cluster, std::string* task_type,
                         int* task_id) {
  if (jobs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(resolver, " resolver: no jobs given (e.g. ps:1,worker:2)"));
  }
  const int needed = TotalTasks(jobs);
  if (needed > static_cast<int>(addresses.size())) {
    return absl::InvalidArgumentError(absl::StrCat(resolver, " resolver: the jobs ", JobsText(jobs), " need ", needed,
                                                   " tasks but ", addresses.size(), " were started"));
  }
  if (rank >= needed) {
    return absl::InvalidArgumentError(absl::StrCat(resolver, " resolver: ", rank_name, "=", rank,
                                                   " has no task: the jobs ", JobsText(jobs), " have ", needed,
                                                   " tasks (ranks 0-", needed - 1, ")"));
  }
  std::map<std::string, std::vector<std::string>> spec;
  int next = 0;
  for (const auto& [job, n] : jobs) {
    for (int t = 0; t < n; ++t, ++next) {
      if (next == rank) {
        *task_type = job;
        *task_id = t;
      }
      spec[job].push_back(addresses[next]);
    }
  }
  TW_ASSIGN_OR_RETURN(*cluster, ClusterSpec::FromJobs(spec));
  return absl::OkStatus();
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

EnvLookup MapEnvironment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

StatusOr<std::string> ClusterResolver::master(const std::string& task_type, int task_id,
                                              const std::string& rpc_layer) const {
  const std::string& job = task_type.empty() ? task_type_ : task_type;
  const int task = task_type.empty() && task_id < 0 ? task_id_ : task_id;
  TW_ASSIGN_OR_RETURN(std::string address, cluster_.address(job, task));
  return rpc_layer.empty() ? address : absl::StrCat(rpc_layer, "://", address);
}

StatusOr<TFConfigClusterResolver> TFConfigClusterResolver::Create(const EnvLookup& env) {
  TW_ASSIGN_OR_RETURN(std::string json, Required(env, "tf_config", {"TF_CONFIG"},
                                                 "give it the cluster and task as JSON"));
  TW_ASSIGN_OR_RETURN(ClusterSpec::TfConfig config, ClusterSpec::FromTfConfigJson(json));
  TFConfigClusterResolver r;
  r.cluster_ = config.cluster;
  r.task_type_ = config.job;
  r.task_id_ = config.task;
  r.description_ = "TF_CONFIG";
  return r;
}

StatusOr<SlurmClusterResolver> SlurmClusterResolver::Create(const SlurmOptions& options, const EnvLookup& env) {
  const std::string how = "start each task with srun";
  TW_ASSIGN_OR_RETURN(std::string procid_text, Required(env, "slurm", {"SLURM_PROCID"}, how));
  TW_ASSIGN_OR_RETURN(int procid, NonNegative("slurm", "SLURM_PROCID", procid_text));
  // A job step may run on a part of the job's nodes: the step's variables come first.
  auto [nodes_name, nodelist] = FirstSet(env, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  if (nodes_name.empty()) {
    return Required(env, "slurm", {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST"}, how).status();
  }
  auto [tasks_name, tasks_text] = FirstSet(env, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
  if (tasks_name.empty()) {
    return Required(env, "slurm", {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}, how).status();
  }
  auto hosts = ExpandHostList(nodelist);
  if (!hosts.ok()) return absl::InvalidArgumentError(absl::StrCat("slurm resolver: ", nodes_name, ": ", hosts.status().message()));
  auto counts = ExpandTasksPerNode(tasks_text);
  if (!counts.ok()) return absl::InvalidArgumentError(absl::StrCat("slurm resolver: ", tasks_name, ": ", counts.status().message()));
  if (counts->size() != hosts->size()) {
    return absl::InvalidArgumentError(absl::StrCat("slurm resolver: ", nodes_name, "='", nodelist, "' names ",
                                                   hosts->size(), " nodes but ", tasks_name, "='", tasks_text,
                                                   "' gives tasks for ", counts->size()));
  }
  // Slurm's default (block) distribution: node 0's tasks first, then node 1's, ...
  std::vector<std::string> addresses;
  int my_local = -1;
  std::string my_host;
  for (size_t i = 0; i < hosts->size(); ++i) {
    for (int local = 0; local < (*counts)[i]; ++local) {
      TW_RETURN_IF_ERROR(CheckPort("slurm", options.port_base, local));
      if (static_cast<int>(addresses.size()) == procid) {
        my_local = local;
        my_host = (*hosts)[i];
      }
      addresses.push_back(absl::StrCat((*hosts)[i], ":", options.port_base + local));
    }
  }
  if (my_local < 0) {
    return absl::InvalidArgumentError(absl::StrCat("slurm resolver: SLURM_PROCID=", procid, " is not one of the ",
                                                   addresses.size(), " tasks of ", tasks_name, "='", tasks_text, "'"));
  }
  if (auto local_id = env("SLURM_LOCALID"); local_id.has_value() && !local_id->empty()) {
    TW_ASSIGN_OR_RETURN(int given, NonNegative("slurm", "SLURM_LOCALID", *local_id));
    if (given != my_local) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slurm resolver: SLURM_LOCALID=", given, " but the block distribution puts SLURM_PROCID=", procid,
          " at local index ", my_local, " of node ", my_host, " (start the tasks with srun --distribution=block)"));
    }
  }
  SlurmClusterResolver r;
  TW_RETURN_IF_ERROR(
      AssignRanks("slurm", options.jobs, addresses, procid, "SLURM_PROCID", &r.cluster_, &r.task_type_, &r.task_id_));
  r.description_ = absl::StrCat("SLURM_PROCID=", procid, " on node ", my_host, ", ", nodes_name, "=", nodelist, ", ",
                                tasks_name, "=", tasks_text);
  return r;
}

StatusOr<MpiClusterResolver> MpiClusterResolver::Create(const MpiOptions& options, const EnvLookup& env) {
  const std::string how = "start each task with Open MPI's mpirun";
  TW_ASSIGN_OR_RETURN(std::string rank_text, Required(env, "mpi", {"OMPI_COMM_WORLD_RANK"}, how));
  TW_ASSIGN_OR_RETURN(std::string size_text, Required(env, "mpi", {"OMPI_COMM_WORLD_SIZE"}, how));
  TW_ASSIGN_OR_RETURN(std::string local_text, Required(env, "mpi", {"OMPI_COMM_WORLD_LOCAL_RANK"}, how));
  TW_ASSIGN_OR_RETURN(int rank, NonNegative("mpi", "OMPI_COMM_WORLD_RANK", rank_text));
  TW_ASSIGN_OR_RETURN(int size, NonNegative("mpi", "OMPI_COMM_WORLD_SIZE", size_text));
  TW_ASSIGN_OR_RETURN(int local_rank, NonNegative("mpi", "OMPI_COMM_WORLD_LOCAL_RANK", local_text));
  if (rank >= size) {
    return absl::InvalidArgumentError(
        absl::StrCat("mpi resolver: OMPI_COMM_WORLD_RANK=", rank, " is not below OMPI_COMM_WORLD_SIZE=", size));
  }
  TW_RETURN_IF_ERROR(CheckPort("mpi", options.port_base, local_rank));
  const std::string host = options.host.empty() ? HostName() : options.host;
  const std::string mine = absl::StrCat(host, ":", options.port_base + local_rank);
  std::vector<std::string> addresses;
  std::string how_found;
  if (options.exchange) {
    TW_ASSIGN_OR_RETURN(addresses, options.exchange(mine));
    if (static_cast<int>(addresses.size()) != size) {
      return absl::FailedPreconditionError(absl::StrCat("mpi resolver: the address exchange (MPI_Allgather) gave ",
                                                        addresses.size(), " addresses for OMPI_COMM_WORLD_SIZE=", size,
                                                        " (was this process started by mpirun?)"));
    }
    how_found = "addresses exchanged with MPI_Allgather";
  } else {
    // Without MPI every rank's address is known only when all of them run on this host.
    auto local_size = env("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!local_size.has_value() || *local_size != size_text || local_rank != rank) {
      return absl::FailedPreconditionError(absl::StrCat(
          "mpi resolver: the ranks run on several hosts (OMPI_COMM_WORLD_LOCAL_SIZE=", local_size.value_or("unset"),
          ", OMPI_COMM_WORLD_SIZE=", size, ") and this build has no MPI to exchange their addresses: install Open "
          "MPI's libopenmpi-dev and rebuild tw, or use --cluster_resolver=slurm or tf_config"));
    }
    for (int r = 0; r < size; ++r) {
      TW_RETURN_IF_ERROR(CheckPort("mpi", options.port_base, r));
      addresses.push_back(absl::StrCat(host, ":", options.port_base + r));
    }
    how_found = "all ranks on this host (no MPI in this build)";
  }
  MpiClusterResolver r;
  TW_RETURN_IF_ERROR(
      AssignRanks("mpi", options.jobs, addresses, rank, "OMPI_COMM_WORLD_RANK", &r.cluster_, &r.task_type_, &r.task_id_));
  r.description_ = absl::StrCat("OMPI_COMM_WORLD_RANK=", rank, " of ", size, " on host ", host, ", ", how_found);
  return r;
}

StatusOr<KubernetesClusterResolver> KubernetesClusterResolver::Create(const KubernetesOptions& options,
                                                                      const EnvLookup& env) {
  std::string hostname = options.hostname;
  if (hostname.empty()) hostname = env("HOSTNAME").value_or("");
  if (hostname.empty()) hostname = HostName();
  hostname = hostname.substr(0, hostname.find('.'));
  // A StatefulSet's pod is named <statefulset>-<ordinal>.
  const auto dash = hostname.rfind('-');
  int ordinal = -1;
  if (dash == std::string::npos || dash + 1 == hostname.size() ||
      !absl::SimpleAtoi(hostname.substr(dash + 1), &ordinal) || ordinal < 0 ||
      !absl::ascii_isdigit(hostname[dash + 1])) {
    return absl::InvalidArgumentError(absl::StrCat("kubernetes resolver: host name '", hostname,
                                                   "' is not a StatefulSet pod's <statefulset>-<ordinal>"));
  }
  const std::string statefulset = hostname.substr(0, dash);
  if (options.jobs.empty()) return absl::InvalidArgumentError("kubernetes resolver: no jobs given (e.g. ps:1,worker:2)");
  if (options.service.empty()) return absl::InvalidArgumentError("kubernetes resolver: no headless Service name given");
  TW_RETURN_IF_ERROR(CheckPort("kubernetes", options.port, 0));
  std::string ns = options.namespace_;
  if (ns.empty()) ns = env("POD_NAMESPACE").value_or("");
  if (ns.empty() && !options.namespace_file.empty()) {
    std::ifstream file(options.namespace_file);
    std::getline(file, ns);
    ns = std::string(absl::StripAsciiWhitespace(ns));
  }
  if (ns.empty()) ns = "default";
  KubernetesClusterResolver r;
  std::map<std::string, std::vector<std::string>> spec;
  std::vector<std::string> names;
  for (const auto& [job, n] : options.jobs) {
    const std::string set = options.statefulset_prefix + job;
    names.push_back(set);
    if (set == statefulset) {
      if (ordinal >= n) {
        return absl::InvalidArgumentError(absl::StrCat("kubernetes resolver: pod ", hostname, " has ordinal ", ordinal,
                                                       " but job '", job, "' has ", n, " tasks"));
      }
      r.task_type_ = job;
      r.task_id_ = ordinal;
    }
    for (int i = 0; i < n; ++i) {
      spec[job].push_back(absl::StrCat(set, "-", i, ".", options.service, ".", ns, ".svc.", options.cluster_domain, ":",
                                       options.port));
    }
  }
  if (r.task_type_.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("kubernetes resolver: pod ", hostname, "'s StatefulSet '",
                                                   statefulset, "' is none of the jobs' (", absl::StrJoin(names, ", "),
                                                   ")"));
  }
  TW_ASSIGN_OR_RETURN(r.cluster_, ClusterSpec::FromJobs(spec));
  r.description_ = absl::StrCat("pod ", hostname, " of StatefulSet ", statefulset, ", Service ", options.service,
                                " in namespace ", ns);
  return r;
}

}  // namespace tw
