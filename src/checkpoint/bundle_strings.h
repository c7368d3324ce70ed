// String tensors in a V2 tensor bundle's data file, in TensorFlow's layout
// (tensor_bundle.cc's WriteStringTensor / ReadStringTensor):
//   [varint64 length of each element][4-byte masked crc32c of the lengths][the bytes]
// The entry's checksum covers each length as a little-endian uint32 (uint64 above
// 4 GiB), not as its varint, then the 4 checksum bytes, then the string bytes.
#ifndef TENSORWEAVE_SRC_CHECKPOINT_BUNDLE_STRINGS_H_
#define TENSORWEAVE_SRC_CHECKPOINT_BUNDLE_STRINGS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tensorweave/tensor.h"

namespace tw::checkpoint {

// The data-file bytes of the string tensor `t`; *crc gets the unmasked entry checksum.
std::string EncodeBundleStrings(const Tensor& t, uint32_t* crc);
// Fills the string tensor `t` (already of the entry's shape) from `data`, checking the
// lengths' checksum and the entry's `masked_crc`. DataLoss naming `what` when they fail
// or the bytes do not hold exactly t's elements.
absl::Status DecodeBundleStrings(absl::string_view data, uint32_t masked_crc, const std::string& what,
                                 Tensor* t);

}  // namespace tw::checkpoint

#endif  // TENSORWEAVE_SRC_CHECKPOINT_BUNDLE_STRINGS_H_
