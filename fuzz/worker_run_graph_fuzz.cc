// The worker's RunGraph handler, called in process with a fuzzed RunGraphRequest for a
// registered PartitionGraph() (any sends, recv keys, step ids). The step is cleaned up
// afterwards as the master does.
#include <set>
#include <string>

#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tw::fuzz::OneTaskCluster* cluster = new tw::fuzz::OneTaskCluster();
  static const std::string* handle = [] {
    tw::RegisterGraphRequest reg;
    *reg.mutable_graph_def() = tw::fuzz::PartitionGraph();
    reg.set_session_handle("fuzz");
    tw::RegisterGraphResponse resp;
    TW_FUZZ_CHECK(cluster->worker().RegisterGraph(reg, &resp).ok());
    return new std::string(resp.graph_handle());
  }();
  tw::RunGraphRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (req.graph_handle().empty()) req.set_graph_handle(*handle);
  tw::RunGraphResponse resp;
  if (cluster->worker().RunGraph(req, &resp).ok()) {
    // A recv_key asked twice is returned once.
    const std::set<std::string> distinct(req.recv_key().begin(), req.recv_key().end());
    TW_FUZZ_CHECK(resp.recv_size() == static_cast<int>(distinct.size()));
  }
  tw::CleanupGraphRequest cleanup;
  cleanup.set_step_id(req.step_id());
  tw::CleanupGraphResponse ignored;
  (void)cluster->worker().CleanupGraph(cleanup, &ignored);
  return 0;
}
