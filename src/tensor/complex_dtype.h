// The complex dtype of a real one and back (float <-> complex64, double <-> complex128),
// for the complex kernels and gradients.
#ifndef TENSORWEAVE_SRC_TENSOR_COMPLEX_DTYPE_H_
#define TENSORWEAVE_SRC_TENSOR_COMPLEX_DTYPE_H_

#include "tensorweave/dtype.h"

namespace tw {

inline DType ComplexOf(DType real) { return real == DType::kDouble ? DType::kComplex128 : DType::kComplex64; }
inline DType RealOf(DType complex) { return complex == DType::kComplex128 ? DType::kDouble : DType::kFloat; }

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_COMPLEX_DTYPE_H_
