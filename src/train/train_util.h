// Helpers shared by the optimizers.
#ifndef TENSORWEAVE_SRC_TRAIN_TRAIN_UTIL_H_
#define TENSORWEAVE_SRC_TRAIN_TRAIN_UTIL_H_

#include "tensorweave/variables.h"

namespace tw::train {

// Ops created while this lives get the device `var` asked for (as TF's colocate_with for
// variables: slots and updates land with the variable, whatever device functions say).
struct Colocation {
  ScopeGuard colocation;
};
Colocation ColocateWith(Graph& g, const Variable& var);

}  // namespace tw::train

#endif  // TENSORWEAVE_SRC_TRAIN_TRAIN_UTIL_H_
