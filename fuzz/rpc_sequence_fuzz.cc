// Sequences of master and worker calls, as a client (buggy or hostile) may send them in
// any order: create / extend / run / cancel / close sessions, register / run / deregister
// partitions. Input: records of [op byte][index byte][2-byte little-endian length][that
// many bytes of the op's message]; the index picks a session or graph made earlier.
// Client graphs may hold internal ops (_Arg, _Retval, _Send, _Recv): the master must
// refuse them. Invariants: a cancelled CreateSession keeps no session; once every session
// is closed and every graph deregistered, the task holds none (nothing leaks across
// sequences); nothing crashes or hangs (steps are cut off by a step timeout or by
// cancelling the caller).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "fuzz/fuzz_util.h"

namespace tw::fuzz {
namespace {

enum Op : uint8_t {
  kCreate, kExtend, kRunStep, kCancelledRunStep, kClose, kCancelledCreate, kRegister, kRunGraph, kDeregister,
  kNumOps
};

bool HasInternalOp(const GraphDef& def) {
  for (const NodeDef& n : def.node()) {
    if (absl::StartsWith(n.op(), "_")) return true;
  }
  return false;
}

struct Session {
  std::string handle;
  int64_t version = 0;
};

class Sequence {
 public:
  explicit Sequence(OneTaskCluster* cluster) : master_(cluster->master()), worker_(cluster->worker()) {}

  void Apply(uint8_t op, uint8_t index, const std::string& bytes) {
    switch (op % kNumOps) {
      case kCreate:
      case kCancelledCreate: {
        CreateSessionRequest req;
        if (!req.mutable_graph_def()->ParseFromString(bytes)) return;
        req.mutable_config()->set_step_timeout_ms(kStepTimeoutMs);  // No step waits for ever.
        const bool cancelled = op % kNumOps == kCancelledCreate;
        const int64_t before = master_.num_sessions();
        CreateSessionResponse resp;
        absl::Status s = master_.CreateSession(req, &resp, [cancelled] { return cancelled; });
        if (cancelled || HasInternalOp(req.graph_def())) TW_FUZZ_CHECK(!s.ok());
        if (cancelled) TW_FUZZ_CHECK(master_.num_sessions() == before);
        if (s.ok()) sessions_.push_back({resp.session_handle(), resp.graph_version()});
        return;
      }
      case kExtend: {
        if (sessions_.empty()) return;
        Session& session = sessions_[index % sessions_.size()];
        ExtendSessionRequest req;
        if (!req.mutable_graph_def()->ParseFromString(bytes)) return;
        req.set_session_handle(session.handle);
        req.set_current_graph_version(session.version);
        ExtendSessionResponse resp;
        absl::Status s = master_.ExtendSession(req, &resp);
        if (HasInternalOp(req.graph_def())) TW_FUZZ_CHECK(!s.ok());
        if (s.ok()) session.version = resp.new_graph_version();
        return;
      }
      case kRunStep:
      case kCancelledRunStep: {
        if (sessions_.empty()) return;
        RunStepRequest req;
        if (!req.ParseFromString(bytes)) return;
        req.set_session_handle(sessions_[index % sessions_.size()].handle);
        CancellationManager client;
        if (op % kNumOps == kCancelledRunStep) client.StartCancel();  // The client already left.
        absl::Notification done;
        RunStepResponse resp;
        master_.RunStepAsync(&req, &resp, &client, [&](const absl::Status&) { done.Notify(); });
        done.WaitForNotification();
        return;
      }
      case kClose: {
        if (sessions_.empty()) return;
        const size_t i = index % sessions_.size();
        CloseSessionRequest req;
        req.set_session_handle(sessions_[i].handle);
        CloseSessionResponse resp;
        TW_FUZZ_CHECK(master_.CloseSession(req, &resp).ok());
        sessions_.erase(sessions_.begin() + i);
        return;
      }
      case kRegister: {
        RegisterGraphRequest req;
        if (!req.mutable_graph_def()->ParseFromString(bytes)) return;
        req.set_session_handle("fuzz");
        RegisterGraphResponse resp;
        if (worker_.RegisterGraph(req, &resp).ok()) graphs_.push_back(resp.graph_handle());
        return;
      }
      case kRunGraph: {
        if (graphs_.empty()) return;
        RunGraphRequest req;
        if (!req.ParseFromString(bytes)) return;
        req.set_graph_handle(graphs_[index % graphs_.size()]);
        // A partition may wait for a tensor nobody sends: its caller gives up after a
        // while, which must end the step on the worker.
        CancellationManager caller;
        absl::Notification done;
        RunGraphResponse resp;
        worker_.RunGraphAsync(&req, &resp, &caller, [&](const absl::Status&) { done.Notify(); });
        if (!done.WaitForNotificationWithTimeout(absl::Milliseconds(kStepTimeoutMs))) caller.StartCancel();
        done.WaitForNotification();
        CleanupGraphRequest cleanup;
        cleanup.set_step_id(req.step_id());
        CleanupGraphResponse ignored;
        (void)worker_.CleanupGraph(cleanup, &ignored);
        return;
      }
      case kDeregister: {
        if (graphs_.empty()) return;
        const size_t i = index % graphs_.size();
        DeregisterGraphRequest req;
        req.set_graph_handle(graphs_[i]);
        DeregisterGraphResponse resp;
        TW_FUZZ_CHECK(worker_.DeregisterGraph(req, &resp).ok());
        graphs_.erase(graphs_.begin() + i);
        return;
      }
    }
  }

  // Closes and deregisters what the sequence left: then the task holds nothing of it.
  void End() {
    for (const Session& s : sessions_) {
      CloseSessionRequest req;
      req.set_session_handle(s.handle);
      CloseSessionResponse resp;
      TW_FUZZ_CHECK(master_.CloseSession(req, &resp).ok());
    }
    for (const std::string& g : graphs_) {
      DeregisterGraphRequest req;
      req.set_graph_handle(g);
      DeregisterGraphResponse resp;
      TW_FUZZ_CHECK(worker_.DeregisterGraph(req, &resp).ok());
    }
    TW_FUZZ_CHECK(master_.num_sessions() == 0);
    GetStatusResponse status;
    TW_FUZZ_CHECK(worker_.GetStatus(GetStatusRequest(), &status).ok());
    TW_FUZZ_CHECK(status.registered_graphs() == 0);
  }

 private:
  static constexpr int64_t kStepTimeoutMs = 500;
  Master& master_;
  Worker& worker_;
  std::vector<Session> sessions_;
  std::vector<std::string> graphs_;
};

}  // namespace
}  // namespace tw::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tw::fuzz::OneTaskCluster* cluster = new tw::fuzz::OneTaskCluster();
  tw::fuzz::Sequence sequence(cluster);
  constexpr int kMaxCalls = 32;  // Keeps one input fast.
  size_t at = 0;
  for (int calls = 0; calls < kMaxCalls && at + 4 <= size; ++calls) {
    const uint8_t op = data[at], index = data[at + 1];
    const size_t length = data[at + 2] | (size_t{data[at + 3]} << 8);
    at += 4;
    if (length > size - at) break;
    sequence.Apply(op, index, tw::fuzz::AsString(data + at, length));
    at += length;
  }
  sequence.End();
  return 0;
}
