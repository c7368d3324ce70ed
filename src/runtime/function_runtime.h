// The runtime's FunctionLibraryRuntime (kernels/function_runtime.h): a function of the
// library becomes a FlowGraph (graph/function_body.h: _Arg per input, _Retval per output)
// placed on one device and run by its own Executor, built on first use and cached by
// name. Runs execute on the caller's thread (no inter-op pool), so a kernel blocking on a
// function never waits for a pool thread.
#ifndef TENSORWEAVE_SRC_RUNTIME_FUNCTION_RUNTIME_H_
#define TENSORWEAVE_SRC_RUNTIME_FUNCTION_RUNTIME_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "kernels/function_runtime.h"
#include "runtime/device.h"
#include "runtime/executor.h"

namespace tw {

class LocalFunctionRuntime : public FunctionLibraryRuntime {
 public:
  // `device` must outlive this runtime.
  LocalFunctionRuntime(Device* device, int64_t max_tensor_bytes);
  ~LocalFunctionRuntime() override;

  // Adds the functions of `library` not yet known (a session's Extend).
  absl::Status AddLibrary(const FunctionDefLibrary& library);

  absl::StatusOr<Handle> Instantiate(const std::string& name) override;
  const std::vector<DType>& InputTypes(Handle h) const override;
  const std::vector<DType>& OutputTypes(Handle h) const override;
  const std::string& Name(Handle h) const override;
  void Run(Handle h, std::vector<Tensor> args, std::vector<Tensor>* rets, CancellationManager* cancellation,
           std::function<void(absl::Status)> done) override;

 private:
  struct Instance {
    std::string name;
    std::vector<DType> input_types, output_types;
    std::unique_ptr<Executor> executor;
  };
  const Instance& Get(Handle h) const;

  Device* const device_;
  const int64_t max_tensor_bytes_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, FunctionDef> functions_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Handle> handles_ ABSL_GUARDED_BY(mu_);
  // Instances are never removed; a handle indexes this vector of stable pointers.
  std::vector<std::unique_ptr<Instance>> instances_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> next_step_id_{1};
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_FUNCTION_RUNTIME_H_
