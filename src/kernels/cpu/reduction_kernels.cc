#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterReductionKernels(KernelRegistry& r) {}

}  // namespace tw
