// The container of resources that live for one step only (TF's step container: a
// TensorArray). Kernels create them there; the session, or the worker for its partition,
// clears it from the device's ResourceMgr when the step ends.
#ifndef TENSORWEAVE_SRC_KERNELS_STEP_CONTAINER_H_
#define TENSORWEAVE_SRC_KERNELS_STEP_CONTAINER_H_

#include <cstdint>
#include <string>

namespace tw {

inline std::string StepContainer(int64_t step_id) { return "_step_" + std::to_string(step_id); }

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_STEP_CONTAINER_H_
