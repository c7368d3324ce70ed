// A tensor's values as TensorFlow's Tensor::SummarizeValue prints them.
// print_v2 false (Assert, Print): at most `max_entries` elements (all when negative), nested
// in brackets per dimension, "..." where cut short.
// print_v2 true (StringFormat, so tf.print): numpy-like, "[[1 2 3]\n [4 5 6]]", strings quoted,
// the first and last `max_entries` of each dimension with "..." between when it is longer.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_SUMMARIZE_VALUE_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_SUMMARIZE_VALUE_H_

#include <cstdint>
#include <string>

#include "tensorweave/tensor.h"

namespace tw {

std::string SummarizeValue(const Tensor& t, int64_t max_entries, bool print_v2 = false);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_SUMMARIZE_VALUE_H_
