// For the distributed examples: use the cluster given with --cluster_spec, or start one
// of in-process servers (real gRPC, on free loopback ports) so the example runs on its own.
#ifndef TENSORWEAVE_EXAMPLES_EXAMPLE_CLUSTER_H_
#define TENSORWEAVE_EXAMPLES_EXAMPLE_CLUSTER_H_

#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorweave/cluster_spec.h"
#include "tensorweave/server.h"

namespace tw::examples {

struct ExampleCluster {
  ClusterSpec spec;
  std::vector<std::unique_ptr<Server>> servers;  // Empty when the cluster runs elsewhere.
};

// Reads --cluster_spec=SPEC and --job=NAME from argv. Without a spec, starts `tasks`
// in-process tasks of job `job` (default `default_job`) on free ports.
inline ExampleCluster ClusterFromArgs(int argc, char** argv, const std::string& default_job, int tasks,
                                      std::string* job) {
  std::string spec;
  *job = default_job;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--cluster_spec=", 15)) spec = argv[i] + 15;
    if (!std::strncmp(argv[i], "--job=", 6)) *job = argv[i] + 6;
  }
  ExampleCluster cluster;
  if (!spec.empty()) {
    cluster.spec = ValueOrThrow(ClusterSpec::Parse(spec));
    return cluster;
  }
  InProcessCluster local = ValueOrThrow(StartInProcessCluster(*job, tasks));
  cluster.spec = local.spec;
  cluster.servers = std::move(local.servers);
  std::cout << "started a local cluster: " << cluster.spec.ToString() << "\n";
  return cluster;
}

// Reads --cluster_spec=SPEC from argv; without it, starts in-process tasks for `jobs`
// (job name -> task count) on free ports.
inline ExampleCluster ClusterFromArgs(int argc, char** argv, const std::map<std::string, int>& jobs) {
  ExampleCluster cluster;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--cluster_spec=", 15)) {
      cluster.spec = ValueOrThrow(ClusterSpec::Parse(argv[i] + 15));
      return cluster;
    }
  }
  InProcessCluster local = ValueOrThrow(StartInProcessCluster(jobs));
  cluster.spec = local.spec;
  cluster.servers = std::move(local.servers);
  std::cout << "started a local cluster: " << cluster.spec.ToString() << "\n";
  return cluster;
}

}  // namespace tw::examples

#endif  // TENSORWEAVE_EXAMPLES_EXAMPLE_CLUSTER_H_
