#include "ops/ops.h"

namespace tw {

void RegisterMathOps(OpRegistry& r) {}

}  // namespace tw
