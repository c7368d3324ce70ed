// The gRPC server of a task: MasterService and WorkerService bound to Master and Worker.
#include <memory>

#include "absl/synchronization/notification.h"
#include "core/malloc_tuning.h"
#include "core/net_util.h"
#include "distributed/master.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/grpc_worker_cache.h"
#include "distributed/rpc/recv_tensor_rpc.h"
#include "distributed/worker.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "tensorweave/server.h"

namespace tw {
namespace {

// RecvTensor is served raw through the callback API (recv_tensor_rpc.h); the rest are
// plain synchronous methods.
class WorkerServiceImpl final : public WorkerService::WithRawCallbackMethod_RecvTensor<WorkerService::Service> {
 public:
  explicit WorkerServiceImpl(Worker* worker) : worker_(worker) {}
  grpc::Status GetStatus(grpc::ServerContext*, const GetStatusRequest* req, GetStatusResponse* resp) override {
    return ToGrpcStatus(worker_->GetStatus(*req, resp));
  }
  grpc::Status RegisterGraph(grpc::ServerContext*, const RegisterGraphRequest* req,
                             RegisterGraphResponse* resp) override {
    return ToGrpcStatus(worker_->RegisterGraph(*req, resp));
  }
  grpc::Status DeregisterGraph(grpc::ServerContext*, const DeregisterGraphRequest* req,
                               DeregisterGraphResponse* resp) override {
    return ToGrpcStatus(worker_->DeregisterGraph(*req, resp));
  }
  grpc::Status RunGraph(grpc::ServerContext*, const RunGraphRequest* req, RunGraphResponse* resp) override {
    return ToGrpcStatus(worker_->RunGraph(*req, resp));
  }
  grpc::ServerWriteReactor<grpc::ByteBuffer>* RecvTensor(grpc::CallbackServerContext*,
                                                         const grpc::ByteBuffer* request) override {
    return NewRecvTensorReactor(worker_, *request);
  }
  grpc::Status CleanupGraph(grpc::ServerContext*, const CleanupGraphRequest* req,
                            CleanupGraphResponse* resp) override {
    return ToGrpcStatus(worker_->CleanupGraph(*req, resp));
  }
  grpc::Status CleanupAll(grpc::ServerContext*, const CleanupAllRequest* req, CleanupAllResponse* resp) override {
    return ToGrpcStatus(worker_->CleanupAll(*req, resp));
  }

 private:
  Worker* worker_;
};

class MasterServiceImpl final : public MasterService::Service {
 public:
  explicit MasterServiceImpl(Master* master) : master_(master) {}
  grpc::Status CreateSession(grpc::ServerContext*, const CreateSessionRequest* req,
                             CreateSessionResponse* resp) override {
    return ToGrpcStatus(master_->CreateSession(*req, resp));
  }
  grpc::Status ExtendSession(grpc::ServerContext*, const ExtendSessionRequest* req,
                             ExtendSessionResponse* resp) override {
    return ToGrpcStatus(master_->ExtendSession(*req, resp));
  }
  grpc::Status RunStep(grpc::ServerContext* ctx, const RunStepRequest* req, RunStepResponse* resp) override {
    // A client that goes away mid-step (its process died) gets its step aborted.
    return ToGrpcStatus(master_->RunStep(*req, resp, [ctx] { return ctx->IsCancelled(); }));
  }
  grpc::Status CloseSession(grpc::ServerContext*, const CloseSessionRequest* req,
                            CloseSessionResponse* resp) override {
    return ToGrpcStatus(master_->CloseSession(*req, resp));
  }
  grpc::Status ListDevices(grpc::ServerContext*, const ListDevicesRequest* req, ListDevicesResponse* resp) override {
    return ToGrpcStatus(master_->ListDevices(*req, resp));
  }
  grpc::Status Reset(grpc::ServerContext*, const ResetRequest* req, ResetResponse* resp) override {
    return ToGrpcStatus(master_->Reset(*req, resp));
  }

 private:
  Master* master_;
};

class GrpcServer : public Server {
 public:
  GrpcServer(ClusterSpec cluster, std::string job, int task, std::string address, const ServerOptions& options)
      : address_(std::move(address)),
        cache_(cluster, absl::Milliseconds(options.rpc_timeout_ms), options.limits.max_tensor_bytes),
        worker_(job, task, &cache_, options.limits),
        master_(cluster, job, task, &cache_, options.limits),
        worker_service_(&worker_),
        master_service_(&master_) {
    cache_.SetLocalWorker(job, task, &worker_);
  }

  ~GrpcServer() override { Stop(); }

  Status Start() override {
    if (server_ != nullptr) return absl::OkStatus();
    TuneMallocForLargeTensors();
    grpc::ServerBuilder builder;
    int bound_port = 0;
    builder.AddListeningPort(address_, grpc::InsecureServerCredentials(), &bound_port);
    // Without this gRPC sets SO_REUSEPORT and a second server "binds" a port in use.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // gRPC's sync server ends a handler thread whenever more than MAX_POLLERS wait, and
    // starts one whenever fewer than MIN_POLLERS do: with the defaults (1, 2) a master's
    // few concurrent calls per step churned threads (hundreds of thread starts a second,
    // each first call on a new thread slow). Keep enough threads waiting.
    builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 2);
    builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, 64);
    builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    builder.RegisterService(&worker_service_);
    builder.RegisterService(&master_service_);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || bound_port == 0) {
      server_.reset();
      return absl::UnavailableError(absl::StrCat("cannot listen on ", address_,
                                                 " (is the port already in use, or the host not local?)"));
    }
    return absl::OkStatus();
  }

  void Join() override { stopped_.WaitForNotification(); }

  void Stop() override {
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
      server_.reset();
    }
    if (!stopped_.HasBeenNotified()) stopped_.Notify();
  }

  std::string target() const override { return "grpc://" + address_; }

 private:
  const std::string address_;
  GrpcWorkerCache cache_;
  Worker worker_;
  Master master_;
  WorkerServiceImpl worker_service_;
  MasterServiceImpl master_service_;
  std::unique_ptr<grpc::Server> server_;
  absl::Notification stopped_;
};

}  // namespace

StatusOr<std::unique_ptr<Server>> Server::Create(const ClusterSpec& cluster, const std::string& job, int task,
                                                 const ServerOptions& options) {
  TW_ASSIGN_OR_RETURN(std::string address, cluster.address(job, task));
  return std::unique_ptr<Server>(new GrpcServer(cluster, job, task, address, options));
}

StatusOr<InProcessCluster> StartInProcessCluster(const std::map<std::string, int>& jobs,
                                                 const ServerOptions& options) {
  std::map<std::string, std::vector<std::string>> addresses;
  for (const auto& [job, tasks] : jobs) {
    for (int t = 0; t < tasks; ++t) {
      TW_ASSIGN_OR_RETURN(int port, PickFreeLoopbackPort());
      addresses[job].push_back(absl::StrCat("localhost:", port));
    }
  }
  InProcessCluster cluster;
  TW_ASSIGN_OR_RETURN(cluster.spec, ClusterSpec::FromJobs(addresses));
  for (const auto& [job, tasks] : jobs) {
    for (int t = 0; t < tasks; ++t) {
      TW_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(cluster.spec, job, t, options));
      TW_RETURN_IF_ERROR(server->Start());
      cluster.servers.push_back(std::move(server));
    }
  }
  return cluster;
}

StatusOr<InProcessCluster> StartInProcessCluster(const std::string& job, int tasks, const ServerOptions& options) {
  return StartInProcessCluster(std::map<std::string, int>{{job, tasks}}, options);
}

StatusOr<std::unique_ptr<Server>> Server::CreateLocal(const ServerOptions& options) {
  TW_ASSIGN_OR_RETURN(InProcessCluster cluster, StartInProcessCluster("localhost", 1, options));
  return std::move(cluster.servers[0]);
}

}  // namespace tw
