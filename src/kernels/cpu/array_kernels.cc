#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterArrayKernels(KernelRegistry& r) {}

}  // namespace tw
