// Caps on what one request may make a server hold, so that no client (careless or
// hostile) can exhaust a task's memory or threads. A request over a cap fails with
// ResourceExhausted naming the limit and the value; sizes are checked from the declared
// dtype and shape, before anything is allocated.
//
//   tw::ServerOptions options;
//   options.limits.max_tensor_bytes = 256 << 20;   // also: tw server --max_tensor_bytes=...
#ifndef TENSORWEAVE_RESOURCE_LIMITS_H_
#define TENSORWEAVE_RESOURCE_LIMITS_H_

#include <cstdint>

namespace tw {

struct ResourceLimits {
  // Any one tensor a server decodes from outside (a feed, a tensor received from another
  // task, a constant in a GraphDef) or a kernel makes at run time (Fill of a fed shape,
  // Tile, MatMul...: refused before it is allocated).
  int64_t max_tensor_bytes = int64_t{4} << 30;
  // A GraphDef given to CreateSession / ExtendSession / RegisterGraph.
  int64_t max_graph_nodes = 1 << 20;
  int64_t max_graph_bytes = int64_t{1} << 30;
  // Steps (RunStep calls) a server's master runs at once; one more is refused.
  int64_t max_concurrent_steps = 1024;
  // Graph partitions registered on a worker at once (RegisterGraph beyond it is refused).
  int64_t max_registered_graphs = 1 << 16;
  // A step on a worker that runs no partition and sees no call for this long is dropped
  // with whatever was sent into it and nobody received (a client that sent and left).
  int64_t idle_step_timeout_ms = 10 * 60 * 1000;
};

}  // namespace tw

#endif  // TENSORWEAVE_RESOURCE_LIMITS_H_
