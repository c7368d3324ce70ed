#include "distributed/rpc/grpc_worker_cache.h"

#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/recv_tensors_rpc.h"
#include "distributed/rpc/wire_bytes.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"

namespace tw {
namespace {

class GrpcWorker : public WorkerInterface {
 public:
  GrpcWorker(const std::string& task, const std::string& address, absl::Duration timeout,
             const ClientCredentials& credentials, int64_t max_tensor_bytes)
      : who_(absl::StrCat("task ", task, " at ", address)),
        channel_(MakeChannel(address, credentials)),
        stub_(WorkerService::NewStub(channel_)),
        generic_stub_(channel_),
        timeout_(timeout),
        max_tensor_bytes_(max_tensor_bytes) {}

  absl::Status GetStatus(const GetStatusRequest& req, GetStatusResponse* resp) override {
    return Call(&WorkerService::Stub::GetStatus, req, resp);
  }
  absl::Status RegisterGraph(const RegisterGraphRequest& req, RegisterGraphResponse* resp) override {
    return Call(&WorkerService::Stub::RegisterGraph, req, resp);
  }
  void RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp,
                     std::function<void(const absl::Status&)> done) override {
    auto ctx = std::make_shared<grpc::ClientContext>();
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
    CountRunGraphBytesSent(static_cast<int64_t>(req->ByteSizeLong()));
    stub_->async()->RunGraph(ctx.get(), req, resp, [this, ctx, resp, done = std::move(done)](grpc::Status s) {
      if (s.ok()) CountRunGraphBytesReceived(static_cast<int64_t>(resp->ByteSizeLong()));
      done(FromGrpcStatus(s, who_));
    });
  }
  absl::Status DeregisterGraph(const DeregisterGraphRequest& req, DeregisterGraphResponse* resp) override {
    return Call(&WorkerService::Stub::DeregisterGraph, req, resp);
  }
  void RecvTensorsAsync(const RecvTensorsRequest& req, CancellationManager* cancellation, RecvTensorsArrived arrived,
                        std::function<void(const absl::Status&)> done) override {
    StartRecvTensorsCall(&generic_stub_, req, timeout_, max_tensor_bytes_, cancellation, who_, std::move(arrived),
                         std::move(done));
  }
  absl::Status CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse* resp) override {
    return Call(&WorkerService::Stub::CleanupGraph, req, resp);
  }
  absl::Status CleanupAll(const CleanupAllRequest& req, CleanupAllResponse* resp) override {
    return Call(&WorkerService::Stub::CleanupAll, req, resp);
  }

 private:
  template <typename Req, typename Resp>
  absl::Status Call(grpc::Status (WorkerService::Stub::*method)(grpc::ClientContext*, const Req&, Resp*),
                    const Req& req, Resp* resp) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
    return FromGrpcStatus((stub_.get()->*method)(&ctx, req, resp), who_);
  }

  const std::string who_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<WorkerService::Stub> stub_;
  grpc::GenericStub generic_stub_;  // For RecvTensors' raw messages.
  const absl::Duration timeout_;
  const int64_t max_tensor_bytes_;
};

}  // namespace

GrpcWorkerCache::GrpcWorkerCache(ClusterSpec cluster, absl::Duration timeout, int64_t max_tensor_bytes)
    : cluster_(std::move(cluster)), timeout_(timeout), max_tensor_bytes_(max_tensor_bytes) {}

GrpcWorkerCache::~GrpcWorkerCache() = default;

void GrpcWorkerCache::SetClientCredentials(ClientCredentials credentials) {
  absl::MutexLock lock(&mu_);
  credentials_ = std::move(credentials);
}

void GrpcWorkerCache::SetLocalWorker(const std::string& job, int task, WorkerInterface* worker) {
  absl::MutexLock lock(&mu_);
  local_key_ = {job, task};
  local_worker_ = worker;
}

absl::StatusOr<WorkerInterface*> GrpcWorkerCache::GetWorker(const std::string& job, int task) {
  absl::MutexLock lock(&mu_);
  if (local_worker_ != nullptr && local_key_ == std::make_pair(job, task)) return local_worker_;
  auto& worker = workers_[{job, task}];
  if (worker == nullptr) {
    TW_ASSIGN_OR_RETURN(std::string address, cluster_.address(job, task));
    worker = std::make_unique<GrpcWorker>(absl::StrCat("/job:", job, "/replica:0/task:", task), address, timeout_,
                                          credentials_, max_tensor_bytes_);
  }
  return worker.get();
}

}  // namespace tw
