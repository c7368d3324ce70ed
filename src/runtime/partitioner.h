// Splits a placed graph into one graph per device. Every data edge that crosses devices
// becomes src -> _Send | _Recv -> dst (one pair per source tensor and destination
// device); a control edge that crosses devices is carried by a small dummy tensor.
//
// A while loop spanning devices: every device that receives a tensor inside the loop gets a
// control loop (TF1's: dummy Enter/Merge/Switch/NextIteration driven by the loop's LoopCond,
// received from the device that computes it), whose Merge starts the loop's _Recv nodes there
// once per iteration. The pairs inside a loop carry kFrameAttr (the frame's name): their keys
// name the iteration (OpKernelContext::frame_iter) and they carry the last iteration's dead
// tensors. Only outermost loops may span devices (a nested one is Unimplemented).
#ifndef TENSORWEAVE_SRC_RUNTIME_PARTITIONER_H_
#define TENSORWEAVE_SRC_RUNTIME_PARTITIONER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace tw {

// The attr marking a _Send/_Recv inside a while loop: the frame's name.
extern const char kFrameAttr[];

struct PartitionOptions {
  // The incarnation of a device (changes when its process restarts), part of every
  // rendezvous key so tensors from a dead incarnation are never mistaken for new ones.
  std::function<uint64_t(const std::string& device)> incarnation = [](const std::string&) { return 0; };
};

// `graph` must be placed (every node has an assigned device). Keys of the result are
// device names; each GraphDef's nodes carry their device.
absl::StatusOr<std::map<std::string, GraphDef>> Partition(const FlowGraph& graph,
                                                          const PartitionOptions& options = {});

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_PARTITIONER_H_
