// The hook through which PyFunc, PyFuncStateless and EagerPyFunc reach the functions of the
// Python process that built their graph. The Python module (python/src/py_func.cc) installs
// it at import; a process without Python (a `tw server` task) has none, so those kernels
// fail the step saying where the function lives instead of running anything.
#ifndef TENSORWEAVE_SRC_KERNELS_SCRIPT_CALLBACK_H_
#define TENSORWEAVE_SRC_KERNELS_SCRIPT_CALLBACK_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tensorweave/tensor.h"

namespace tw {

struct ScriptCall {
  std::string token;          // The function's key in the Python registry.
  bool eager = false;         // EagerPyFunc: outputs are converted (cast) to out_types.
  std::vector<Tensor> inputs;  // Moved in: the callee may share their buffers.
  std::vector<DType> out_types;
  std::vector<Tensor> outputs;  // Filled by the callback (count and dtypes checked by the kernel).
};

// Runs `call` in the host language; the error becomes the step's.
using ScriptCallback = std::function<absl::Status(ScriptCall& call)>;

// Installs the process-wide callback (replacing any earlier one; empty uninstalls).
void SetScriptCallback(ScriptCallback callback);
// The installed callback, or an empty function.
ScriptCallback GetScriptCallback();

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_SCRIPT_CALLBACK_H_
