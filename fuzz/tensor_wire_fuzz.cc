// The RecvTensors wire decoding (tensor_wire.h): a stream of up to 3 tensors. The input is
// a sequence of messages, each a 2-byte little-endian length and that many bytes; each
// message is handed to the reader in two pieces split where its first byte says (gRPC
// may split anywhere).
#include <vector>

#include "distributed/rpc/tensor_wire.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int64_t max_bytes = tw::fuzz::FuzzLimits().max_tensor_bytes;
  tw::TensorStreamReader reader(3, max_bytes, [max_bytes](int key_index, const tw::Tensor& tensor) {
    TW_FUZZ_CHECK(key_index >= 0 && key_index < 3);
    if (tensor.dtype() != tw::DType::kResource) TW_FUZZ_CHECK(static_cast<int64_t>(tensor.TotalBytes()) <= max_bytes);
  });
  const char* in = reinterpret_cast<const char*>(data);
  size_t pos = 0;
  while (pos + 2 <= size) {
    size_t length = static_cast<uint8_t>(in[pos]) | static_cast<size_t>(static_cast<uint8_t>(in[pos + 1])) << 8;
    pos += 2;
    length = std::min(length, size - pos);
    absl::string_view message(in + pos, length);
    pos += length;
    const size_t split = message.empty() ? 0 : static_cast<uint8_t>(message[0]) % (message.size() + 1);
    std::vector<absl::string_view> pieces = {message.substr(0, split), message.substr(split)};
    if (!reader.Add(pieces).ok()) return 0;
  }
  reader.Finish().IgnoreError();
  return 0;
}
