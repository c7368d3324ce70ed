// A tensor on the wire as a stream of RecvTensorChunk messages (worker.proto) built and
// read as raw bytes, so the tensor's memory is never copied on the sending side and
// copied exactly once (into the destination) on the receiving side:
//   first message: field 1 `meta` (dtype and shape) + field 2 `data` (the first bytes);
//   then one message per ~1 MiB of field 2 `data`.
// In a RecvTensors stream (several tensors, one after the other) each tensor's first
// message starts with field 3 `key_index`, the tensor's index in the request.
// The data of each message is a grpc::Slice that references the tensor's buffer and
// keeps the tensor alive until gRPC has sent it. Resource handles and strings are not
// plain bytes: they travel whole in the header (a TensorProto) with no data messages. A
// dead tensor (uninitialized: a while loop's last iteration) is an empty header alone.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_TENSOR_WIRE_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_TENSOR_WIRE_H_

#include <grpcpp/support/byte_buffer.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/tensor.h"

namespace tw {

// 1 MiB messages move fastest through gRPC here (256 KiB and 4 MiB are slower).
inline constexpr size_t kTensorChunkBytes = 1 << 20;

class TensorChunkWriter {
 public:
  // key_index >= 0: the first message names it (RecvTensors). `hold` is kept alive with
  // the tensor until gRPC has dropped every slice of it.
  explicit TensorChunkWriter(Tensor tensor, int key_index = -1, std::shared_ptr<const void> hold = nullptr);
  // The next message into *out; false once every message was produced.
  bool Next(grpc::ByteBuffer* out);
  // Whether the message Next() just produced is the last one.
  bool done() const { return started_ && offset_ == total_; }

 private:
  Tensor tensor_;
  int key_index_;
  std::shared_ptr<const void> hold_;
  size_t total_ = 0, offset_ = 0;
  bool started_ = false;
};

class TensorChunkReader {
 public:
  // A header declaring more than `max_bytes` is ResourceExhausted, before allocating.
  explicit TensorChunkReader(int64_t max_bytes = ResourceLimits{}.max_tensor_bytes) : max_bytes_(max_bytes) {}
  // Consumes the next message. DataLoss for anything but the well-formed next message
  // of one tensor: data before the header, a second header, unknown fields, more bytes
  // than the header's shape holds. The header is validated (dtype, shape, size limits)
  // before the destination is allocated, once.
  absl::Status Add(const grpc::ByteBuffer& message);
  absl::Status Add(const std::vector<absl::string_view>& message_pieces);
  // The tensor once all its bytes arrived; DataLoss naming how much is missing otherwise.
  absl::StatusOr<Tensor> Finish();
  // Whether the header and every byte it declares arrived.
  bool complete() const { return has_meta_ && filled_ == total_; }
  // The key_index of the first message; -1 if it named none.
  int key_index() const { return key_index_; }

 private:
  absl::Status StartTensor(const std::string& meta_bytes);
  const int64_t max_bytes_;
  bool has_meta_ = false;
  int key_index_ = -1;
  Tensor tensor_;
  size_t total_ = 0, filled_ = 0;
};

// Reads a RecvTensors stream of `keys` tensors: one TensorChunkReader per tensor in turn,
// each tensor handed over (with its key index) as soon as its last byte arrived.
class TensorStreamReader {
 public:
  using Arrived = std::function<void(int key_index, const Tensor&)>;
  TensorStreamReader(int keys, int64_t max_bytes, Arrived arrived)
      : max_bytes_(max_bytes), seen_(keys, false), arrived_(std::move(arrived)) {}
  // Consumes the next message. DataLoss as TensorChunkReader::Add, and for a tensor whose
  // first message names no key index, one out of range, or one already sent.
  absl::Status Add(const grpc::ByteBuffer& message);
  absl::Status Add(const std::vector<absl::string_view>& message_pieces);
  // At the end of the stream: DataLoss unless every key's tensor arrived whole.
  absl::Status Finish() const;

 private:
  absl::Status TensorDone();
  const int64_t max_bytes_;
  std::vector<bool> seen_;  // Per key: arrived.
  size_t arrived_count_ = 0;
  Arrived arrived_;
  std::optional<TensorChunkReader> reader_;  // The tensor being read, if any.
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_TENSOR_WIRE_H_
