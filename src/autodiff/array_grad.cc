#include "autodiff/grad_util.h"

namespace tw {

void RegisterArrayGradients(GradientRegistry& r) {}

}  // namespace tw
