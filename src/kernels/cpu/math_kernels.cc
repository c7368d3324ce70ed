#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterMathKernels(KernelRegistry& r) {}

}  // namespace tw
