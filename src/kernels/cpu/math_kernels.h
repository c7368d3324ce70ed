// The math kernel family is split over several files to keep each short and let them
// compile in parallel; RegisterMathKernels (math_kernels.cc) calls the parts.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_MATH_KERNELS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_MATH_KERNELS_H_

#include "kernels/kernel_registry.h"

namespace tw {

void RegisterMathCompareKernels(KernelRegistry& r);  // Equal..GreaterEqual, Logical*
void RegisterMathUnaryKernels(KernelRegistry& r);    // Neg..Reciprocal, *Grad, LogicalNot
void RegisterMathMiscKernels(KernelRegistry& r);     // Select, AddN
void RegisterCastKernels(KernelRegistry& r);         // Cast (cast_kernels.cc)
void RegisterMathUnaryFnKernels(KernelRegistry& r);  // Sin..IsNan (math_unary_fn_kernels.cc)
void RegisterCheckKernels(KernelRegistry& r);  // Assert, CheckNumerics (check_kernels.cc)
void RegisterComplexKernels(KernelRegistry& r);  // Complex, Real, Imag, Angle, ComplexAbs, Conj (complex_kernels.cc)
void RegisterFftKernels(KernelRegistry& r);      // FFT..IRFFT3D (fft_kernels.cc)
void RegisterMathBinaryFnKernels(KernelRegistry& r);  // Atan2..Polygamma, Invert (math_binary_fn_kernels.cc)

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_MATH_KERNELS_H_
