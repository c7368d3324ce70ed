// GraphDef validation + import: a binary GraphDef is imported into a graph, then
// registered with a worker, which builds an executor and so constructs every kernel
// (decoding constants, reading attrs). Errors are fine; crashes, leaks and hangs are not.
#include "fuzz/fuzz_util.h"
#include "graph/graph_def_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tw::fuzz::OneTaskCluster* cluster = new tw::fuzz::OneTaskCluster();
  tw::GraphDef def;
  if (!def.ParseFromArray(data, static_cast<int>(size))) return 0;
  tw::FlowGraph graph;
  const absl::Status imported = tw::ImportGraphDef(def, &graph, tw::fuzz::FuzzLimits());
  // Internal ops (_Arg, _Retval, _Send, _Recv...) come only from the partitioner.
  for (const tw::NodeDef& node : def.node()) {
    if (!node.op().empty() && node.op()[0] == '_') TW_FUZZ_CHECK(!imported.ok());
  }
  if (imported.ok()) {
    // What imported exports again and imports the same.
    tw::FlowGraph again;
    TW_FUZZ_CHECK(tw::ImportGraphDef(graph.ToGraphDef(), &again, tw::fuzz::FuzzLimits()).ok());
    TW_FUZZ_CHECK(again.num_nodes() == graph.num_nodes());
  }
  tw::RegisterGraphRequest reg;
  *reg.mutable_graph_def() = def;
  reg.set_session_handle("fuzz");
  tw::RegisterGraphResponse resp;
  if (cluster->worker().RegisterGraph(reg, &resp).ok()) {
    tw::DeregisterGraphRequest dereg;
    dereg.set_graph_handle(resp.graph_handle());
    tw::DeregisterGraphResponse ignored;
    TW_FUZZ_CHECK(cluster->worker().DeregisterGraph(dereg, &ignored).ok());
  }
  return 0;
}
