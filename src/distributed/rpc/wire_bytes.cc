#include "distributed/rpc/wire_bytes.h"

#include <atomic>

namespace tw {
namespace {

std::atomic<int64_t> tensor_sent{0}, tensor_received{0}, run_graph_sent{0}, run_graph_received{0};

}  // namespace

void CountTensorBytesSent(int64_t bytes) { tensor_sent.fetch_add(bytes, std::memory_order_relaxed); }
void CountTensorBytesReceived(int64_t bytes) { tensor_received.fetch_add(bytes, std::memory_order_relaxed); }
void CountRunGraphBytesSent(int64_t bytes) { run_graph_sent.fetch_add(bytes, std::memory_order_relaxed); }
void CountRunGraphBytesReceived(int64_t bytes) { run_graph_received.fetch_add(bytes, std::memory_order_relaxed); }

WireByteCounts ReadWireByteCounts() {
  WireByteCounts counts;
  counts.tensor_bytes_sent = tensor_sent.load(std::memory_order_relaxed);
  counts.tensor_bytes_received = tensor_received.load(std::memory_order_relaxed);
  counts.run_graph_bytes_sent = run_graph_sent.load(std::memory_order_relaxed);
  counts.run_graph_bytes_received = run_graph_received.load(std::memory_order_relaxed);
  return counts;
}

}  // namespace tw
