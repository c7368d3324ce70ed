// A DT_VARIANT scalar whose object is serialized bytes (SerializeIterator's output: an
// iterator's saved state). Other variants are live runtime objects (a dataset) that stay
// where they are made; this one can be written to a checkpoint and sent between tasks:
// TensorToProto writes its bytes as the proto's string_val, with dtype DT_VARIANT.
#ifndef TENSORWEAVE_SRC_TENSOR_BYTES_VARIANT_H_
#define TENSORWEAVE_SRC_TENSOR_BYTES_VARIANT_H_

#include <string>

#include "absl/status/statusor.h"
#include "tensorweave/tensor.h"

namespace tw {

inline constexpr char kBytesVariantType[] = "tensorweave.SerializedBytes";

Tensor BytesVariant(std::string bytes);
// The bytes of such a variant, or null when `t` is not one.
const std::string* BytesOfVariant(const Tensor& t);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_BYTES_VARIANT_H_
