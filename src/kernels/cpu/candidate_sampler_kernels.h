// Kernels of LogUniformCandidateSampler and UniformCandidateSampler, registered from
// random_kernels.cc (cpu_kernels.h, included widely, stays unchanged).
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_CANDIDATE_SAMPLER_KERNELS_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_CANDIDATE_SAMPLER_KERNELS_H_

#include "kernels/cpu/cpu_kernels.h"

namespace tw {

void RegisterCandidateSamplerKernels(KernelRegistry& r);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_CANDIDATE_SAMPLER_KERNELS_H_
