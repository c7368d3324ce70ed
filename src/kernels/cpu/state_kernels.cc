#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterStateKernels(KernelRegistry& r) {}

}  // namespace tw
