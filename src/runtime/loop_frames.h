// The while-loop frames of a whole graph before it is partitioned: which frame each node
// runs in (an Enter's consumers run in the child frame its frame_name names, an Exit's in
// its frame's parent, every other node in its inputs' frame), and each frame's LoopCond.
// The partitioner uses it to build the control loops of a loop spanning devices.
#ifndef TENSORWEAVE_SRC_RUNTIME_LOOP_FRAMES_H_
#define TENSORWEAVE_SRC_RUNTIME_LOOP_FRAMES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tw {

struct LoopFrames {
  struct Frame {
    std::string name;  // The Enters' frame_name; "" for the root.
    int parent = -1;
    int64_t parallel_iterations = 10;
    const Node* loop_cond = nullptr;  // The loop's predicate (null for the root).
  };
  std::vector<Frame> frames;  // frames[0] is the root.
  std::vector<int> frame_of;  // By node id: the frame the node runs in.

  // The frame of the tensors `node` outputs: an Enter's child frame, an Exit's parent frame.
  int OutputFrame(const Node& node) const;
  std::vector<int> enter_frame;  // By node id: an Enter's child frame; -1 otherwise.
};

// InvalidArgument naming a node for a structure that is not a loop (a node reached from
// two frames, an Exit outside any loop).
absl::StatusOr<LoopFrames> FindLoopFrames(const FlowGraph& graph);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_LOOP_FRAMES_H_
