// Shared pieces of the fuzz targets (fuzz/*_fuzz.cc): the limits they run under, an
// in-process cluster of one task, and the checks that turn a broken invariant into a
// crash the fuzzer (or the replay test) reports.
#ifndef TENSORWEAVE_FUZZ_FUZZ_UTIL_H_
#define TENSORWEAVE_FUZZ_FUZZ_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "distributed/master.h"
#include "google/protobuf/stubs/logging.h"
#include "distributed/worker.h"
#include "tensorweave/resource_limits.h"

namespace tw::fuzz {

// Protobuf logs every invalid UTF-8 string it parses; fuzzing produces millions.
inline const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

// Small enough that no input makes a target allocate more than the fuzzer's 2 GB.
inline ResourceLimits FuzzLimits() {
  ResourceLimits limits;
  limits.max_tensor_bytes = 1 << 20;
  limits.max_graph_nodes = 1000;
  limits.max_graph_bytes = 1 << 20;
  return limits;
}

// An invariant that must hold for every input: abort (a finding) when it does not.
#define TW_FUZZ_CHECK(cond)                                                          \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

inline std::string AsString(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Task 0 of job "local": a Worker and a Master that reaches it in process (no gRPC).
class OneTaskCluster : public WorkerCache {
 public:
  static constexpr char kJob[] = "local";
  static constexpr char kDevice[] = "/job:local/replica:0/task:0/device:CPU:0";
  OneTaskCluster()
      : worker_(kJob, 0, this, FuzzLimits()),
        master_(*ClusterSpec::FromJobs({{kJob, {"localhost:1"}}}), kJob, 0, this, &worker_, FuzzLimits()) {}
  absl::StatusOr<WorkerInterface*> GetWorker(const std::string& job, int task) override {
    if (job != kJob || task != 0) return absl::UnavailableError("the fuzz cluster has one task");
    return &worker_;
  }
  Worker& worker() { return worker_; }
  Master& master() { return master_; }

 private:
  Worker worker_;
  Master master_;
};

// The graph the master and worker targets run: float and int32 placeholders through
// arithmetic, a reduction and a variable, all on task 0 (fuzz_graphs.cc).
GraphDef SessionGraph();
// A worker partition: float _Arg 0 -> x * 2 -> _Retval 0, int32 _Arg 1 -> _Retval 1.
GraphDef PartitionGraph();

}  // namespace tw::fuzz

#endif  // TENSORWEAVE_FUZZ_FUZZ_UTIL_H_
