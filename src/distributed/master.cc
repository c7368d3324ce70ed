#include "distributed/master.h"


#include <atomic>

#include "absl/cleanup/cleanup.h"
#include "absl/random/random.h"
#include "absl/synchronization/blocking_counter.h"
#include "absl/strings/str_cat.h"
#include "graph/device_name.h"
#include "graph/graph_def_import.h"
#include "runtime/partitioner.h"
#include "runtime/placer.h"
#include "runtime/subgraph.h"
#include "tensor/tensor_proto.h"

namespace tw {
namespace {

DeviceName CpuOf(const std::string& job, int task) {
  DeviceName d;
  d.has_job = d.has_replica = d.has_task = d.has_type = d.has_id = true;
  d.job = job;
  d.task = task;
  d.type = "CPU";
  return d;
}

std::vector<int> SlotIndexes(const GraphDef& def, const std::string& op) {
  std::vector<int> indexes;
  for (const NodeDef& n : def.node()) {
    if (n.op() == op) indexes.push_back(static_cast<int>(n.attr().at("index").i()));
  }
  return indexes;
}

}  // namespace

class MasterSession {
 public:
  MasterSession(std::string handle, const ClusterSpec& cluster, const std::string& job, int task,
                WorkerCache* workers, ThreadPool* rpc_pool, StepWatcher* watcher, SessionConfigProto config,
                const ResourceLimits& limits)
      : handle_(std::move(handle)),
        limits_(limits),
        workers_(workers),
        rpc_pool_(rpc_pool),
        watcher_(watcher),
        config_(std::move(config)),
        default_device_(CpuOf(job, task)) {
    for (const auto& [j, tasks] : cluster.job_tasks())
      for (const auto& [t, address] : tasks) devices_.push_back(CpuOf(j, t));
  }

  absl::Status Extend(const GraphDef& def) {
    absl::MutexLock lock(&mu_);
    return ImportGraphDef(def, &graph_, limits_);
  }

  absl::Status Run(const RunStepRequest& req, RunStepResponse* resp, const std::function<bool()>& client_gone) {
    FeedList feeds;
    for (const NamedTensor& f : req.feed()) {
      auto t = TensorFromProto(f.tensor(), limits_.max_tensor_bytes);
      if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("feed '", f.name(), "': ", t.status().message()));
      feeds.emplace_back(f.name(), *std::move(t));
    }
    std::vector<std::string> fetches(req.fetch().begin(), req.fetch().end());
    std::vector<std::string> targets(req.target().begin(), req.target().end());
    if (fetches.empty() && targets.empty()) {
      return absl::InvalidArgumentError("nothing to run: give at least one fetch or target");
    }
    TW_ASSIGN_OR_RETURN(RunSignature sig, CanonicalizeRun(feeds, fetches, targets));
    TW_ASSIGN_OR_RETURN(Prepared * prepared, GetOrPrepare(sig));
    TW_RETURN_IF_ERROR(ValidateFeeds(sig, prepared->pruned));
    return RunParts(*prepared, sig, resp, client_gone);
  }

  // Cancels the steps still running, as closing a TensorFlow session does (each task
  // aborts its part, so ops waiting there — a dequeue, a take_grad — end now), then
  // deregisters every partition this session registered (tasks that are down are skipped).
  void Close() {
    std::vector<std::shared_ptr<StepParts>> running;
    {
      absl::MutexLock lock(&running_mu_);
      closed_ = true;
      for (const auto& [step_id, step] : running_) running.push_back(step);
    }
    for (const auto& step : running) step->Abort();
    absl::MutexLock lock(&mu_);
    for (const auto& [key, prepared] : prepared_) {
      for (const Part& part : prepared->parts) {
        DeregisterGraphRequest req;
        req.set_session_handle(handle_);
        req.set_graph_handle(part.graph_handle);
        DeregisterGraphResponse ignored;
        part.worker->DeregisterGraph(req, &ignored).IgnoreError();
      }
    }
    prepared_.clear();
  }

 private:
  struct Part {
    std::string task;  // "/job:x/replica:0/task:n", for messages.
    WorkerInterface* worker;
    bool in_process = false;  // This task's own worker, called directly.
    std::string graph_handle;
    std::vector<int> args, rets;
  };
  struct Prepared {
    PrunedGraph pruned;
    std::vector<Part> parts;
  };

  absl::StatusOr<uint64_t> Incarnation(const DeviceName& device) {
    const std::string key = absl::StrCat(device.job, ":", device.task);
    auto it = incarnations_.find(key);
    if (it != incarnations_.end()) return it->second;
    TW_ASSIGN_OR_RETURN(WorkerInterface * worker, workers_->GetWorker(device.job, device.task));
    GetStatusResponse status;
    TW_RETURN_IF_ERROR(worker->GetStatus({}, &status));
    return incarnations_[key] = static_cast<uint64_t>(status.incarnation());
  }

  absl::StatusOr<Prepared*> GetOrPrepare(const RunSignature& sig) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    auto it = prepared_.find(sig.Key());
    if (it != prepared_.end()) return it->second.get();
    auto prepared = std::make_unique<Prepared>();
    TW_ASSIGN_OR_RETURN(prepared->pruned, BuildPrunedGraph(graph_, sig));
    FlowGraph& sub = *prepared->pruned.graph;
    PlacerOptions placer;
    placer.allow_soft_placement = config_.allow_soft_placement();
    placer.log_device_placement = config_.log_device_placement();
    TW_RETURN_IF_ERROR(PlaceGraph(sub, devices_, default_device_, placer));
    absl::Status incarnation_error;
    PartitionOptions options;
    options.incarnation = [&](const std::string& device) -> uint64_t {
      auto parsed = DeviceName::Parse(device);
      auto inc = Incarnation(*parsed);
      if (!inc.ok() && incarnation_error.ok()) incarnation_error = inc.status();
      return inc.ok() ? *inc : 0;
    };
    TW_ASSIGN_OR_RETURN(auto parts, Partition(sub, options));
    TW_RETURN_IF_ERROR(incarnation_error);
    for (auto& [device, def] : parts) {
      DeviceName d = *DeviceName::Parse(device);
      Part part;
      part.task = absl::StrCat("/job:", d.job, "/replica:0/task:", d.task);
      TW_ASSIGN_OR_RETURN(part.worker, workers_->GetWorker(d.job, d.task));
      part.in_process = workers_->IsInProcess(d.job, d.task);
      RegisterGraphRequest reg;
      reg.set_session_handle(handle_);
      *reg.mutable_graph_def() = def;
      RegisterGraphResponse reg_resp;
      TW_RETURN_IF_ERROR(part.worker->RegisterGraph(reg, &reg_resp));
      part.graph_handle = reg_resp.graph_handle();
      part.args = SlotIndexes(def, "_Arg");
      part.rets = SlotIndexes(def, "_Retval");
      prepared->parts.push_back(std::move(part));
    }
    return (prepared_[sig.Key()] = std::move(prepared)).get();
  }

  // The workers of a running step, shared with callbacks that may abort it after
  // RunParts returned.
  struct StepParts {
    int64_t step_id = 0;
    std::vector<WorkerInterface*> workers;
    std::atomic<bool> aborted{false};

    void Cleanup() const {
      CleanupGraphRequest cleanup;
      cleanup.set_step_id(step_id);
      for (WorkerInterface* worker : workers) {
        CleanupGraphResponse ignored;
        worker->CleanupGraph(cleanup, &ignored).IgnoreError();
      }
    }
    // Releases every task, some of which may wait for tensors a failed one will never send.
    void Abort() {
      if (!aborted.exchange(true)) Cleanup();
    }
    // Keeps the error that explains the step's failure: the first one, unless it only
    // followed from the abort (Cancelled, or Aborted for a part that started late).
    void RecordError(const absl::Status& s) {
      auto follows_abort = [](const absl::Status& e) { return absl::IsCancelled(e) || absl::IsAborted(e); };
      absl::MutexLock lock(&mu);
      if (first_error.ok() || (follows_abort(first_error) && !follows_abort(s))) first_error = s;
    }

    absl::Status error() {
      absl::MutexLock lock(&mu);
      return first_error;
    }

    absl::Mutex mu;
    absl::Status first_error ABSL_GUARDED_BY(mu);
  };

  absl::Status RunParts(const Prepared& prepared, const RunSignature& sig, RunStepResponse* resp,
                        const std::function<bool()>& client_gone) {
    const size_t n = prepared.parts.size();
    auto step = std::make_shared<StepParts>();
    step->step_id = absl::Uniform<int64_t>(absl::BitGen(), 1, INT64_MAX);
    for (const Part& part : prepared.parts) step->workers.push_back(part.worker);
    {
      absl::MutexLock lock(&running_mu_);
      if (closed_) return absl::CancelledError(absl::StrCat("session '", handle_, "' is closed"));
      running_[step->step_id] = step;
    }
    struct Unregister {
      MasterSession* self;
      int64_t step_id;
      ~Unregister() {
        absl::MutexLock lock(&self->running_mu_);
        self->running_.erase(step_id);
      }
    } unregister{this, step->step_id};
    std::vector<RunGraphRequest> requests(n);
    std::vector<RunGraphResponse> responses(n);
    for (size_t i = 0; i < n; ++i) {
      const Part& part = prepared.parts[i];
      RunGraphRequest& req = requests[i];
      req.set_session_handle(handle_);
      req.set_graph_handle(part.graph_handle);
      req.set_step_id(step->step_id);
      for (int a : part.args) {
        NamedTensor* t = req.add_send();
        t->set_name(absl::StrCat("arg:", a));
        *t->mutable_tensor() = TensorToProto(*sig.feed_values[a]);
      }
      for (int r : part.rets) req.add_recv_key(absl::StrCat("ret:", r));
    }
    const StepWatcher::Id watch = client_gone ? watcher_->Watch(client_gone, [step] { step->Abort(); }) : 0;
    absl::BlockingCounter pending(static_cast<int>(n));
    ThreadPool* pool = rpc_pool_;
    auto part_done = [&pending, step, pool](const absl::Status& s) {
      if (!s.ok()) {
        step->RecordError(s);
        // Aborting makes blocking calls: not on a gRPC callback thread.
        pool->Schedule([step] { step->Abort(); });
      }
      pending.DecrementCount();
    };
    // Remote parts start without blocking; parts on this task's own worker run here (all
    // but the last on pool threads, as they may exchange tensors).
    std::vector<size_t> in_process;
    for (size_t i = 0; i < n; ++i) {
      if (prepared.parts[i].in_process) {
        in_process.push_back(i);
      } else {
        prepared.parts[i].worker->RunGraphAsync(&requests[i], &responses[i],
                                                [&part_done](const absl::Status& s) { part_done(s); });
      }
    }
    for (size_t k = 0; k < in_process.size(); ++k) {
      const size_t i = in_process[k];
      auto run = [&, i] { part_done(prepared.parts[i].worker->RunGraph(requests[i], &responses[i])); };
      if (k + 1 == in_process.size()) {
        run();
      } else {
        rpc_pool_->Schedule(run);
      }
    }
    pending.Wait();
    if (watch != 0) watcher_->Unwatch(watch);
    if (client_gone && client_gone()) return absl::CancelledError("the client went away during the step");
    // A finished step's state is released off the critical path; a failed one's at once.
    if (step->aborted) {
      step->Cleanup();
    } else {
      rpc_pool_->Schedule([step] { step->Cleanup(); });
    }
    TW_RETURN_IF_ERROR(step->error());
    std::vector<const TensorProto*> fetched(sig.fetches.size(), nullptr);
    for (const RunGraphResponse& r : responses) {
      for (const NamedTensor& t : r.recv()) fetched[std::stoi(t.name().substr(4))] = &t.tensor();
    }
    for (size_t j = 0; j < fetched.size(); ++j) {
      if (fetched[j] == nullptr) return absl::InternalError(absl::StrCat("fetch '", sig.fetches[j], "' was not returned"));
      NamedTensor* out = resp->add_tensor();
      out->set_name(sig.fetches[j]);
      *out->mutable_tensor() = *fetched[j];
    }
    return absl::OkStatus();
  }

  const std::string handle_;
  const ResourceLimits limits_;
  WorkerCache* workers_;
  ThreadPool* rpc_pool_;
  StepWatcher* watcher_;
  const SessionConfigProto config_;
  const DeviceName default_device_;
  std::vector<DeviceName> devices_;
  absl::Mutex mu_;
  FlowGraph graph_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<Prepared>> prepared_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, uint64_t> incarnations_;
  absl::Mutex running_mu_;
  bool closed_ ABSL_GUARDED_BY(running_mu_) = false;
  // Steps in flight -> the tasks running their parts.
  absl::flat_hash_map<int64_t, std::shared_ptr<StepParts>> running_ ABSL_GUARDED_BY(running_mu_);
};

Master::Master(ClusterSpec cluster, std::string job, int task, WorkerCache* workers, const ResourceLimits& limits)
    : cluster_(std::move(cluster)), job_(std::move(job)), task_(task), workers_(workers), limits_(limits) {}

Master::~Master() = default;

absl::StatusOr<std::shared_ptr<MasterSession>> Master::Find(const std::string& handle) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat("session '", handle, "' does not exist (closed or never created)"));
  }
  return it->second;
}

absl::Status Master::CreateSession(const CreateSessionRequest& req, CreateSessionResponse* resp) {
  std::string handle;
  {
    absl::MutexLock lock(&mu_);
    handle = absl::StrCat("s", next_session_++, "_", absl::Hex(absl::Uniform<uint32_t>(absl::BitGen())));
  }
  auto session = std::make_shared<MasterSession>(handle, cluster_, job_, task_, workers_, &rpc_pool_,
                                                 &watcher_, req.config(), limits_);
  TW_RETURN_IF_ERROR(session->Extend(req.graph_def()));
  absl::MutexLock lock(&mu_);
  sessions_[handle] = std::move(session);
  resp->set_session_handle(handle);
  return absl::OkStatus();
}

absl::Status Master::ExtendSession(const ExtendSessionRequest& req, ExtendSessionResponse* resp) {
  TW_ASSIGN_OR_RETURN(auto session, Find(req.session_handle()));
  return session->Extend(req.graph_def());
}

absl::Status Master::RunStep(const RunStepRequest& req, RunStepResponse* resp,
                             const std::function<bool()>& client_gone) {
  TW_ASSIGN_OR_RETURN(auto session, Find(req.session_handle()));
  // Counted before any work: a flood of steps is refused instead of queueing threads.
  const int64_t running = running_steps_.fetch_add(1) + 1;
  absl::Cleanup done = [this] { running_steps_.fetch_sub(1); };
  if (running > limits_.max_concurrent_steps) {
    return absl::ResourceExhaustedError(absl::StrCat("step refused: ", running - 1, " steps are running, the max_concurrent_steps limit is ",
                                                     limits_.max_concurrent_steps));
  }
  return session->Run(req, resp, client_gone);
}

absl::Status Master::CloseSession(const CloseSessionRequest& req, CloseSessionResponse*) {
  std::shared_ptr<MasterSession> session;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(req.session_handle());
    if (it == sessions_.end()) return absl::OkStatus();
    session = std::move(it->second);
    sessions_.erase(it);
  }
  session->Close();
  return absl::OkStatus();
}

absl::Status Master::ListDevices(const ListDevicesRequest&, ListDevicesResponse* resp) {
  for (const auto& [j, tasks] : cluster_.job_tasks())
    for (const auto& [t, address] : tasks) resp->add_device(CpuOf(j, t).ToString());
  return absl::OkStatus();
}

absl::Status Master::Reset(const ResetRequest& req, ResetResponse*) {
  for (const auto& [j, tasks] : cluster_.job_tasks()) {
    for (const auto& [t, address] : tasks) {
      TW_ASSIGN_OR_RETURN(WorkerInterface * worker, workers_->GetWorker(j, t));
      CleanupAllRequest cleanup;
      *cleanup.mutable_container() = req.container();
      CleanupAllResponse ignored;
      TW_RETURN_IF_ERROR(worker->CleanupAll(cleanup, &ignored));
    }
  }
  return absl::OkStatus();
}

}  // namespace tw
