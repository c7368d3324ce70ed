// SavedModel loading up to the graph: a saved_model.pb is parsed, each MetaGraph found by
// its tag set, made ready for import (saver subgraphs dropped, the restore subgraph
// added) and imported. Errors are fine; crashes, leaks and hangs are not.
#include <set>

#include "fuzz/fuzz_util.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "savedmodel/saved_model_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tw::SavedModel model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return 0;
  int tried = 0;
  for (const tw::MetaGraphDef& meta : model.meta_graphs()) {
    if (++tried > 4) break;
    const auto& tags = meta.meta_info_def().tags();
    // A MetaGraph is always found by its own tag set (the first with that set).
    TW_FUZZ_CHECK(tw::FindMetaGraph(model, std::set<std::string>(tags.begin(), tags.end())).ok());
    (void)tw::FindSignature(meta, tw::kDefaultServingSignatureDefKey);
    std::string restore_op;
    absl::StatusOr<tw::GraphDef> def = tw::GraphDefForLoad(meta, "/nonexistent/variables/variables", &restore_op);
    if (!def.ok()) continue;
    tw::FlowGraph graph;
    if (tw::ImportGraphDef(*def, &graph, tw::fuzz::FuzzLimits()).ok() && !restore_op.empty()) {
      TW_FUZZ_CHECK(graph.FindNode(restore_op) != nullptr);
    }
  }
  return 0;
}
