#include "kernels/function_runtime.h"

#include "absl/synchronization/notification.h"

namespace tw {

absl::Status FunctionLibraryRuntime::RunSync(Handle h, std::vector<Tensor> args, std::vector<Tensor>* rets,
                                             CancellationManager* cancellation) {
  absl::Notification finished;
  absl::Status status;
  Run(h, std::move(args), rets, cancellation, [&](absl::Status s) {
    status = std::move(s);
    finished.Notify();
  });
  finished.WaitForNotification();
  return status;
}

}  // namespace tw
