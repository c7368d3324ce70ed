// LogUniformCandidateSampler and UniformCandidateSampler (tf.nn's candidate samplers);
// registered from random_ops.cc so that ops.h (included everywhere) stays unchanged.
#ifndef TENSORWEAVE_SRC_OPS_CANDIDATE_SAMPLING_OPS_H_
#define TENSORWEAVE_SRC_OPS_CANDIDATE_SAMPLING_OPS_H_

#include "ops/ops.h"

namespace tw {

void RegisterCandidateSamplingOps(OpRegistry& r);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_CANDIDATE_SAMPLING_OPS_H_
