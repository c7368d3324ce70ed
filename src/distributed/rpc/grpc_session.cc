#include "distributed/rpc/grpc_session.h"

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/tf_master_client.h"
#include "graph/device_name.h"
#include "runtime/step_stats_collector.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/cluster_spec.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

class GrpcSession : public SessionInterface {
 public:
  GrpcSession(std::string address, const SessionOptions& options, const ClientCredentials& credentials)
      : address_(std::move(address)),
        who_(absl::StrCat("master at ", address_, credentials.channel ? " over TLS" : "")),
        channel_(MakeChannel(address_, credentials)),
        stub_(MasterService::NewStub(channel_)),
        options_(options) {
    config_.set_allow_soft_placement(options.allow_soft_placement);
    config_.set_log_device_placement(options.log_device_placement);
    config_.set_step_timeout_ms(options.operation_timeout_ms);
    for (const std::string& f : options.device_filters) {
      config_.add_device_filters(f);
      auto parsed = DeviceName::Parse(f);
      if (parsed.ok()) filters_.push_back(*parsed);  // A bad one fails at CreateSession.
    }
  }
  ~GrpcSession() override { Close().IgnoreError(); }

  absl::Status Extend(const GraphDef& graph) override {
    absl::MutexLock lock(&mu_);
    if (tf_ != nullptr) return tf_->Extend(graph);
    if (handle_.empty()) return CreateLocked(graph);
    ExtendSessionRequest req;
    req.set_session_handle(handle_);
    *req.mutable_graph_def() = graph;
    req.set_current_graph_version(graph_version_);
    ExtendSessionResponse resp;
    TW_RETURN_IF_ERROR(Call(&MasterService::Stub::ExtendSession, req, &resp));
    graph_version_ = resp.new_graph_version();
    return absl::OkStatus();
  }

  using SessionInterface::Run;
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   CancellationManager* cancellation, const RunOptions& options,
                   RunMetadata* metadata) override {
    RunStepRequest req;
    SessionInterface* tf = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (handle_.empty() && tf_ == nullptr) TW_RETURN_IF_ERROR(CreateLocked(GraphDef()));
      tf = tf_.get();
      req.set_session_handle(handle_);
    }
    if (tf != nullptr) return tf->Run(feeds, fetches, targets, outputs, cancellation, options, metadata);
    if (WantsStepStats(options)) *req.mutable_options() = options;
    for (const auto& [name, tensor] : feeds) {
      NamedTensor* t = req.add_feed();
      t->set_name(name);
      *t->mutable_tensor() = TensorToProto(tensor);
    }
    for (const auto& f : fetches) req.add_fetch(f);
    for (const auto& t : targets) req.add_target(t);
    RunStepResponse resp;
    TW_RETURN_IF_ERROR(Call(&MasterService::Stub::RunStep, req, &resp, cancellation));
    if (metadata != nullptr) *metadata = resp.metadata();
    if (outputs != nullptr) {
      // By name, as TensorFlow's client: the master returns a fetch asked twice once.
      absl::flat_hash_map<std::string, const TensorProto*> by_name;
      for (const NamedTensor& t : resp.tensor()) by_name.emplace(t.name(), &t.tensor());
      outputs->clear();
      for (const auto& f : fetches) {
        auto it = by_name.find(f);
        if (it == by_name.end()) return absl::InternalError(absl::StrCat("the master returned no fetch '", f, "'"));
        TW_ASSIGN_OR_RETURN(Tensor value, TensorFromProto(*it->second));
        outputs->push_back(std::move(value));
      }
    }
    return absl::OkStatus();
  }

  std::vector<std::string> ListDevices() const override {
    {
      absl::MutexLock lock(&mu_);
      if (tf_ != nullptr) return tf_->ListDevices();
    }
    ListDevicesResponse resp;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    std::vector<std::string> devices;
    if (stub_->ListDevices(&ctx, ListDevicesRequest(), &resp).ok()) {
      for (const std::string& d : resp.device()) {
        if (PassesFilters(d)) devices.push_back(d);
      }
    }
    return devices;
  }

  // Whether the session's device_filters (none: every device) let it see `device`.
  bool PassesFilters(const std::string& device) const {
    if (filters_.empty()) return true;
    auto parsed = DeviceName::Parse(device);
    return parsed.ok() &&
           std::any_of(filters_.begin(), filters_.end(), [&](const DeviceName& f) { return f.Matches(*parsed); });
  }

  absl::Status Close() override {
    absl::MutexLock lock(&mu_);
    if (tf_ != nullptr) return tf_->Close();
    if (handle_.empty()) return absl::OkStatus();
    CloseSessionRequest req;
    req.set_session_handle(handle_);
    CloseSessionResponse resp;
    handle_.clear();
    return Call(&MasterService::Stub::CloseSession, req, &resp);
  }

 private:
  // A target that does not have our CreateSession (gRPC's Unimplemented with no message;
  // our master's errors always have one) is a TensorFlow server: the session speaks
  // TensorFlow's MasterService from then on (tf_master_client.h).
  absl::Status CreateLocked(const GraphDef& graph) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    CreateSessionRequest req;
    *req.mutable_graph_def() = graph;
    *req.mutable_config() = config_;
    CreateSessionResponse resp;
    absl::Status created = Call(&MasterService::Stub::CreateSession, req, &resp);
    if (created.code() == absl::StatusCode::kUnimplemented && created.message().empty()) {
      tf_ = NewTfMasterSession(channel_, who_, options_);
      return tf_->Extend(graph);
    }
    TW_RETURN_IF_ERROR(created);
    handle_ = resp.session_handle();
    graph_version_ = resp.graph_version();
    return absl::OkStatus();
  }

  // A call that `cancellation` (may be null) cancels: the master sees its client gone and
  // aborts the step on the workers.
  template <typename Req, typename Resp>
  absl::Status Call(grpc::Status (MasterService::Stub::*method)(grpc::ClientContext*, const Req&, Resp*),
                    const Req& req, Resp* resp, CancellationManager* cancellation = nullptr) {
    // Shared with the cancel callback, which may still be running when the call is over.
    auto ctx = std::make_shared<grpc::ClientContext>();
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    if (cancellation != nullptr) {
      token = cancellation->RegisterCallback([ctx] { ctx->TryCancel(); });
      if (token == CancellationManager::kInvalidToken) return absl::CancelledError("step was cancelled");
    }
    grpc::Status status = (stub_.get()->*method)(ctx.get(), req, resp);
    if (token != CancellationManager::kInvalidToken) cancellation->DeregisterCallback(token);
    if (!status.ok() && cancellation != nullptr && cancellation->IsCancelled()) {
      return absl::CancelledError("step was cancelled (the call to the " + who_ + " was cancelled)");
    }
    return FromGrpcStatus(status, who_);
  }

  const std::string address_;
  const std::string who_;  // Names the master in transport errors (a TLS handshake refused: "Socket closed").
  const std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<MasterService::Stub> stub_;
  const SessionOptions options_;
  SessionConfigProto config_;
  std::vector<DeviceName> filters_;  // config_.device_filters, parsed: what ListDevices shows.
  mutable absl::Mutex mu_;
  std::string handle_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<SessionInterface> tf_ ABSL_GUARDED_BY(mu_);  // Set when the target is a TensorFlow server.
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;  // The master's, after our last extension.
};

}  // namespace

absl::StatusOr<std::unique_ptr<SessionInterface>> NewGrpcSession(const std::string& target,
                                                                  const SessionOptions& options) {
  if (!absl::StartsWith(target, "grpc://")) {
    return absl::InvalidArgumentError(absl::StrCat("target '", target, "' is not grpc://host:port"));
  }
  std::string address = target.substr(7);
  TW_RETURN_IF_ERROR(ValidateAddress(address));
  TW_ASSIGN_OR_RETURN(SecurityMaterial security,
                      LoadSecurityMaterial(WithEnvironmentDefaults(options.security), SecurityRole::kClient));
  return std::unique_ptr<SessionInterface>(new GrpcSession(address, options, MakeClientCredentials(security)));
}

}  // namespace tw
