// The in-process rendezvous: a table of sent tensors and waiting receivers.
#ifndef TENSORWEAVE_SRC_RUNTIME_LOCAL_RENDEZVOUS_H_
#define TENSORWEAVE_SRC_RUNTIME_LOCAL_RENDEZVOUS_H_

#include <deque>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "kernels/rendezvous.h"

namespace tw {

class LocalRendezvous : public Rendezvous {
 public:
  ~LocalRendezvous() override;
  absl::Status Send(const std::string& key, const Tensor& value) override;
  void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) override;
  void StartAbort(const absl::Status& status) override;
  // Takes a tensor already sent under `key`; NotFound if there is none (yet).
  absl::StatusOr<Tensor> TakeSent(const std::string& key) ABSL_LOCKS_EXCLUDED(mu_);
  // No tensor waits for its receiver and no receiver for its tensor.
  bool Empty() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Waiter {
    DoneCallback done;
    CancellationManager* cancellation;
    CancellationManager::Token token;
  };
  struct Item {
    bool has_value = false;
    Tensor value;
    std::deque<Waiter> waiters;
  };
  absl::Mutex mu_;
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Item> table_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_LOCAL_RENDEZVOUS_H_
