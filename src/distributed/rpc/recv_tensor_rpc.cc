#include "distributed/rpc/recv_tensor_rpc.h"

#include <memory>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/tensor_wire.h"

namespace tw {
namespace {

bool ParseRequest(const grpc::ByteBuffer& buffer, RecvTensorRequest* req) {
  grpc::Slice flat;
  if (!buffer.DumpToSingleSlice(&flat).ok()) return false;
  return req->ParseFromArray(flat.begin(), static_cast<int>(flat.size()));
}

class RecvTensorReactor : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  RecvTensorReactor(WorkerInterface* worker, const grpc::ByteBuffer& request) {
    RecvTensorRequest req;
    if (!ParseRequest(request, &req)) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "RecvTensor request does not parse"));
      return;
    }
    // `done` may run right here or later on the sending kernel's thread; either way the
    // call is not finished before it ran, so `this` is alive.
    worker->RecvTensorAsync(req, &cancellation_, [this](const absl::Status& s, const Tensor& t) {
      if (!s.ok()) {
        Finish(ToGrpcStatus(s));
        return;
      }
      writer_.emplace(t);
      WriteNext();
    });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the receiving task went away"));
      return;
    }
    WriteNext();
  }
  void OnCancel() override { cancellation_.StartCancel(); }  // Releases a pending receive.
  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    if (!writer_->Next(&message_)) {
      Finish(grpc::Status::OK);
      return;
    }
    // The last (for a small tensor, the only) message goes out with the status: one
    // batch, no OnWriteDone round.
    if (writer_->done()) {
      StartWriteAndFinish(&message_, grpc::WriteOptions(), grpc::Status::OK);
    } else {
      StartWrite(&message_);
    }
  }

  CancellationManager cancellation_;
  std::optional<TensorChunkWriter> writer_;
  grpc::ByteBuffer message_;
};

class RecvTensorCall : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  RecvTensorCall(CancellationManager* cancellation, std::string who, RecvTensorDone done, int64_t max_tensor_bytes)
      : context_(std::make_shared<grpc::ClientContext>()),
        cancellation_(cancellation),
        who_(std::move(who)),
        done_(std::move(done)),
        reader_(max_tensor_bytes) {}

  void Start(grpc::GenericStub* stub, const RecvTensorRequest& req, absl::Duration timeout) {
    context_->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
    grpc::Slice request(req.SerializeAsString());
    request_ = grpc::ByteBuffer(&request, 1);
    stub->PrepareBidiStreamingCall(context_.get(), kRecvTensorMethod, grpc::StubOptions(), this);
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
    if (decode_.ok()) decode_ = reader_.Add(message_);
    if (!decode_.ok()) context_->TryCancel();  // Bad data: stop the sender.
    StartRead(&message_);
  }

  void OnDone(const grpc::Status& status) override {
    if (token_ != CancellationManager::kInvalidToken) cancellation_->DeregisterCallback(token_);
    // Bad data, if any, is why the call ended.
    absl::StatusOr<Tensor> tensor = !decode_.ok()  ? absl::StatusOr<Tensor>(decode_)
                                    : status.ok() ? reader_.Finish()
                                                  : absl::StatusOr<Tensor>(FromGrpcStatus(status, who_));
    done_(tensor.status(), tensor.ok() ? *tensor : Tensor());
    delete this;
  }

 private:
  std::shared_ptr<grpc::ClientContext> context_;
  CancellationManager* cancellation_;
  CancellationManager::Token token_ = CancellationManager::kInvalidToken;
  const std::string who_;
  RecvTensorDone done_;
  grpc::ByteBuffer request_, message_;
  TensorChunkReader reader_;
  absl::Status decode_;
};

}  // namespace

grpc::ServerWriteReactor<grpc::ByteBuffer>* NewRecvTensorReactor(WorkerInterface* worker,
                                                                 const grpc::ByteBuffer& request) {
  return new RecvTensorReactor(worker, request);
}

void StartRecvTensorCall(grpc::GenericStub* stub, const RecvTensorRequest& req, absl::Duration timeout,
                         int64_t max_tensor_bytes, CancellationManager* cancellation, const std::string& who,
                         RecvTensorDone done) {
  (new RecvTensorCall(cancellation, who, std::move(done), max_tensor_bytes))->Start(stub, req, timeout);
}

}  // namespace tw
