#include "autodiff/grad_util.h"

namespace tw {

void RegisterNnGradients(GradientRegistry& r) {}

}  // namespace tw
