// Process-wide counts of the step payload bytes this process's tasks put on and took off
// the wire: RecvTensors streams (served and pulled) and RunGraph requests and replies (as
// caller and as callee). Calls into the master's own task never touch the wire and are not
// counted. They are statistics read between steps (a caller takes the difference around
// one step), so relaxed atomics suffice.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_WIRE_BYTES_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_WIRE_BYTES_H_

#include <cstdint>

namespace tw {

struct WireByteCounts {
  int64_t tensor_bytes_sent = 0;      // RecvTensors messages this process served.
  int64_t tensor_bytes_received = 0;  // RecvTensors messages this process pulled.
  int64_t run_graph_bytes_sent = 0;   // RunGraph requests it made and replies it gave.
  int64_t run_graph_bytes_received = 0;  // RunGraph replies it got and requests it served.
};

void CountTensorBytesSent(int64_t bytes);
void CountTensorBytesReceived(int64_t bytes);
void CountRunGraphBytesSent(int64_t bytes);
void CountRunGraphBytesReceived(int64_t bytes);

WireByteCounts ReadWireByteCounts();

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_WIRE_BYTES_H_
