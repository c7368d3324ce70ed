// Kernels of the stateless random ops (StatelessRandomUniform and family), registered from
// random_kernels.cc (cpu_kernels.h, included widely, stays unchanged).
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_STATELESS_RANDOM_KERNELS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_STATELESS_RANDOM_KERNELS_H_

#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterStatelessRandomKernels(KernelRegistry& r);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_STATELESS_RANDOM_KERNELS_H_
