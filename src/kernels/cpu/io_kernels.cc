#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterIoKernels(KernelRegistry& r) {}

}  // namespace tw
