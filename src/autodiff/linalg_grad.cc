#include "autodiff/grad_util.h"

namespace tw {

void RegisterLinalgGradients(GradientRegistry& r) {}

}  // namespace tw
