// Helpers shared by the optimizers.
#ifndef TENSORWEAVE_SRC_TRAIN_TRAIN_UTIL_H_
#define TENSORWEAVE_SRC_TRAIN_TRAIN_UTIL_H_

#include <string>

#include "tensorweave/variables.h"

namespace tw::train {

// Ops created while this lives get the device `var` asked for (as TF's colocate_with for
// variables: slots and updates land with the variable, whatever device functions say).
struct Colocation {
  ScopeGuard colocation;
};
Colocation ColocateWith(Graph& g, const Variable& var);
// The same for a device string (e.g. where an anchor op was placed).
Colocation OnDevice(Graph& g, const std::string& device);

}  // namespace tw::train

#endif  // TENSORWEAVE_SRC_TRAIN_TRAIN_UTIL_H_
