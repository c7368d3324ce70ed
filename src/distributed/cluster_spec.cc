#include "tensorweave/cluster_spec.h"

#include <cstdlib>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "distributed/strict_json.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace tw {
namespace {

bool IsValidJobName(const std::string& s) {
  if (s.empty() || !absl::ascii_isalpha(s[0])) return false;
  for (char c : s)
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  return true;
}

}  // namespace

Status ValidateAddress(const std::string& address) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("bad address '", address, "': ", why));
  };
  std::string host, port;
  if (!address.empty() && address[0] == '[') {
    auto close = address.find("]:");
    if (close == std::string::npos) return bad("expected [ipv6]:port");
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    auto colon = address.rfind(':');
    if (colon == std::string::npos) return bad("expected host:port");
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    if (host.find(':') != std::string::npos) return bad("write IPv6 hosts as [addr]:port");
  }
  if (host.empty()) return bad("empty host");
  for (char c : host) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '-' && c != ':' && c != '_') {
      return bad(absl::StrCat("invalid character '", std::string(1, c), "' in host"));
    }
  }
  int p;
  if (!absl::SimpleAtoi(port, &p) || port.empty() || !absl::ascii_isdigit(port[0]) || p < 1 || p > 65535) {
    return bad("port must be a number from 1 to 65535");
  }
  return absl::OkStatus();
}

StatusOr<ClusterSpec> ClusterSpec::FromSparseJobs(const std::map<std::string, std::map<int, std::string>>& jobs) {
  if (jobs.empty()) return absl::InvalidArgumentError("cluster spec has no jobs");
  absl::flat_hash_map<std::string, std::string> used;  // address -> "job:task"
  for (const auto& [job, tasks] : jobs) {
    if (!IsValidJobName(job)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "bad job name '", job, "' (letters, digits, '_' and '-', starting with a letter)"));
    }
    if (tasks.empty()) return absl::InvalidArgumentError(absl::StrCat("job '", job, "' has no tasks"));
    for (const auto& [index, address] : tasks) {
      if (index < 0) {
        return absl::InvalidArgumentError(absl::StrCat("job '", job, "' has negative task index ", index));
      }
      TW_RETURN_IF_ERROR(ValidateAddress(address));
      std::string who = absl::StrCat(job, ":", index);
      auto [it, inserted] = used.emplace(address, who);
      if (!inserted) {
        return absl::InvalidArgumentError(absl::StrCat("address '", address, "' is used by both ",
                                                       it->second, " and ", who));
      }
    }
  }
  ClusterSpec spec;
  spec.jobs_ = jobs;
  return spec;
}

StatusOr<ClusterSpec> ClusterSpec::FromJobs(const std::map<std::string, std::vector<std::string>>& jobs) {
  std::map<std::string, std::map<int, std::string>> sparse;
  for (const auto& [job, addresses] : jobs) {
    auto& tasks = sparse[job];
    for (size_t i = 0; i < addresses.size(); ++i) tasks[static_cast<int>(i)] = addresses[i];
  }
  return FromSparseJobs(sparse);
}

StatusOr<ClusterSpec> ClusterSpec::Parse(const std::string& flag) {
  std::map<std::string, std::vector<std::string>> jobs;
  for (absl::string_view part : absl::StrSplit(flag, ',', absl::SkipWhitespace())) {
    std::vector<std::string> kv = absl::StrSplit(part, '|');
    if (kv.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad cluster spec part '", part, "': expected job|host:port;host:port"));
    }
    std::string job(absl::StripAsciiWhitespace(kv[0]));
    if (jobs.count(job)) return absl::InvalidArgumentError(absl::StrCat("job '", job, "' listed twice"));
    auto& tasks = jobs[job];
    for (absl::string_view address : absl::StrSplit(kv[1], ';', absl::SkipWhitespace())) {
      tasks.emplace_back(absl::StripAsciiWhitespace(address));
    }
  }
  return FromJobs(jobs);
}

StatusOr<ClusterSpec::TfConfig> ClusterSpec::FromTfConfigJson(const std::string& json) {
  if (absl::Status strict = CheckStrictJson(json); !strict.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG is not valid JSON: ", strict.message()));
  }
  google::protobuf::Struct root;
  auto parsed = google::protobuf::util::JsonStringToMessage(json, &root);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG is not valid JSON: ", parsed.message().as_string()));
  }
  auto cluster_it = root.fields().find("cluster");
  if (cluster_it == root.fields().end() || !cluster_it->second.has_struct_value()) {
    return absl::InvalidArgumentError("TF_CONFIG has no \"cluster\" object");
  }
  std::map<std::string, std::map<int, std::string>> jobs;
  for (const auto& [job, value] : cluster_it->second.struct_value().fields()) {
    auto& tasks = jobs[job];
    if (value.has_list_value()) {
      int i = 0;
      for (const auto& address : value.list_value().values()) {
        if (!address.has_string_value()) {
          return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG job '", job, "' lists a non-string address"));
        }
        tasks[i++] = address.string_value();
      }
    } else if (value.has_struct_value()) {
      for (const auto& [index, address] : value.struct_value().fields()) {
        int i;
        if (!absl::SimpleAtoi(index, &i) || !address.has_string_value()) {
          return absl::InvalidArgumentError(
              absl::StrCat("TF_CONFIG job '", job, "' needs \"index\": \"host:port\" entries"));
        }
        tasks[i] = address.string_value();
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG job '", job, "' must be a list or object"));
    }
  }
  TfConfig config;
  TW_ASSIGN_OR_RETURN(config.cluster, FromSparseJobs(jobs));
  auto task_it = root.fields().find("task");
  if (task_it != root.fields().end()) {
    if (!task_it->second.has_struct_value()) {
      return absl::InvalidArgumentError("TF_CONFIG \"task\" must be an object like {\"type\": \"worker\", \"index\": 0}");
    }
    const auto& task = task_it->second.struct_value().fields();
    auto type = task.find("type");
    auto index = task.find("index");
    if (type == task.end() || !type->second.has_string_value()) {
      return absl::InvalidArgumentError("TF_CONFIG task needs a string \"type\"");
    }
    config.job = type->second.string_value();
    if (index != task.end()) {
      double v = index->second.number_value();
      if (!index->second.has_number_value() || v != static_cast<int>(v)) {
        return absl::InvalidArgumentError("TF_CONFIG task \"index\" must be an integer");
      }
      config.task = static_cast<int>(v);
    }
    if (!config.cluster.address(config.job, config.task).ok()) {
      const std::vector<int> tasks = config.cluster.task_indices(config.job);
      if (tasks.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG task type '", config.job,
                                                       "' is not a job of the cluster (jobs: ",
                                                       absl::StrJoin(config.cluster.jobs(), ", "), ")"));
      }
      return absl::InvalidArgumentError(absl::StrCat("TF_CONFIG task index ", config.task, " is not a task of job '",
                                                     config.job, "' (tasks: ", absl::StrJoin(tasks, ", "), ")"));
    }
  }
  return config;
}

StatusOr<ClusterSpec::TfConfig> ClusterSpec::FromEnvironment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return absl::NotFoundError(absl::StrCat("environment variable ", name, " is not set"));
  auto config = FromTfConfigJson(value);
  // The messages name TF_CONFIG already; another variable is named in front of them.
  if (!config.ok() && name != "TF_CONFIG") {
    return absl::Status(config.status().code(), absl::StrCat(name, ": ", config.status().message()));
  }
  return config;
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> names;
  for (const auto& [job, tasks] : jobs_) names.push_back(job);
  return names;
}

std::vector<int> ClusterSpec::task_indices(const std::string& job) const {
  std::vector<int> indices;
  auto it = jobs_.find(job);
  if (it != jobs_.end())
    for (const auto& [index, address] : it->second) indices.push_back(index);
  return indices;
}

int ClusterSpec::num_tasks(const std::string& job) const { return static_cast<int>(task_indices(job).size()); }

StatusOr<std::string> ClusterSpec::address(const std::string& job, int task) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("the cluster has no job '", job, "' (jobs: ",
                                                   absl::StrJoin(jobs(), ", "), ")"));
  }
  auto t = it->second.find(task);
  if (t == it->second.end()) {
    return absl::InvalidArgumentError(absl::StrCat("job '", job, "' has no task ", task, " (tasks: ",
                                                   absl::StrJoin(task_indices(job), ", "), ")"));
  }
  return t->second;
}

std::string ClusterSpec::ToString() const {
  std::vector<std::string> parts;
  for (const auto& [job, tasks] : jobs_) {
    std::vector<std::string> addresses;
    for (const auto& [index, address] : tasks) addresses.push_back(address);
    parts.push_back(absl::StrCat(job, "|", absl::StrJoin(addresses, ";")));
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace tw
