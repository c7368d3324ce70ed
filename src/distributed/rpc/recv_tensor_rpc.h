// RecvTensor over gRPC's callback API with raw ByteBuffers on both ends (tensor_wire.h):
// the serving task streams the tensor from its own memory as soon as it is sent in the
// step, and the pulling task copies each arriving slice once into the destination. No
// thread waits on either side while the tensor is not ready.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_RECV_TENSOR_RPC_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_RECV_TENSOR_RPC_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <string>

#include "absl/time/time.h"
#include "distributed/worker_interface.h"

namespace tw {

// The full gRPC method name, shared by the server and the client.
inline constexpr char kRecvTensorMethod[] = "/tw.WorkerService/RecvTensor";

// Serves one RecvTensor call from `worker` (deletes itself when the call is done).
grpc::ServerWriteReactor<grpc::ByteBuffer>* NewRecvTensorReactor(WorkerInterface* worker,
                                                                 const grpc::ByteBuffer& request);

// Starts pulling a tensor from the task behind `stub`; `done` runs once, on a gRPC
// thread, with the tensor or an error (`who` names the task in transport errors). A
// `cancellation` that fires cancels the call. A tensor of more than `max_tensor_bytes`
// is refused from its header (ResourceExhausted).
void StartRecvTensorCall(grpc::GenericStub* stub, const RecvTensorRequest& req, absl::Duration timeout,
                         int64_t max_tensor_bytes, CancellationManager* cancellation, const std::string& who, RecvTensorDone done);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_RECV_TENSOR_RPC_H_
