// The step replies a server holds for clients that have not read them yet (a client that
// never reads keeps its reply in the server's memory): each is counted from the moment
// the server finishes the call with it until the call is done, against
// ServerOptions::max_pending_reply_bytes (`tw server --max_pending_reply_bytes`). The
// tensors a RecvTensors stream serves count from the moment the step hands them over
// until gRPC has dropped the last slice of them (Hold).
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_RPC_REPLY_BUDGET_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_RPC_REPLY_BUDGET_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace tw {

class ReplyBudget {
 public:
  explicit ReplyBudget(int64_t max_bytes) : max_bytes_(max_bytes) {}
  // Reserves `bytes` for a reply (`reply` names it), or ResourceExhausted naming the flag.
  absl::Status Reserve(const std::string& reply, int64_t bytes) {
    const int64_t held = held_.fetch_add(bytes) + bytes;
    if (held <= max_bytes_) return absl::OkStatus();
    held_.fetch_sub(bytes);
    return absl::ResourceExhaustedError(absl::StrCat(
        reply, " of ", bytes, " bytes is refused: ", held - bytes, " bytes of replies already wait for clients ",
        "to read them, and this task holds at most ", max_bytes_, " (--max_pending_reply_bytes)"));
  }
  void Release(int64_t bytes) { held_.fetch_sub(bytes); }
  // Reserve, as a hold that gives the bytes back when its last copy goes.
  absl::StatusOr<std::shared_ptr<const void>> Hold(const std::string& reply, int64_t bytes) {
    if (absl::Status s = Reserve(reply, bytes); !s.ok()) return s;
    return std::shared_ptr<const void>(std::make_shared<Held>(this, bytes));
  }

 private:
  struct Held {
    Held(ReplyBudget* budget, int64_t bytes) : budget(budget), bytes(bytes) {}
    ~Held() { budget->Release(bytes); }
    ReplyBudget* budget;
    int64_t bytes;
  };
  const int64_t max_bytes_;
  std::atomic<int64_t> held_{0};
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_RPC_REPLY_BUDGET_H_
