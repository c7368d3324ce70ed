#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterLinalgKernels(KernelRegistry& r) {}

}  // namespace tw
