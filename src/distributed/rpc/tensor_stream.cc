#include "distributed/rpc/tensor_stream.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/status.h"

namespace tw {

absl::Status WriteTensorChunks(const Tensor& tensor, grpc::internal::WriterInterface<RecvTensorChunk>* writer) {
  RecvTensorChunk chunk;
  if (tensor.dtype() == DType::kResource) {
    *chunk.mutable_meta() = TensorToProto(tensor);
    return writer->Write(chunk) ? absl::OkStatus() : absl::InternalError("tensor stream broken");
  }
  chunk.mutable_meta()->set_dtype(DTypeToProto(tensor.dtype()));
  *chunk.mutable_meta()->mutable_tensor_shape() = ShapeToProto(tensor.shape());
  const char* bytes = static_cast<const char*>(tensor.raw_data());
  const size_t total = tensor.TotalBytes();
  size_t offset = 0;
  do {  // The first message carries the meta and the first bytes.
    const size_t n = std::min(kTensorChunkBytes, total - offset);
    chunk.set_data(bytes + offset, n);
    offset += n;
    if (!writer->Write(chunk)) return absl::InternalError("tensor stream broken");
    chunk.clear_meta();
  } while (offset < total);
  return absl::OkStatus();
}

absl::Status ReadTensorChunks(grpc::internal::ReaderInterface<RecvTensorChunk>* reader, Tensor* tensor,
                              bool* stream_ended) {
  *stream_ended = false;
  RecvTensorChunk chunk;
  if (!reader->Read(&chunk)) {
    *stream_ended = true;
    return absl::DataLossError("tensor stream ended before its header");
  }
  if (!chunk.has_meta()) return absl::DataLossError("tensor stream does not start with a header");
  TW_ASSIGN_OR_RETURN(DType dtype, DTypeFromProto(chunk.meta().dtype()));
  if (dtype == DType::kResource) {
    TW_ASSIGN_OR_RETURN(*tensor, TensorFromProto(chunk.meta()));
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShapeFromProto(chunk.meta().tensor_shape()));
  TW_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  char* out = static_cast<char*>(t.raw_data());
  const size_t total = t.TotalBytes();
  size_t filled = 0;
  do {
    const std::string& data = chunk.data();
    if (data.size() > total - filled) {
      return absl::DataLossError(absl::StrCat("tensor stream sent more than the ", total, " bytes of ",
                                              DTypeName(dtype), " ", shape.DebugString()));
    }
    if (!data.empty()) std::memcpy(out + filled, data.data(), data.size());
    filled += data.size();
  } while (filled < total && (*stream_ended = !reader->Read(&chunk), !*stream_ended));
  if (filled != total) {
    return absl::DataLossError(absl::StrCat("tensor stream ended after ", filled, " of ", total, " bytes"));
  }
  if (dtype == DType::kBool) {
    for (bool& b : t.flat<bool>()) b = reinterpret_cast<const unsigned char&>(b) != 0;
  }
  *tensor = std::move(t);
  return absl::OkStatus();
}

}  // namespace tw
