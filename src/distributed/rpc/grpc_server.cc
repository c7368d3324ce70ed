// The gRPC server of a task: MasterService and WorkerService bound to Master and Worker.
#include <iostream>
#include <memory>

#include "absl/synchronization/notification.h"
#include "core/malloc_tuning.h"
#include "core/mutex_mode.h"
#include "core/net_util.h"
#include "distributed/master.h"
#include "distributed/rpc/grpc_security.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/grpc_worker_cache.h"
#include "distributed/rpc/parse_error_interceptor.h"
#include "distributed/rpc/recv_tensors_rpc.h"
#include "distributed/rpc/tf_master_service.h"
#include "distributed/worker.h"
#include "tensorweave/proto/master.grpc.pb.h"
#include "tensorweave/proto/worker.grpc.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/server.h"

namespace tw {
namespace {

// The last guard before serializing: a reply protobuf cannot encode (2 GiB or more) is
// replaced by an error instead of aborting the process in gRPC's serializer.
grpc::Status FinishStatus(const absl::Status& s, google::protobuf::Message* resp, const char* reply) {
  if (s.ok()) {
    const size_t bytes = resp->ByteSizeLong();
    if (bytes > static_cast<size_t>(kMaxMessageBytes)) {
      resp->Clear();
      return ToGrpcStatus(CheckReplyFits(reply, static_cast<int64_t>(bytes), {}));
    }
  }
  return ToGrpcStatus(s);
}

// RunGraph and RecvTensors (raw: recv_tensors_rpc.h) are served through the callback API:
// a step's work finishes the call from whichever thread completes it, with no thread
// waiting per call. The rest are plain synchronous methods.
class WorkerServiceImpl final
    : public WorkerService::WithCallbackMethod_RunGraph<
          WorkerService::WithRawCallbackMethod_RecvTensors<WorkerService::Service>> {
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
  grpc::ServerUnaryReactor* RunGraph(grpc::CallbackServerContext* ctx, const RunGraphRequest* req,
                                     RunGraphResponse* resp) override {
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    worker_->RunGraphAsync(req, resp, [reactor, resp](const absl::Status& s) {
      reactor->Finish(FinishStatus(s, resp, "the RunGraph reply"));
    });
    return reactor;
  }
  grpc::ServerWriteReactor<grpc::ByteBuffer>* RecvTensors(grpc::CallbackServerContext*,
                                                          const grpc::ByteBuffer* request) override {
    return NewRecvTensorsReactor(worker_, *request);
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

// One RunStep call: the step ends the call from whichever thread finishes it; a client
// that goes away mid-step (its process died, it gave up) gets its step aborted.
class RunStepReactor final : public grpc::ServerUnaryReactor {
 public:
  RunStepReactor(Master* master, const RunStepRequest* req, RunStepResponse* resp) {
    master->RunStepAsync(req, resp, &client_cancel_,
                         [this, resp](const absl::Status& s) { Finish(FinishStatus(s, resp, "the RunStep reply")); });
  }
  void OnCancel() override { client_cancel_.StartCancel(); }
  void OnDone() override { delete this; }

 private:
  CancellationManager client_cancel_;
};

// RunStep is served through the callback API (no thread waits for a step); the rest are
// plain synchronous methods.
class MasterServiceImpl final : public MasterService::WithCallbackMethod_RunStep<MasterService::Service> {
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
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext*, const RunStepRequest* req,
                                    RunStepResponse* resp) override {
    return new RunStepReactor(master_, req, resp);
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
        worker_(job, task, &cache_, options.limits, options.intra_op_threads, options.inter_op_threads),
        master_(cluster, job, task, &cache_, &worker_, options.limits),
        worker_service_(&worker_),
        master_service_(&master_),
        tf_master_(&master_, job, task),
        tf_master_service_(&tf_master_) {
    cache_.SetLocalWorker(job, task, &worker_);
    security_ = options.security;
    insecure_allow_remote_ = options.insecure_allow_remote;
  }

  ~GrpcServer() override { Stop(); }

  Status Start() override {
    if (server_ != nullptr) return absl::OkStatus();
    TW_ASSIGN_OR_RETURN(SecurityMaterial security, LoadSecurityMaterial(security_, SecurityRole::kServer));
    std::string warning;
    TW_RETURN_IF_ERROR(CheckListenAddress(address_, security, insecure_allow_remote_, &warning));
    if (!warning.empty()) std::cerr << "tw server: WARNING: " << warning << std::endl;
    if (AddressInUse(address_)) {
      return absl::UnavailableError(absl::StrCat("cannot listen on ", address_,
                                                 ": the port is in use by another process"));
    }
    cache_.SetClientCredentials(MakeClientCredentials(security));
    TuneMallocForLargeTensors();
    ConfigureMutexDeadlockDetection();
    grpc::ServerBuilder builder;
    int bound_port = 0;
    builder.AddListeningPort(address_, MakeServerCredentials(security), &bound_port);
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
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    interceptors.push_back(MakeParseErrorInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
    builder.RegisterService(&worker_service_);
    builder.RegisterService(&master_service_);
    builder.RegisterCallbackGenericService(&tf_master_service_);  // TensorFlow's clients (tf_master_service.h).
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
  TfMasterAdapter tf_master_;
  TfMasterService tf_master_service_;
  std::unique_ptr<grpc::Server> server_;
  absl::Notification stopped_;
  TransportSecurity security_;  // Files read by Start().
  bool insecure_allow_remote_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Server>> Server::Create(const ClusterSpec& cluster, const std::string& job, int task,
                                                 const ServerOptions& options) {
  TW_ASSIGN_OR_RETURN(std::string address, cluster.address(job, task));
  return std::unique_ptr<Server>(new GrpcServer(cluster, job, task, address, options));
}

StatusOr<InProcessCluster> StartInProcessCluster(const std::map<std::string, int>& jobs,
                                                 const ServerOptions& options) {
  TW_ASSIGN_OR_RETURN(auto addresses, FreeLoopbackAddresses(jobs));
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
