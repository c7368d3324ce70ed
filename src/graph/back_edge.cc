#include "graph/back_edge.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {

absl::Status SetBackEdge(Node* merge, int input, Node* next) {
  auto err = [&](const std::string& m) {
    return NodeError(merge->name(), merge->op(), absl::InvalidArgumentError(m));
  };
  if (merge->op() != "Merge") return err("only a Merge may take a while loop's back edge");
  if (next == nullptr || next->op() != "NextIteration") return err("a back edge must come from a NextIteration");
  if (input < 0 || input >= merge->num_inputs()) return err(absl::StrCat("has no input ", input));
  if (next->output_type(0) != merge->input_type(input)) {
    return err(absl::StrCat("back edge from '", next->name(), "' is ", DTypeName(next->output_type(0)),
                            " but the Merge takes ", DTypeName(merge->input_type(input))));
  }
  // The edge objects and the out-edge lists are owned, non-const, by the FlowGraph; the
  // Node accessors hand them out const only because nothing else may rewire them. This
  // keeps the rewiring out of graph.h, which ~170 files include.
  auto* edge = const_cast<Edge*>(merge->input_edge(input));
  auto& old_out = const_cast<std::vector<const Edge*>&>(edge->src->out_edges());
  old_out.erase(std::remove(old_out.begin(), old_out.end(), edge), old_out.end());
  edge->src = next;
  edge->src_output = 0;
  const_cast<std::vector<const Edge*>&>(next->out_edges()).push_back(edge);
  return absl::OkStatus();
}

}  // namespace tw
