// Conversion between Tensor and TensorProto (and shapes and TensorShapeProto).
#ifndef TENSORWEAVE_SRC_TENSOR_TENSOR_PROTO_H_
#define TENSORWEAVE_SRC_TENSOR_TENSOR_PROTO_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorweave/proto/tensor.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/resource_limits.h"
#include "tensorweave/tensor.h"

namespace tw {

// Writes values as tensor_content (raw bytes), except bool, string (string_val, as
// TensorFlow) and resource handles. Strings are also read from TensorFlow's
// tensor_content encoding (varint lengths, then the bytes).
TensorProto TensorToProto(const Tensor& tensor);
// Validates dtype, shape and that the payload holds exactly the shape's elements.
// Typed values (e.g. float_val) may stop short: the last one repeats to fill the shape,
// as in TensorFlow (so one value fills it all); none at all means zeros. A tensor of
// more than `max_bytes` is ResourceExhausted before anything is allocated (a few bytes
// of proto can declare terabytes).
absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto,
                                       int64_t max_bytes = ResourceLimits{}.max_tensor_bytes);
// The check above on its own, for a proto that is not decoded yet (a GraphDef constant).
absl::Status CheckTensorProtoBytes(const TensorProto& proto, int64_t max_bytes);

// ResourceExhausted when a `dtype` tensor of `shape` takes more than `max_bytes`:
// "<what>: float32 [..] tensor of N bytes is over the max_tensor_bytes limit of M".
absl::Status CheckTensorBytes(DType dtype, const TensorShape& shape, int64_t max_bytes,
                              absl::string_view what = "tensor");

TensorShapeProto ShapeToProto(const PartialShape& shape);
// Accepts unknown dims (-1) and unknown rank; rejects other negative sizes.
absl::StatusOr<PartialShape> PartialShapeFromProto(const TensorShapeProto& proto);
// Requires a fully known, valid shape.
absl::StatusOr<TensorShape> TensorShapeFromProto(const TensorShapeProto& proto);

absl::StatusOr<DType> DTypeFromProto(int value);
inline DataType DTypeToProto(DType dtype) { return static_cast<DataType>(dtype); }

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_TENSOR_PROTO_H_
