// ClusterSpec: the jobs of a cluster and the "host:port" of each of their tasks.
//
//   auto cluster = tw::ClusterSpec::Parse("local|localhost:2222;localhost:2223");
//   auto same = tw::ClusterSpec::FromJobs({{"local", {"localhost:2222", "localhost:2223"}}});
//
// Task indexes may be sparse (FromSparseJobs). Every constructor validates: no empty
// cluster or job, valid job names, host:port with a port in 1..65535, no address used
// twice, no negative task index.
#ifndef TENSORWEAVE_CLUSTER_SPEC_H_
#define TENSORWEAVE_CLUSTER_SPEC_H_

#include <map>
#include <string>
#include <vector>

#include "tensorweave/status.h"

namespace tw {

class ClusterSpec {
 public:
  ClusterSpec() = default;

  static StatusOr<ClusterSpec> FromJobs(const std::map<std::string, std::vector<std::string>>& jobs);
  static StatusOr<ClusterSpec> FromSparseJobs(const std::map<std::string, std::map<int, std::string>>& jobs);
  // The seeds' flag syntax: "job1|host:port;host:port,job2|host:port".
  static StatusOr<ClusterSpec> Parse(const std::string& flag);

  // TF_CONFIG-style JSON, e.g. {"cluster": {"ps": ["h:1"], "worker": ["h:2", "h:3"]},
  // "task": {"type": "worker", "index": 1}}. Job lists may also be objects {"0": "h:2"}.
  struct TfConfig;
  static StatusOr<TfConfig> FromTfConfigJson(const std::string& json);
  // Reads the JSON from the environment variable `name` (NotFound when unset).
  static StatusOr<TfConfig> FromEnvironment(const std::string& name = "TF_CONFIG");

  std::vector<std::string> jobs() const;
  bool has_job(const std::string& job) const { return jobs_.count(job) > 0; }
  // Task indexes of `job`, ascending; empty for an unknown job.
  std::vector<int> task_indices(const std::string& job) const;
  int num_tasks(const std::string& job) const;
  // InvalidArgument naming the job and its tasks when (job, task) is not in the cluster.
  StatusOr<std::string> address(const std::string& job, int task) const;
  const std::map<std::string, std::map<int, std::string>>& job_tasks() const { return jobs_; }

  // Back to the flag syntax (sparse jobs as host lists in index order).
  std::string ToString() const;
  bool operator==(const ClusterSpec& other) const { return jobs_ == other.jobs_; }

 private:
  std::map<std::string, std::map<int, std::string>> jobs_;
};

struct ClusterSpec::TfConfig {
  ClusterSpec cluster;
  std::string job;  // task.type; empty when the JSON has no "task".
  int task = 0;     // task.index
};

// Checks "host:port" ("[::1]:port" for IPv6); InvalidArgument naming the address.
Status ValidateAddress(const std::string& address);

}  // namespace tw

#endif  // TENSORWEAVE_CLUSTER_SPEC_H_
