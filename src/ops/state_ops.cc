#include "ops/ops.h"

namespace tw {

void RegisterStateOps(OpRegistry& r) {}

}  // namespace tw
