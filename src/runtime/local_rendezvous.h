// The in-process rendezvous: a table of sent tensors and waiting receivers.
#ifndef TENSORWEAVE_SRC_RUNTIME_LOCAL_RENDEZVOUS_H_
#define TENSORWEAVE_SRC_RUNTIME_LOCAL_RENDEZVOUS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "kernels/rendezvous.h"

namespace tw {

class LocalRendezvous : public Rendezvous {
 public:
  LocalRendezvous();
  ~LocalRendezvous() override;
  absl::Status Send(const std::string& key, const Tensor& value) override;
  void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;
  // Takes a tensor already sent under `key`; NotFound if there is none (yet).
  absl::StatusOr<Tensor> TakeSent(const std::string& key);
  // No tensor waits for its receiver and no receiver for its tensor.
  bool Empty();

 private:
  // The table lives apart, shared with the cancellation callbacks of waiting receivers: a
  // callback that runs while the rendezvous is destroyed (on another thread) keeps it alive.
  class Table;
  std::shared_ptr<Table> table_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_LOCAL_RENDEZVOUS_H_
