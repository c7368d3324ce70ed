#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterRandomKernels(KernelRegistry& r) {}

}  // namespace tw
