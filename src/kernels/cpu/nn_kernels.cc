#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterNnKernels(KernelRegistry& r) {}

}  // namespace tw
