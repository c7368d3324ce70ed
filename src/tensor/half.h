// Inline conversions between tw::half (the public storage type) and float, through
// Eigen::half: round to nearest even, NaN stays NaN, as TensorFlow's. Kernels for half
// load each element as float, compute in float and round the result once.
#ifndef TENSORWEAVE_SRC_TENSOR_HALF_H_
#define TENSORWEAVE_SRC_TENSOR_HALF_H_

#include <cstdint>

#include <Eigen/Core>

#include "tensorweave/dtype.h"

namespace tw {

inline float HalfToFloat(half h) {
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(h.bits));
}

inline half FloatToHalf(float f) {
  return half::FromBits(Eigen::numext::bit_cast<uint16_t>(Eigen::half(f)));
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_HALF_H_
