#include "distributed/rpc/tensor_wire.h"

#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/tensor.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

using google::protobuf::io::CodedOutputStream;

// Protobuf tags of RecvTensorChunk's fields: meta and data length-delimited, key_index a varint.
constexpr uint8_t kMetaTag = (1 << 3) | 2;
constexpr uint8_t kDataTag = (2 << 3) | 2;
constexpr uint8_t kKeyIndexTag = (3 << 3) | 0;

// A field's tag followed by a varint (a length-delimited field's length, or a varint
// field's value), as protobuf encodes them.
std::string TagAndVarint(uint8_t tag, uint64_t value) {
  uint8_t bytes[1 + 10];  // A varint takes at most 10 bytes.
  bytes[0] = tag;
  uint8_t* end = CodedOutputStream::WriteVarint64ToArray(value, bytes + 1);
  return std::string(reinterpret_cast<char*>(bytes), end - bytes);
}

// Reads bytes in order across the pieces of one message (gRPC may split a message
// anywhere, even inside a varint).
class PieceCursor {
 public:
  explicit PieceCursor(const std::vector<absl::string_view>& pieces) : pieces_(pieces) {
    for (absl::string_view p : pieces) remaining_ += p.size();
  }
  size_t remaining() const { return remaining_; }

  bool ReadVarint(uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      char byte;
      if (!CopyTo(&byte, 1)) return false;
      *value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;  // Longer than any varint.
  }

  bool CopyTo(char* dst, size_t n) {
    if (n > remaining_) return false;
    remaining_ -= n;
    while (n > 0) {
      absl::string_view piece = pieces_[piece_].substr(offset_);
      const size_t take = std::min(n, piece.size());
      std::memcpy(dst, piece.data(), take);
      dst += take;
      n -= take;
      offset_ += take;
      if (offset_ == pieces_[piece_].size()) ++piece_, offset_ = 0;
    }
    return true;
  }

 private:
  const std::vector<absl::string_view>& pieces_;
  size_t piece_ = 0, offset_ = 0, remaining_ = 0;
};

// Resource handles, strings and variants are objects, not bytes: they travel whole in the
// header, as a TensorProto (strings as string_val), in the first message. Of variants only
// serialized bytes can (tensor/bytes_variant.h); decoding any other names the problem.
bool TravelsInHeader(DType dtype) {
  return dtype == DType::kResource || dtype == DType::kString || dtype == DType::kVariant;
}

// What a data slice keeps alive until gRPC drops it: the tensor's buffer and the
// writer's hold (a RecvTensors stream's share of the task's reply budget).
struct SliceRef {
  Tensor tensor;
  std::shared_ptr<const void> hold;
};
void ReleaseSliceRef(void* ref) { delete static_cast<SliceRef*>(ref); }

}  // namespace

TensorChunkWriter::TensorChunkWriter(Tensor tensor, int key_index, std::shared_ptr<const void> hold)
    : tensor_(std::move(tensor)), key_index_(key_index), hold_(std::move(hold)) {
  total_ = !tensor_.IsInitialized() || TravelsInHeader(tensor_.dtype()) ? 0 : tensor_.TotalBytes();
}

bool TensorChunkWriter::Next(grpc::ByteBuffer* out) {
  if (done()) return false;
  std::string head;
  if (!started_) {
    if (key_index_ >= 0) head = TagAndVarint(kKeyIndexTag, static_cast<uint64_t>(key_index_));
    TensorProto meta;  // Left empty (dtype DT_INVALID) for a dead tensor: a loop's last iteration.
    if (!tensor_.IsInitialized()) {
    } else if (TravelsInHeader(tensor_.dtype())) {
      meta = TensorToProto(tensor_);
    } else {
      meta.set_dtype(DTypeToProto(tensor_.dtype()));
      *meta.mutable_tensor_shape() = ShapeToProto(tensor_.shape());
    }
    head += TagAndVarint(kMetaTag, meta.ByteSizeLong()) + meta.SerializeAsString();
    started_ = true;
  }
  const size_t n = std::min(kTensorChunkBytes, total_ - offset_);
  grpc::Slice slices[2];
  size_t count = 0;
  if (n > 0) head += TagAndVarint(kDataTag, n);
  slices[count++] = grpc::Slice(head);
  if (n > 0) {
    char* data = static_cast<char*>(tensor_.raw_data()) + offset_;
    slices[count++] = grpc::Slice(data, n, &ReleaseSliceRef, new SliceRef{tensor_, hold_});
  }
  offset_ += n;
  *out = grpc::ByteBuffer(slices, count);
  return true;
}

absl::Status TensorChunkReader::Add(const grpc::ByteBuffer& message) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return absl::DataLossError("unreadable tensor stream message");
  std::vector<absl::string_view> pieces;
  pieces.reserve(slices.size());
  for (const grpc::Slice& s : slices) pieces.emplace_back(reinterpret_cast<const char*>(s.begin()), s.size());
  return Add(pieces);
}

absl::Status TensorChunkReader::Add(const std::vector<absl::string_view>& message_pieces) {
  PieceCursor in(message_pieces);
  while (in.remaining() > 0) {
    uint64_t tag, length;
    if (!in.ReadVarint(&tag)) return absl::DataLossError("truncated field in a tensor stream message");
    if (tag == kKeyIndexTag) {
      uint64_t index;
      if (!in.ReadVarint(&index)) return absl::DataLossError("truncated key index in a tensor stream message");
      if (has_meta_ || key_index_ >= 0) {
        return absl::DataLossError("tensor stream names a key index other than before its header");
      }
      if (index > INT32_MAX) return absl::DataLossError(absl::StrCat("tensor stream key index ", index, " is too large"));
      key_index_ = static_cast<int>(index);
      continue;
    }
    if (!in.ReadVarint(&length) || length > in.remaining()) {
      return absl::DataLossError("truncated field in a tensor stream message");
    }
    if (tag == kMetaTag) {
      if (has_meta_) return absl::DataLossError("tensor stream carries a second header");
      std::string meta(length, '\0');
      in.CopyTo(meta.data(), length);
      TW_RETURN_IF_ERROR(StartTensor(meta));
    } else if (tag == kDataTag) {
      if (!has_meta_) return absl::DataLossError("tensor stream does not start with a header");
      if (length > total_ - filled_) {
        return absl::DataLossError(absl::StrCat("tensor stream sent more than the ", total_, " bytes of ",
                                                DTypeName(tensor_.dtype()), " ", tensor_.shape().DebugString()));
      }
      in.CopyTo(static_cast<char*>(tensor_.raw_data()) + filled_, length);
      filled_ += length;
    } else {
      return absl::DataLossError(absl::StrCat("unknown field (tag ", tag, ") in a tensor stream message"));
    }
  }
  return absl::OkStatus();
}

absl::Status TensorChunkReader::StartTensor(const std::string& meta_bytes) {
  TensorProto meta;
  if (!meta.ParseFromString(meta_bytes)) return absl::DataLossError("tensor stream header does not parse");
  if (meta.dtype() == 0 && !meta.has_tensor_shape()) {  // A dead tensor: no value follows.
    tensor_ = Tensor();
    total_ = 0;
    has_meta_ = true;
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(DType dtype, DTypeFromProto(meta.dtype()));
  if (TravelsInHeader(dtype)) {
    TW_ASSIGN_OR_RETURN(tensor_, TensorFromProto(meta, max_bytes_));
    total_ = 0;
  } else {
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShapeFromProto(meta.tensor_shape()));
    TW_RETURN_IF_ERROR(CheckTensorBytes(dtype, shape, max_bytes_, "received tensor"));
    TW_ASSIGN_OR_RETURN(tensor_, Tensor::Allocate(dtype, shape));
    total_ = tensor_.TotalBytes();
  }
  has_meta_ = true;
  return absl::OkStatus();
}

absl::StatusOr<Tensor> TensorChunkReader::Finish() {
  if (!has_meta_) return absl::DataLossError("tensor stream ended before its header");
  if (filled_ != total_) {
    return absl::DataLossError(absl::StrCat("tensor stream ended after ", filled_, " of ", total_, " bytes"));
  }
  if (tensor_.dtype() == DType::kBool) {  // Any nonzero byte is true; never a bad bool.
    for (bool& b : tensor_.flat<bool>()) b = reinterpret_cast<const unsigned char&>(b) != 0;
  }
  return tensor_;
}

absl::Status TensorStreamReader::Add(const grpc::ByteBuffer& message) {
  if (!reader_.has_value()) reader_.emplace(max_bytes_);
  TW_RETURN_IF_ERROR(reader_->Add(message));
  return TensorDone();
}

absl::Status TensorStreamReader::Add(const std::vector<absl::string_view>& message_pieces) {
  if (!reader_.has_value()) reader_.emplace(max_bytes_);
  TW_RETURN_IF_ERROR(reader_->Add(message_pieces));
  return TensorDone();
}

// Hands the tensor being read over once it is complete.
absl::Status TensorStreamReader::TensorDone() {
  if (!reader_->complete()) return absl::OkStatus();
  const int i = reader_->key_index();
  if (i < 0 || static_cast<size_t>(i) >= seen_.size()) {
    return absl::DataLossError(absl::StrCat("tensor stream names key index ", i, ", not one of the ", seen_.size(),
                                            " asked for"));
  }
  if (seen_[i]) return absl::DataLossError(absl::StrCat("tensor stream sends key index ", i, " twice"));
  TW_ASSIGN_OR_RETURN(Tensor t, reader_->Finish());
  reader_.reset();
  seen_[i] = true;
  ++arrived_count_;
  arrived_(i, t);
  return absl::OkStatus();
}

absl::Status TensorStreamReader::Finish() const {
  if (reader_.has_value() || arrived_count_ < seen_.size()) {
    return absl::DataLossError(absl::StrCat("tensor stream ended after ", arrived_count_, " of ", seen_.size(),
                                            " tensors", reader_.has_value() ? " and part of another" : ""));
  }
  return absl::OkStatus();
}

}  // namespace tw
