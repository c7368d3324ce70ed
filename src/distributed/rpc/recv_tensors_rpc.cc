#include "distributed/rpc/recv_tensors_rpc.h"

#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/tensor_wire.h"
#include "distributed/rpc/wire_bytes.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

bool ParseRequest(const grpc::ByteBuffer& buffer, RecvTensorsRequest* req) {
  grpc::Slice flat;
  if (!buffer.DumpToSingleSlice(&flat).ok()) return false;
  return req->ParseFromArray(flat.begin(), static_cast<int>(flat.size()));
}

// Writes the tensors in the order the worker hands them over, one message in flight at a
// time (gRPC's rule); the last message goes out with the status. Deleted once gRPC is
// done with the call and the worker is done with the receives (they use cancellation_).
class RecvTensorsReactor : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  RecvTensorsReactor(WorkerInterface* worker, const grpc::ByteBuffer& request, ReplyBudget* budget)
      : budget_(budget) {
    RecvTensorsRequest req;
    if (!ParseRequest(request, &req)) {
      refs_ = 1;  // No receives started.
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "RecvTensors request does not parse"));
      return;
    }
    keys_ = req.rendezvous_key_size();
    worker->RecvTensorsAsync(
        req, &cancellation_,
        [this](int i, const Tensor& t) {
          absl::StatusOr<std::shared_ptr<const void>> hold = Hold(t);
          Step step;
          {
            absl::MutexLock lock(&mu_);
            if (hold.ok()) {
              ready_.push_back({i, t, *std::move(hold)});
            } else if (refused_.ok()) {
              refused_ = hold.status();
            }
            step = Pump();
          }
          Act(step);
        },
        [this](const absl::Status& s) {
          Step step;
          {
            absl::MutexLock lock(&mu_);
            ended_ = true;
            end_status_ = s;
            step = Pump();
          }
          Act(step);
          Unref();
        });
  }

  void OnWriteDone(bool ok) override {
    Step step;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      if (ok) {
        step = Pump();
      } else if (!finished_) {
        finished_ = true;
        step = {Next::kCancelAndFinish, grpc::Status(grpc::StatusCode::CANCELLED, "the receiving task went away")};
      }
    }
    Act(step);
  }
  void OnCancel() override { cancellation_.StartCancel(); }
  void OnDone() override { Unref(); }

 private:
  // What Pump decided; Act does it once mu_ is released (gRPC may call back inline, and
  // the analysis of -Wthread-safety can follow a lock released by its own scope only).
  enum class Next { kNothing, kWrite, kWriteAndFinish, kFinish, kCancelAndFinish };
  struct Step {
    Next next = Next::kNothing;
    grpc::Status status;
  };

  struct Ready {
    int key_index;
    Tensor tensor;
    std::shared_ptr<const void> hold;
  };

  // The tensor's bytes reserved in the task's reply budget while this stream holds it.
  absl::StatusOr<std::shared_ptr<const void>> Hold(const Tensor& t) {
    if (budget_ == nullptr) return nullptr;
    return budget_->Hold("the RecvTensors stream's tensor", static_cast<int64_t>(t.TotalBytes()));
  }

  // Starts the next write or the finish, if one is due and none is in flight: updates the
  // state under mu_ and says what to call.
  Step Pump() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_ || writing_) return {};
    if (!refused_.ok()) {  // Releases the receives still waiting, and their tensors.
      finished_ = true;
      ready_.clear();
      return {Next::kCancelAndFinish, ToGrpcStatus(refused_)};
    }
    if (ended_ && !end_status_.ok()) {
      finished_ = true;
      return {Next::kFinish, ToGrpcStatus(end_status_)};
    }
    if (!writer_.has_value() || writer_->done()) {
      if (ready_.empty()) {
        if (ended_ && started_ == keys_) {  // Everything went out (or nothing was asked).
          finished_ = true;
          return {Next::kFinish, grpc::Status::OK};
        }
        return {};
      }
      Ready& next = ready_.front();
      writer_.emplace(std::move(next.tensor), next.key_index, std::move(next.hold));
      ready_.pop_front();
      ++started_;
    }
    writer_->Next(&message_);
    CountTensorBytesSent(static_cast<int64_t>(message_.Length()));
    // The last message of the last tensor carries the status: one batch, no OnWriteDone.
    if (writer_->done() && started_ == keys_) {
      finished_ = true;
      return {Next::kWriteAndFinish, grpc::Status::OK};
    }
    writing_ = true;
    return {Next::kWrite, grpc::Status::OK};
  }

  // message_ is written by Pump before writing_ (or finished_) is set, and read by gRPC
  // only until OnWriteDone: one write in flight at a time, so it needs no lock here.
  void Act(const Step& step) ABSL_LOCKS_EXCLUDED(mu_) {
    switch (step.next) {
      case Next::kNothing:
        return;
      case Next::kWrite:
        StartWrite(&message_);
        return;
      case Next::kWriteAndFinish:
        StartWriteAndFinish(&message_, grpc::WriteOptions(), step.status);
        return;
      case Next::kCancelAndFinish:
        cancellation_.StartCancel();  // Releases the receives still waiting.
        Finish(step.status);
        return;
      case Next::kFinish:
        Finish(step.status);
        return;
    }
  }

  void Unref() {
    bool last;
    {
      absl::MutexLock lock(&mu_);
      last = --refs_ == 0;
    }
    if (last) delete this;
  }

  ReplyBudget* const budget_ = nullptr;
  CancellationManager cancellation_;
  absl::Mutex mu_;
  int refs_ ABSL_GUARDED_BY(mu_) = 2;  // gRPC's OnDone and the worker's done.
  int keys_ = 0;
  std::deque<Ready> ready_ ABSL_GUARDED_BY(mu_);
  absl::Status refused_ ABSL_GUARDED_BY(mu_);  // A tensor the budget did not admit.
  std::optional<TensorChunkWriter> writer_ ABSL_GUARDED_BY(mu_);
  int started_ ABSL_GUARDED_BY(mu_) = 0;  // Tensors whose writing began.
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status end_status_ ABSL_GUARDED_BY(mu_);
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ByteBuffer message_;
};

class RecvTensorsCall : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  RecvTensorsCall(CancellationManager* cancellation, std::string who, int keys, RecvTensorsArrived arrived,
                  std::function<void(const absl::Status&)> done, int64_t max_tensor_bytes)
      : context_(std::make_shared<grpc::ClientContext>()),
        cancellation_(cancellation),
        who_(std::move(who)),
        done_(std::move(done)),
        reader_(keys, max_tensor_bytes, std::move(arrived)) {}

  void Start(grpc::GenericStub* stub, const RecvTensorsRequest& req, absl::Duration timeout) {
    context_->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    grpc::Slice request(req.SerializeAsString());
    request_ = grpc::ByteBuffer(&request, 1);
    stub->PrepareBidiStreamingCall(context_.get(), kRecvTensorsMethod, grpc::StubOptions(), this);
    if (cancellation_ != nullptr) {
      // The context outlives the call while the callback may still use it.
      token_ = cancellation_->RegisterCallback([context = context_] { context->TryCancel(); });
      if (token_ == CancellationManager::kInvalidToken) context_->TryCancel();
    }
    StartWriteLast(&request_, grpc::WriteOptions());
    StartRead(&message_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // The stream ended; OnDone says how.
    CountTensorBytesReceived(static_cast<int64_t>(message_.Length()));
    if (decode_.ok()) decode_ = reader_.Add(message_);
    if (!decode_.ok()) context_->TryCancel();  // Bad data: stop the sender.
    StartRead(&message_);
  }

  void OnDone(const grpc::Status& status) override {
    if (token_ != CancellationManager::kInvalidToken) cancellation_->DeregisterCallback(token_);
    absl::Status s;
    if (!decode_.ok()) {
      s = FromStream(decode_);  // Bad data is why the call ended.
    } else if (!status.ok()) {
      s = FromGrpcStatus(status, who_);
    } else {
      s = FromStream(reader_.Finish());
    }
    done_(s);
    delete this;
  }

 private:
  // A decoding error, naming the sender.
  absl::Status FromStream(const absl::Status& s) const {
    return s.ok() ? s : absl::Status(s.code(), absl::StrCat(s.message(), " (from ", who_, ")"));
  }

  std::shared_ptr<grpc::ClientContext> context_;
  CancellationManager* cancellation_;
  CancellationManager::Token token_ = CancellationManager::kInvalidToken;
  const std::string who_;
  std::function<void(const absl::Status&)> done_;
  grpc::ByteBuffer request_, message_;
  TensorStreamReader reader_;
  absl::Status decode_;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* NewRecvTensorsReactor(WorkerInterface* worker,
                                                                  const grpc::ByteBuffer& request, ReplyBudget* budget) {
  return new RecvTensorsReactor(worker, request, budget);
}

void StartRecvTensorsCall(grpc::GenericStub* stub, const RecvTensorsRequest& req, absl::Duration timeout,
                          int64_t max_tensor_bytes, CancellationManager* cancellation, const std::string& who,
                          RecvTensorsArrived arrived, std::function<void(const absl::Status&)> done) {
  (new RecvTensorsCall(cancellation, who, req.rendezvous_key_size(), std::move(arrived), std::move(done),
                       max_tensor_bytes))
      ->Start(stub, req, timeout);
}

}  // namespace tw
