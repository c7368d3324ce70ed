// Assigns every node of a graph to one device: explicit device strings first, then
// colocation groups (a variable with every op that uses its handle, and "_class"
// attrs "loc:@other"), then the default device. With soft placement a request no
// device can meet falls back (same task's CPU, then the default device).
#ifndef TENSORWEAVE_SRC_RUNTIME_PLACER_H_
#define TENSORWEAVE_SRC_RUNTIME_PLACER_H_

#include <ostream>
#include <vector>

#include "graph/device_name.h"
#include "graph/graph.h"

namespace tw {

struct PlacerOptions {
  bool allow_soft_placement = false;
  // Prints "node (Op): /job:.../device:CPU:0" for every node to `log`.
  bool log_device_placement = false;
  std::ostream* log = nullptr;
};

// `devices` are fully specified; `default_device` fills unspecified fields of requests
// (usually the CPU of the task that runs the session). Errors are InvalidArgument naming
// the node and listing the available devices.
absl::Status PlaceGraph(FlowGraph& graph, const std::vector<DeviceName>& devices,
                        const DeviceName& default_device, const PlacerOptions& options);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_PLACER_H_
