#include "distributed/rpc/tf_master_client.h"

#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/impl/rpc_method.h>

#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/tf_master_service.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/tf_master.pb.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

class TfMasterSession : public SessionInterface {
 public:
  TfMasterSession(std::shared_ptr<grpc::Channel> channel, std::string who, const SessionOptions& options)
      : channel_(std::move(channel)), who_(std::move(who)) {
    config_.set_allow_soft_placement(options.allow_soft_placement);
    config_.set_log_device_placement(options.log_device_placement);
    config_.set_operation_timeout_in_ms(options.operation_timeout_ms);
    for (const std::string& f : options.device_filters) config_.add_device_filters(f);
  }
  ~TfMasterSession() override { Close().IgnoreError(); }

  absl::Status Extend(const GraphDef& graph) override {
    absl::MutexLock lock(&mu_);
    if (handle_.empty()) return CreateLocked(graph);
    tfwire::ExtendSessionRequest req;
    req.set_session_handle(handle_);
    *req.mutable_graph_def() = graph;
    req.set_current_graph_version(graph_version_);
    tfwire::ExtendSessionResponse resp;
    TW_RETURN_IF_ERROR(Call("ExtendSession", req, &resp));
    graph_version_ = resp.new_graph_version();
    return absl::OkStatus();
  }

  using SessionInterface::Run;
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   CancellationManager* cancellation, const RunOptions& /*options*/,
                   RunMetadata* /*metadata*/) override {
    tfwire::RunStepRequest req;
    {
      absl::MutexLock lock(&mu_);
      if (handle_.empty()) TW_RETURN_IF_ERROR(CreateLocked(GraphDef()));
      req.set_session_handle(handle_);
    }
    for (const auto& [name, tensor] : feeds) {
      NamedTensor* t = req.add_feed();
      t->set_name(name);
      *t->mutable_tensor() = TensorToProto(tensor);
    }
    for (const auto& f : fetches) req.add_fetch(f);
    for (const auto& t : targets) req.add_target(t);
    tfwire::RunStepResponse resp;
    TW_RETURN_IF_ERROR(Call("RunStep", req, &resp, cancellation));
    if (resp.status_code() != 0) {
      return absl::Status(static_cast<absl::StatusCode>(resp.status_code()), resp.status_error_message());
    }
    if (outputs == nullptr) return absl::OkStatus();
    // TensorFlow's master may answer in another order: find each fetch by its name.
    absl::flat_hash_map<std::string, const TensorProto*> by_name;
    for (const NamedTensor& t : resp.tensor()) by_name[t.name()] = &t.tensor();
    outputs->clear();
    for (const std::string& f : fetches) {
      auto it = by_name.find(f);
      if (it == by_name.end()) {
        return absl::InternalError(absl::StrCat("the TensorFlow ", who_, " did not return fetch '", f, "'"));
      }
      TW_ASSIGN_OR_RETURN(Tensor value, TensorFromProto(*it->second));
      outputs->push_back(std::move(value));
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ListDevices() const override {
    tfwire::ListDevicesRequest req;
    {
      absl::MutexLock lock(&mu_);
      req.set_session_handle(handle_);
    }
    tfwire::ListDevicesResponse resp;
    std::vector<std::string> devices;
    if (!Call("ListDevices", req, &resp).ok()) return devices;
    for (const auto& d : resp.local_device()) devices.push_back(d.name());
    for (const auto& d : resp.remote_device()) devices.push_back(d.name());
    return devices;
  }

  absl::Status Close() override {
    absl::MutexLock lock(&mu_);
    if (handle_.empty()) return absl::OkStatus();
    tfwire::CloseSessionRequest req;
    req.set_session_handle(handle_);
    handle_.clear();
    tfwire::CloseSessionResponse resp;
    return Call("CloseSession", req, &resp);
  }

 private:
  absl::Status CreateLocked(const GraphDef& graph) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    tfwire::CreateSessionRequest req;
    *req.mutable_graph_def() = graph;
    *req.mutable_config() = config_;
    tfwire::CreateSessionResponse resp;
    TW_RETURN_IF_ERROR(Call("CreateSession", req, &resp));
    handle_ = resp.session_handle();
    graph_version_ = resp.graph_version();
    return absl::OkStatus();
  }

  // A unary call of TensorFlow's MasterService that `cancellation` (may be null) cancels.
  template <typename Req, typename Resp>
  absl::Status Call(const char* method, const Req& req, Resp* resp, CancellationManager* cancellation = nullptr) const {
    const std::string path = absl::StrCat(kTfMasterServicePrefix, method);
    const grpc::internal::RpcMethod rpc(path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
    // Shared with the cancel callback, which may still be running when the call is over.
    auto ctx = std::make_shared<grpc::ClientContext>();
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    if (cancellation != nullptr) {
      token = cancellation->RegisterCallback([ctx] { ctx->TryCancel(); });
      if (token == CancellationManager::kInvalidToken) return absl::CancelledError("step was cancelled");
    }
    grpc::Status status = grpc::internal::BlockingUnaryCall<Req, Resp, google::protobuf::MessageLite,
                                                            google::protobuf::MessageLite>(channel_.get(), rpc,
                                                                                           ctx.get(), req, resp);
    if (token != CancellationManager::kInvalidToken) cancellation->DeregisterCallback(token);
    if (!status.ok() && cancellation != nullptr && cancellation->IsCancelled()) {
      return absl::CancelledError("step was cancelled (the call to the TensorFlow " + who_ + " was cancelled)");
    }
    return FromGrpcStatus(status, "TensorFlow " + who_);
  }

  const std::shared_ptr<grpc::Channel> channel_;
  const std::string who_;
  tfwire::ConfigProto config_;
  mutable absl::Mutex mu_;
  std::string handle_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace

std::unique_ptr<SessionInterface> NewTfMasterSession(std::shared_ptr<grpc::Channel> channel, std::string who,
                                                     const SessionOptions& options) {
  return std::make_unique<TfMasterSession>(std::move(channel), std::move(who), options);
}

}  // namespace tw
