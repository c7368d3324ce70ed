#include "distributed/rpc/tf_master_service.h"

#include <functional>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "distributed/rpc/grpc_util.h"

namespace tw {
namespace {

bool ParseBuffer(const grpc::ByteBuffer& buffer, google::protobuf::Message* message) {
  grpc::Slice flat;
  if (!buffer.DumpToSingleSlice(&flat).ok()) return false;
  return message->ParseFromArray(flat.begin(), static_cast<int>(flat.size()));
}

// One unary call of TensorFlow's MasterService over a generic (bidi) call: read the one
// request, answer it, finish. Steps end from whichever thread finishes them; the other
// methods may block (a Reset reaches every task), so they run on `pool`, never on
// gRPC's callback threads.
class TfMasterCall final : public grpc::ServerGenericBidiReactor {
 public:
  TfMasterCall(TfMasterAdapter* adapter, ThreadPool* pool, ReplyBudget* budget, std::string method)
      : adapter_(adapter), pool_(pool), budget_(budget), method_(std::move(method)) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) return Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, method_ + ": the call carried no request"));
    Dispatch();
  }
  void OnWriteDone(bool) override {}
  void OnCancel() override { client_cancel_.StartCancel(); }
  void OnDone() override {
    if (budget_ != nullptr) budget_->Release(reserved_);
    delete this;
  }

 private:
  void Dispatch() {
    const std::string name = method_.substr(method_.rfind('/') + 1);
    if (name == "RunStep") return Step<tfwire::RunStepRequest, tfwire::RunStepResponse>(&TfMasterAdapter::RunStepAsync);
    if (name == "RunCallable") {
      return Step<tfwire::RunCallableRequest, tfwire::RunCallableResponse>(&TfMasterAdapter::RunCallableAsync);
    }
    if (name == "CreateSession") return Unary(&TfMasterAdapter::CreateSession);
    if (name == "ExtendSession") return Unary(&TfMasterAdapter::ExtendSession);
    if (name == "CloseSession") return Unary(&TfMasterAdapter::CloseSession);
    if (name == "ListDevices") return Unary(&TfMasterAdapter::ListDevices);
    if (name == "Reset") return Unary(&TfMasterAdapter::Reset);
    if (name == "MakeCallable") return Unary(&TfMasterAdapter::MakeCallable);
    if (name == "ReleaseCallable") return Unary(&TfMasterAdapter::ReleaseCallable);
    if (name == "PartialRunSetup") {
      return Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                 "partial runs (Session.partial_run_setup) are not supported by tensorweave"));
    }
    Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        absl::StrCat("tensorweave does not serve ", method_, " of TensorFlow's MasterService")));
  }

  template <typename Req>
  Req* Parse() {
    auto* req = new Req;
    request_owner_.reset(req);
    if (!ParseBuffer(request_, req)) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          absl::StrCat(method_, ": the request is not a valid ", Req().GetTypeName().substr(19),
                                       " message")));  // Past "tensorweave.tfwire.".
      return nullptr;
    }
    return req;
  }

  template <typename Req, typename Resp>
  void Unary(absl::Status (TfMasterAdapter::*fn)(const Req&, Resp*)) {
    Req* req = Parse<Req>();
    if (req == nullptr) return;
    // The adapter is captured as a value: a closure that captured `this` with the member
    // pointer `fn` read a garbage `this` in GCC 12's -O1 sanitized build (UBSan: misaligned
    // TfMasterCall, every run of TfMasterServiceTest); this form reads it right.
    TfMasterAdapter* adapter = adapter_;
    pool_->Schedule([call = this, adapter, req, fn] {
      Resp resp;
      absl::Status s = (adapter->*fn)(*req, &resp);
      call->Reply(s, resp);
    });
  }

  template <typename Req, typename Resp>
  void Step(void (TfMasterAdapter::*fn)(const Req*, Resp*, CancellationManager*, StepDone)) {
    Req* req = Parse<Req>();
    if (req == nullptr) return;
    auto* resp = new Resp;
    response_owner_.reset(resp);
    (adapter_->*fn)(req, resp, &client_cancel_, [this, resp](const absl::Status& s) { Reply(s, *resp); });
  }

  void Reply(const absl::Status& s, const google::protobuf::Message& resp) {
    if (!s.ok()) return Finish(ToGrpcStatus(s));
    std::string bytes;
    if (!resp.SerializeToString(&bytes)) {
      return Finish(
          grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, method_ + ": the response is too large to send"));
    }
    if (budget_ != nullptr) {
      const int64_t size = static_cast<int64_t>(bytes.size());
      if (absl::Status held = budget_->Reserve(method_ + "'s reply", size); !held.ok()) {
        return Finish(ToGrpcStatus(held));
      }
      reserved_ = size;
    }
    grpc::Slice slice(bytes);
    response_ = grpc::ByteBuffer(&slice, 1);
    StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
  }

  TfMasterAdapter* adapter_;
  ThreadPool* pool_;
  ReplyBudget* budget_;
  int64_t reserved_ = 0;  // What this call's reply holds of budget_.
  const std::string method_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  std::unique_ptr<google::protobuf::Message> request_owner_;
  std::unique_ptr<google::protobuf::Message> response_owner_;
  CancellationManager client_cancel_;
};

// Any other method: refused at once.
class RefusedCall final : public grpc::ServerGenericBidiReactor {
 public:
  explicit RefusedCall(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerGenericBidiReactor* TfMasterService::CreateReactor(grpc::GenericCallbackServerContext* ctx) {
  const std::string& method = ctx->method();
  if (absl::StartsWith(method, kTfMasterServicePrefix) || absl::StartsWith(method, kTfMasterServiceProtoPrefix)) {
    return new TfMasterCall(adapter_, &pool_, budget_, method);
  }
  if (absl::StartsWith(method, kTfWorkerServicePrefix) || absl::StartsWith(method, kTfWorkerServiceProtoPrefix)) {
    return new RefusedCall(grpc::Status(
        grpc::StatusCode::UNIMPLEMENTED,
        absl::StrCat("a tensorweave task does not serve TensorFlow's WorkerService (", method,
                     "): a TensorFlow master cannot place work on it; connect a tf.compat.v1.Session to a "
                     "tensorweave task instead")));
  }
  return new RefusedCall(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, absl::StrCat("unknown method ", method)));
}

}  // namespace tw
