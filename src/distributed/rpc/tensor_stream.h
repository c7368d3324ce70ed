// Tensors as a stream of RecvTensorChunk messages (meta first, then ~1 MiB of raw bytes per
// message), so large tensors never sit in one giant protobuf.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_TENSOR_STREAM_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_TENSOR_STREAM_H_

#include <grpcpp/grpcpp.h>
#include <grpcpp/support/sync_stream.h>

#include "absl/status/status.h"
#include "tensorweave/proto/worker.pb.h"
#include "tensorweave/tensor.h"

namespace tw {

inline constexpr size_t kTensorChunkBytes = 1 << 20;

// Writes `tensor`; InternalError if the stream breaks (the peer went away).
absl::Status WriteTensorChunks(const Tensor& tensor, grpc::internal::WriterInterface<RecvTensorChunk>* writer);

// Reads one tensor, validating the meta before allocating and that the bytes fill it
// exactly (DataLoss otherwise). *stream_ended tells whether the reader ran dry (then the
// call's own status, from Finish(), says why) or stopped on bad data with the call open.
absl::Status ReadTensorChunks(grpc::internal::ReaderInterface<RecvTensorChunk>* reader, Tensor* tensor,
                              bool* stream_ended);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_TENSOR_STREAM_H_
