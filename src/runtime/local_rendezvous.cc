#include "runtime/local_rendezvous.h"

#include <deque>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "tensorweave/status.h"

namespace tw {

class LocalRendezvous::Table : public std::enable_shared_from_this<Table> {
 public:
  absl::Status Send(const std::string& key, const Tensor& value);
  void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done);
  void StartAbort(const absl::Status& status);
  absl::StatusOr<Tensor> TakeSent(const std::string& key);
  bool Empty();

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

LocalRendezvous::LocalRendezvous() : table_(std::make_shared<Table>()) {}
LocalRendezvous::~LocalRendezvous() { table_->StartAbort(absl::CancelledError("rendezvous destroyed")); }
absl::Status LocalRendezvous::Send(const std::string& key, const Tensor& value) { return table_->Send(key, value); }
void LocalRendezvous::RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) {
  table_->RecvAsync(key, cancellation, std::move(done));
}
void LocalRendezvous::StartAbort(const absl::Status& status) { table_->StartAbort(status); }
absl::StatusOr<Tensor> LocalRendezvous::TakeSent(const std::string& key) { return table_->TakeSent(key); }
bool LocalRendezvous::Empty() { return table_->Empty(); }

absl::Status LocalRendezvous::Table::Send(const std::string& key, const Tensor& value) {
  Waiter waiter;
  {
    absl::MutexLock lock(&mu_);
    if (!aborted_.ok()) return aborted_;
    Item& item = table_[key];
    if (item.has_value) return absl::InternalError(absl::StrCat("tensor '", key, "' was sent twice"));
    if (item.waiters.empty()) {
      item.has_value = true;
      item.value = value;
      return absl::OkStatus();
    }
    waiter = std::move(item.waiters.front());
    item.waiters.pop_front();
    if (item.waiters.empty()) table_.erase(key);
  }
  // A receiver whose cancellation callback already ran has been answered; skip it.
  if (waiter.cancellation == nullptr || waiter.token == CancellationManager::kInvalidToken ||
      waiter.cancellation->DeregisterCallback(waiter.token)) {
    waiter.done(absl::OkStatus(), value);
  }
  return absl::OkStatus();
}

void LocalRendezvous::Table::RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) {
  Tensor value;
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    if (!aborted_.ok()) {
      status = aborted_;
    } else {
      Item& item = table_[key];
      if (item.has_value) {
        value = std::move(item.value);
        table_.erase(key);
      } else {
        Waiter waiter{std::move(done), cancellation, CancellationManager::kInvalidToken};
        if (cancellation != nullptr) {
          // The callback may run before RegisterCallback returns, so it only touches the
          // table, and it may run while the rendezvous is destroyed, so it holds the table.
          waiter.token = cancellation->RegisterCallback([weak = weak_from_this(), key] {
            if (auto table = weak.lock()) {
              table->StartAbort(absl::CancelledError(absl::StrCat("receive of '", key, "' was cancelled")));
            }
          });
          if (waiter.token == CancellationManager::kInvalidToken) {
            status = absl::CancelledError("step was cancelled before the receive");
            done = std::move(waiter.done);
          }
        }
        if (status.ok()) {
          item.waiters.push_back(std::move(waiter));
          return;
        }
      }
    }
  }
  done(status, value);
}

absl::StatusOr<Tensor> LocalRendezvous::Table::TakeSent(const std::string& key) {
  absl::MutexLock lock(&mu_);
  if (!aborted_.ok()) return aborted_;
  auto it = table_.find(key);
  if (it == table_.end() || !it->second.has_value) {
    return absl::NotFoundError(absl::StrCat("no tensor was sent under '", key, "'"));
  }
  Tensor value = std::move(it->second.value);
  table_.erase(it);
  return value;
}

bool LocalRendezvous::Table::Empty() {
  absl::MutexLock lock(&mu_);
  return table_.empty();
}

void LocalRendezvous::Table::StartAbort(const absl::Status& status) {
  std::vector<Waiter> waiters;
  {
    absl::MutexLock lock(&mu_);
    if (!aborted_.ok()) return;
    aborted_ = status.ok() ? absl::CancelledError("rendezvous aborted") : status;
    for (auto& [key, item] : table_)
      for (auto& w : item.waiters) waiters.push_back(std::move(w));
    table_.clear();
  }
  for (auto& w : waiters) {
    if (w.cancellation != nullptr && w.token != CancellationManager::kInvalidToken) {
      w.cancellation->DeregisterCallback(w.token);
    }
    w.done(status.ok() ? absl::CancelledError("rendezvous aborted") : status, Tensor());
  }
}

}  // namespace tw
