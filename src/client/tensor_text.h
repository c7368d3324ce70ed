// Tensors written as text, for command lines: "3", "1.5", "true", "[1,2,3]",
// "[[1,2],[3,4]]" (nested lists must be rectangular).
#ifndef TENSORWEAVE_SRC_CLIENT_TENSOR_TEXT_H_
#define TENSORWEAVE_SRC_CLIENT_TENSOR_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "tensorweave/tensor.h"

namespace tw {

// Parses `text` into a tensor of `dtype`; InvalidArgument naming the problem (a ragged
// list, a value that is not a number, a fraction for an integer dtype, ...).
absl::StatusOr<Tensor> ParseTensorText(const std::string& text, DType dtype);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CLIENT_TENSOR_TEXT_H_
