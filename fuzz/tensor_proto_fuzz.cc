// TensorProto decoding (feeds, constants, fetched results): any bytes either fail to
// decode or give a tensor that survives a round trip unchanged.
#include "fuzz/fuzz_util.h"
#include "tensor/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tw::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  const int64_t max_bytes = tw::fuzz::FuzzLimits().max_tensor_bytes;
  absl::StatusOr<tw::Tensor> tensor = tw::TensorFromProto(proto, max_bytes);
  if (!tensor.ok()) return 0;
  TW_FUZZ_CHECK(static_cast<int64_t>(tensor->TotalBytes()) <= max_bytes);
  absl::StatusOr<tw::Tensor> again = tw::TensorFromProto(tw::TensorToProto(*tensor), max_bytes);
  TW_FUZZ_CHECK(again.ok());
  // NaN payloads compare bytewise, so Equals is exact here.
  TW_FUZZ_CHECK(again->Equals(*tensor));
  (void)tensor->DebugString(16);
  return 0;
}
