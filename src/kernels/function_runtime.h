// How a kernel calls a function of the graph's library (TF's FunctionLibraryRuntime):
// instantiate it once by name, then run it on argument tensors as often as needed, from
// any thread. The runtime layer implements it (runtime/function_runtime.h) and hands it
// to kernels through OpKernelConstruction; kernels sit below the runtime and see only
// this interface.
#ifndef TENSORWEAVE_SRC_KERNELS_FUNCTION_RUNTIME_H_
#define TENSORWEAVE_SRC_KERNELS_FUNCTION_RUNTIME_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/cancellation.h"
#include "tensorweave/tensor.h"

namespace tw {

class FunctionLibraryRuntime {
 public:
  using Handle = int;
  virtual ~FunctionLibraryRuntime() = default;

  // The function `name` made ready to run (built once, then cached); InvalidArgument
  // naming it when the library has no such function or its body is malformed.
  virtual absl::StatusOr<Handle> Instantiate(const std::string& name) = 0;
  virtual const std::vector<DType>& InputTypes(Handle h) const = 0;
  virtual const std::vector<DType>& OutputTypes(Handle h) const = 0;
  virtual const std::string& Name(Handle h) const = 0;

  // Runs the function on `args` (checked against its signature: InvalidArgument naming
  // the function on a wrong count or dtype) and fills `rets`. `done` is called once, on
  // some thread; `rets` and `cancellation` (may be null) must live until then.
  virtual void Run(Handle h, std::vector<Tensor> args, std::vector<Tensor>* rets,
                   CancellationManager* cancellation, std::function<void(absl::Status)> done) = 0;
  // Blocks until the run is over.
  absl::Status RunSync(Handle h, std::vector<Tensor> args, std::vector<Tensor>* rets,
                       CancellationManager* cancellation = nullptr);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_FUNCTION_RUNTIME_H_
