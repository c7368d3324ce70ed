#include "distributed/rpc/grpc_worker_cache.h"

#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/tensor_stream.h"
#include "tensorweave/proto/worker.grpc.pb.h"

namespace tw {
namespace {

class GrpcWorker : public WorkerInterface {
 public:
  GrpcWorker(const std::string& task, const std::string& address, absl::Duration timeout)
      : who_(absl::StrCat("task ", task, " at ", address)),
        stub_(WorkerService::NewStub(MakeChannel(address))),
        timeout_(timeout) {}

  absl::Status GetStatus(const GetStatusRequest& req, GetStatusResponse* resp) override {
    return Call(&WorkerService::Stub::GetStatus, req, resp);
  }
  absl::Status RegisterGraph(const RegisterGraphRequest& req, RegisterGraphResponse* resp) override {
    return Call(&WorkerService::Stub::RegisterGraph, req, resp);
  }
  absl::Status RunGraph(const RunGraphRequest& req, RunGraphResponse* resp) override {
    return Call(&WorkerService::Stub::RunGraph, req, resp);
  }
  absl::Status RecvTensor(const RecvTensorRequest& req, Tensor* tensor) override {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
    auto reader = stub_->RecvTensor(&ctx, req);
    bool ended = false;
    absl::Status read = ReadTensorChunks(reader.get(), tensor, &ended);
    if (!read.ok() && !ended) {
      ctx.TryCancel();  // Bad data with the call still open: stop the sender.
      (void)reader->Finish();
      return read;
    }
    grpc::Status finish = reader->Finish();
    if (!finish.ok()) return FromGrpcStatus(finish, who_);  // Why the stream ended early.
    return read;
  }
  absl::Status CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse* resp) override {
    return Call(&WorkerService::Stub::CleanupGraph, req, resp);
  }
  absl::Status Reset(const ResetRequest& req, ResetResponse* resp) override {
    return Call(&WorkerService::Stub::Reset, req, resp);
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
  std::unique_ptr<WorkerService::Stub> stub_;
  const absl::Duration timeout_;
};

}  // namespace

GrpcWorkerCache::GrpcWorkerCache(ClusterSpec cluster, absl::Duration timeout)
    : cluster_(std::move(cluster)), timeout_(timeout) {}

GrpcWorkerCache::~GrpcWorkerCache() = default;

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
    worker = std::make_unique<GrpcWorker>(absl::StrCat("/job:", job, "/replica:0/task:", task), address, timeout_);
  }
  return worker.get();
}

}  // namespace tw
