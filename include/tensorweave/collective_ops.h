// Collective ops (TensorFlow's CollectiveReduce, CollectiveBcastSend, CollectiveBcastRecv)
// in the C++ graph API. Members are the tasks running an op of the same group_key (each
// op placed on its task, e.g. under g.device("/job:worker/task:1")); the n-th run of a
// (group_key, instance_key) on one task meets the n-th run on the others. They run in a
// server's tasks (a Session on a tw::Server's target); a group of one runs anywhere.
//
//   auto on = g.device("/job:worker/task:" + std::to_string(rank));
//   Output mean = tw::collective_all_reduce(grad, {size, /*group_key=*/1, /*instance_key=*/7}, "Add", "Div");
// Not included by tensorweave.h: include it where used.
#ifndef TENSORWEAVE_COLLECTIVE_OPS_H_
#define TENSORWEAVE_COLLECTIVE_OPS_H_

#include <cstdint>
#include <string>

#include "tensorweave/graph.h"
#include "tensorweave/tensor_shape.h"

namespace tw {

struct CollectiveKeys {
  int group_size = 1;
  int64_t group_key = 1;
  int64_t instance_key = 1;
  float timeout_seconds = 0;  // <= 0: the server's RPC timeout.
};

// The group's elementwise reduction (merge_op "Add", "Mul", "Max", "Min") of x, divided
// by group_size when final_op is "Div"; every member gets it. float32/64, int32/64.
Output collective_all_reduce(const Output& x, const CollectiveKeys& keys, const std::string& merge_op = "Add",
                             const std::string& final_op = "Id", const std::string& name = "CollectiveReduce");
// Sends x to the group's receivers; returns x.
Output collective_broadcast_send(const Output& x, const CollectiveKeys& keys,
                                 const std::string& name = "CollectiveBcastSend");
// The tensor of `shape` the group's sender sent.
Output collective_broadcast_recv(Graph& g, DType dtype, const TensorShape& shape, const CollectiveKeys& keys,
                                 const std::string& name = "CollectiveBcastRecv");

}  // namespace tw

#endif  // TENSORWEAVE_COLLECTIVE_OPS_H_
