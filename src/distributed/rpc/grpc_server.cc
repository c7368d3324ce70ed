// The gRPC server of a task: MasterService and WorkerService bound to Master and Worker.
#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>

#include "absl/synchronization/notification.h"
#include "core/file_access.h"
#include "core/net_util.h"
#include "distributed/master.h"
#include "distributed/rpc/collective_rpc.h"
#include "distributed/rpc/grpc_security.h"
#include "distributed/rpc/grpc_util.h"
#include "distributed/rpc/grpc_worker_cache.h"
#include "distributed/rpc/parse_error_interceptor.h"
#include "distributed/rpc/recv_tensors_rpc.h"
#include "distributed/rpc/reply_budget.h"
#include "distributed/rpc/tf_master_service.h"
#include "distributed/rpc/wire_bytes.h"
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

// Ends a step's call: an OK reply is first checked against protobuf's size limit and the
// task's reply budget (`reserved` gets what it holds, released when the call is done).
grpc::Status FinishReply(const absl::Status& s, google::protobuf::Message* resp, const char* reply,
                         ReplyBudget* budget, int64_t* reserved) {
  grpc::Status status = FinishStatus(s, resp, reply);
  if (!status.ok() || budget == nullptr) return status;
  const int64_t bytes = static_cast<int64_t>(resp->ByteSizeLong());
  if (absl::Status held = budget->Reserve(reply, bytes); !held.ok()) {
    resp->Clear();
    return ToGrpcStatus(held);
  }
  *reserved = bytes;
  return status;
}

// RunGraph and RecvTensors (raw: recv_tensors_rpc.h) are served through the callback API:
// a step's work finishes the call from whichever thread completes it, with no thread
// waiting per call. The rest are plain synchronous methods.
class WorkerServiceImpl final
    : public WorkerService::WithCallbackMethod_RunGraph<
          WorkerService::WithRawCallbackMethod_RecvTensors<WorkerService::Service>> {
 public:
  WorkerServiceImpl(Worker* worker, Master* master, ReplyBudget* budget)
      : worker_(worker), master_(master), budget_(budget) {}
  grpc::Status GetStatus(grpc::ServerContext*, const GetStatusRequest* req, GetStatusResponse* resp) override {
    resp->set_master_sessions(master_->num_sessions());
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
  grpc::ServerUnaryReactor* RunGraph(grpc::CallbackServerContext*, const RunGraphRequest* req,
                                     RunGraphResponse* resp) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* RecvTensors(grpc::CallbackServerContext*,
                                                          const grpc::ByteBuffer* request) override {
    return NewRecvTensorsReactor(worker_, *request, budget_);
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
  Master* master_;
  ReplyBudget* budget_;
};

// One RunGraph call: a caller that goes away (its master was killed, its deadline passed,
// the server stops) gets the step aborted on this task (Worker::RunGraphAsync).
class RunGraphReactor final : public grpc::ServerUnaryReactor {
 public:
  RunGraphReactor(Worker* worker, ReplyBudget* budget, const RunGraphRequest* req, RunGraphResponse* resp)
      : budget_(budget) {
    CountRunGraphBytesReceived(static_cast<int64_t>(req->ByteSizeLong()));
    worker->RunGraphAsync(req, resp, &caller_cancel_, [this, resp](const absl::Status& s) {
      if (s.ok()) CountRunGraphBytesSent(static_cast<int64_t>(resp->ByteSizeLong()));
      Finish(FinishReply(s, resp, "the RunGraph reply", budget_, &reserved_));
    });
  }
  void OnCancel() override { caller_cancel_.StartCancel(); }
  void OnDone() override {
    budget_->Release(reserved_);
    delete this;
  }

 private:
  CancellationManager caller_cancel_;
  ReplyBudget* budget_;
  int64_t reserved_ = 0;
};

grpc::ServerUnaryReactor* WorkerServiceImpl::RunGraph(grpc::CallbackServerContext*, const RunGraphRequest* req,
                                                      RunGraphResponse* resp) {
  return new RunGraphReactor(worker_, budget_, req, resp);
}

// One RunStep call: the step ends the call from whichever thread finishes it; a client
// that goes away mid-step (its process died, it gave up) gets its step aborted.
class RunStepReactor final : public grpc::ServerUnaryReactor {
 public:
  RunStepReactor(Master* master, ReplyBudget* budget, const RunStepRequest* req, RunStepResponse* resp)
      : budget_(budget) {
    master->RunStepAsync(req, resp, &client_cancel_, [this, resp](const absl::Status& s) {
      Finish(FinishReply(s, resp, "the RunStep reply", budget_, &reserved_));
    });
  }
  void OnCancel() override { client_cancel_.StartCancel(); }
  void OnDone() override {
    budget_->Release(reserved_);
    delete this;
  }

 private:
  CancellationManager client_cancel_;
  ReplyBudget* budget_;
  int64_t reserved_ = 0;
};

// RunStep is served through the callback API (no thread waits for a step); the rest are
// plain synchronous methods.
class MasterServiceImpl final : public MasterService::WithCallbackMethod_RunStep<MasterService::Service> {
 public:
  MasterServiceImpl(Master* master, ReplyBudget* budget) : master_(master), budget_(budget) {}
  grpc::Status CreateSession(grpc::ServerContext* ctx, const CreateSessionRequest* req,
                             CreateSessionResponse* resp) override {
    return ToGrpcStatus(master_->CreateSession(*req, resp, [ctx] { return ctx->IsCancelled(); }));
  }
  grpc::Status ExtendSession(grpc::ServerContext*, const ExtendSessionRequest* req,
                             ExtendSessionResponse* resp) override {
    return ToGrpcStatus(master_->ExtendSession(*req, resp));
  }
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext*, const RunStepRequest* req,
                                    RunStepResponse* resp) override {
    return new RunStepReactor(master_, budget_, req, resp);
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
  ReplyBudget* budget_;
};

class GrpcServer : public Server {
 public:
  GrpcServer(ClusterSpec cluster, std::string job, int task, std::string address, const ServerOptions& options)
      : address_(std::move(address)),
        limits_(options.limits),
        reply_budget_(options.max_pending_reply_bytes),
        cache_(cluster, absl::Milliseconds(options.rpc_timeout_ms), options.limits.max_tensor_bytes),
        worker_(job, task, &cache_, options.limits, options.intra_op_threads, options.inter_op_threads,
                options.file_access_root),
        master_(cluster, job, task, &cache_, &worker_, options.limits, options.session_gc_seconds),
        worker_service_(&worker_, &master_, &reply_budget_),
        master_service_(&master_, &reply_budget_),
        tf_master_(&master_, job, task),
        tf_master_service_(&tf_master_, &reply_budget_),
        collective_(std::make_shared<CollectiveRpc>(cluster, job, task, absl::Milliseconds(options.rpc_timeout_ms))) {
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
    collective_->SetClientCredentials(MakeClientCredentials(security));
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
    // No request needs more than the largest graph or tensor it may carry (and a little for
    // the rest): a bigger one is refused before it is decoded, not after.
    builder.SetMaxReceiveMessageSize(static_cast<int>(std::min<int64_t>(
        kMaxMessageBytes, std::max(limits_.max_graph_bytes, limits_.max_tensor_bytes) + (int64_t{16} << 20))));
    builder.SetMaxSendMessageSize(kMaxMessageBytes);
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    interceptors.push_back(MakeParseErrorInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
    builder.RegisterService(&worker_service_);
    builder.RegisterService(&master_service_);
    builder.RegisterCallbackGenericService(&tf_master_service_);  // TensorFlow's clients (tf_master_service.h).
    builder.RegisterService(collective_->service());              // Collective ops (collective_rpc.h).
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || bound_port == 0) {
      server_.reset();
      return absl::UnavailableError(absl::StrCat("cannot listen on ", address_,
                                                 " (is the port already in use, or the host not local?)"));
    }
    RegisterCollectiveRuntime(collective_->task_name(), collective_);
    return absl::OkStatus();
  }

  void Join() override { stopped_.WaitForNotification(); }

  void Stop() override {
    UnregisterCollectiveRuntime(collective_->task_name(), collective_.get());
    collective_->Shutdown();
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
      server_.reset();
    }
    if (!stopped_.HasBeenNotified()) stopped_.Notify();
  }

  std::string target() const override { return "grpc://" + address_; }

 private:
  const std::string address_;
  const ResourceLimits limits_;
  ReplyBudget reply_budget_;  // Before the services that use it.
  GrpcWorkerCache cache_;
  Worker worker_;
  Master master_;
  WorkerServiceImpl worker_service_;
  MasterServiceImpl master_service_;
  TfMasterAdapter tf_master_;
  TfMasterService tf_master_service_;
  std::shared_ptr<CollectiveRpc> collective_;  // Shared: a running collective holds it too.
  std::unique_ptr<grpc::Server> server_;
  absl::Notification stopped_;
  TransportSecurity security_;  // Files read by Start().
  bool insecure_allow_remote_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Server>> Server::Create(const ClusterSpec& cluster, const std::string& job, int task,
                                                 const ServerOptions& options) {
  TW_ASSIGN_OR_RETURN(std::string address, cluster.address(job, task));
  ServerOptions resolved = options;
  if (!options.file_access_root.empty()) {
    TW_ASSIGN_OR_RETURN(resolved.file_access_root, CanonicalFileAccessRoot(options.file_access_root));
  }
  return std::unique_ptr<Server>(new GrpcServer(cluster, job, task, address, resolved));
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
