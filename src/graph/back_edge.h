// A while loop's back edge (NextIteration -> Merge), the one cycle a FlowGraph may hold.
// FlowGraph adds a node only after its inputs, so a loop's Merge is added with a stand-in
// for each back edge (one of its forward inputs, as TF1's while_loop does) and the edge is
// pointed at the NextIteration once the body exists.
#ifndef TENSORWEAVE_SRC_GRAPH_BACK_EDGE_H_
#define TENSORWEAVE_SRC_GRAPH_BACK_EDGE_H_

#include "graph/graph.h"

namespace tw {

// Points data input `input` of `merge` (a Merge) at output 0 of `next` (a NextIteration of
// the Merge's dtype). InvalidArgument naming the Merge otherwise.
absl::Status SetBackEdge(Node* merge, int input, Node* next);

inline bool IsBackEdgeOp(const std::string& dst_op, const std::string& src_op) {
  return (dst_op == "Merge" || dst_op == "RefMerge") && (src_op == "NextIteration" || src_op == "RefNextIteration");
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_BACK_EDGE_H_
