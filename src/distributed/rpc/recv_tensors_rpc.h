// RecvTensors over gRPC's callback API with raw ByteBuffers on both ends (tensor_wire.h):
// one stream carries every tensor a partition receives from one task in a step. The
// serving task streams each tensor from its own memory as soon as it is sent in the step
// (in that order), and the pulling task copies each arriving slice once into its
// destination. No thread waits on either side while a tensor is not ready.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_RECV_TENSORS_RPC_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_RECV_TENSORS_RPC_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "distributed/rpc/reply_budget.h"
#include "distributed/worker_interface.h"

namespace tw {

// The full gRPC method name, shared by the server and the client.
inline constexpr char kRecvTensorsMethod[] = "/tensorweave.WorkerService/RecvTensors";

// Serves one RecvTensors call from `worker` (deletes itself when the call is done). Each
// tensor it serves is held to `budget` (may be null) until gRPC has sent it: a tensor that
// does not fit fails the call with ResourceExhausted naming --max_pending_reply_bytes.
grpc::ServerWriteReactor<grpc::ByteBuffer>* NewRecvTensorsReactor(WorkerInterface* worker,
                                                                  const grpc::ByteBuffer& request, ReplyBudget* budget);

// Starts pulling the tensors of `req` from the task behind `stub`: `arrived` runs for
// each as it comes, then `done` once, on gRPC threads (`who` names the task in transport
// errors). A `cancellation` that fires cancels the call. A tensor of more than
// `max_tensor_bytes` is refused from its header (ResourceExhausted); a stream that breaks
// the wire format or ends before every key arrived is DataLoss.
void StartRecvTensorsCall(grpc::GenericStub* stub, const RecvTensorsRequest& req, absl::Duration timeout,
                          int64_t max_tensor_bytes, CancellationManager* cancellation, const std::string& who,
                          RecvTensorsArrived arrived, std::function<void(const absl::Status&)> done);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_RECV_TENSORS_RPC_H_
