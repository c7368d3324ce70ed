// A tensor's values as TensorFlow's Tensor::SummarizeValue prints them in the messages of
// Assert (and Print): at most `max_entries` elements (all when negative), nested in brackets
// per dimension, "..." where cut short.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_SUMMARIZE_VALUE_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_SUMMARIZE_VALUE_H_

#include <cstdint>
#include <string>

#include "tensorweave/tensor.h"

namespace tw {

std::string SummarizeValue(const Tensor& t, int64_t max_entries);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_SUMMARIZE_VALUE_H_
