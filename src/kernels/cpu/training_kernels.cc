#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterTrainingKernels(KernelRegistry& r) {}

}  // namespace tw
