// A step's StepStats as Chrome trace JSON (chrome://tracing, Perfetto), laid out as
// TensorFlow's timeline.Timeline(step_stats).generate_chrome_trace_format does: process 0
// "Allocators", then per device a "<device> Compute" and a "<device> Tensors" process; one
// complete event ('X', cat "Op", named by the op, args name/op/input0..) per node, on lanes
// so overlapping nodes of a device never share a tid; with show_dataflow, flow events
// ('s'/'t', cat "DataFlow") from a tensor's producer to each consumer on another lane or
// device, and from each _Send to the _Recv that took its tensor on another device or task.
// The one implementation: Python's tensorweave.python.client.timeline and `tw run --trace`.
#ifndef TENSORWEAVE_SRC_RUNTIME_CHROME_TRACE_H_
#define TENSORWEAVE_SRC_RUNTIME_CHROME_TRACE_H_

#include <string>

#include "tensorweave/proto/step_stats.pb.h"
#include "core/proto_namespace.h"

namespace tw {

// show_memory adds each output tensor's lifetime as an object ('N'/'D', cat "Tensor", on
// the device's Tensors process, args with its bytes).
std::string ChromeTraceJson(const StepStats& stats, bool show_dataflow = true, bool show_memory = false);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_CHROME_TRACE_H_
