#include "distributed/worker.h"


#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/device_name.h"
#include "graph/graph_def_import.h"
#include "runtime/local_rendezvous.h"
#include "tensor/tensor_proto.h"

namespace tw {

// The rendezvous of one step on this task: tensors sent here wait in a local table
// (served to other tasks by RecvTensor); tensors sent by another task are pulled from it,
// unless the master said it delivers them (then they arrive in the local table).
class StepRendezvous : public Rendezvous {
 public:
  StepRendezvous(int64_t step_id, std::string task_name, WorkerCache* cache)
      : step_id_(step_id), task_prefix_(std::move(task_name) + "/"), cache_(cache) {}

  absl::Status Send(const std::string& key, const Tensor& value) override { return local_.Send(key, value); }

  void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) override {
    const std::string src_device = key.substr(0, key.find(';'));
    if (absl::StartsWith(src_device, task_prefix_) || IsDelivered(key)) {
      local_.RecvAsync(key, cancellation, std::move(done));
      return;
    }
    auto src = DeviceName::Parse(src_device);
    if (!src.ok() || !src->has_job || !src->has_task) {
      done(absl::InternalError(absl::StrCat("bad source device in rendezvous key '", key, "'")), Tensor());
      return;
    }
    auto worker = cache_->GetWorker(src->job, src->task);
    if (!worker.ok()) {
      done(worker.status(), Tensor());
      return;
    }
    RecvTensorRequest req;
    req.set_step_id(step_id_);
    req.set_rendezvous_key(key);
    (*worker)->RecvTensorAsync(req, cancellation, std::move(done));
  }

  void StartAbort(const absl::Status& status) override {
    local_.StartAbort(status);
    cancellation_.StartCancel();
  }

  void ExpectDelivered(const std::string& key) {
    absl::MutexLock lock(&delivered_mu_);
    delivered_.insert(key);
  }
  bool IsDelivered(const std::string& key) {
    absl::MutexLock lock(&delivered_mu_);
    return delivered_.contains(key);
  }

  LocalRendezvous& local() { return local_; }
  int running_graphs = 0;  // RunGraph calls of this step still running; guarded by Worker::mu_.
  CancellationManager& cancellation() { return cancellation_; }

 private:
  const int64_t step_id_;
  const std::string task_prefix_;
  WorkerCache* cache_;
  LocalRendezvous local_;
  CancellationManager cancellation_;
  absl::Mutex delivered_mu_;
  absl::flat_hash_set<std::string> delivered_ ABSL_GUARDED_BY(delivered_mu_);
};

struct Worker::Registered {
  std::unique_ptr<Executor> executor;
  int num_args = 0;
  int num_rets = 0;
};

namespace {

// "arg:3" -> 3; the master names feeds and fetches by their _Arg/_Retval index.
absl::StatusOr<int> IndexFromName(const std::string& name, const char* prefix, int limit) {
  int index;
  if (!absl::StartsWith(name, prefix) || !absl::SimpleAtoi(name.substr(strlen(prefix)), &index) ||
      index < 0 || index >= limit) {
    return absl::InvalidArgumentError(absl::StrCat("'", name, "' names no ", prefix, "N slot of this graph"));
  }
  return index;
}

}  // namespace

Worker::Worker(const std::string& job, int task, WorkerCache* cache, const ResourceLimits& limits,
               int intra_op_threads, int inter_op_threads)
    : job_(job),
      task_(task),
      task_name_(absl::StrCat("/job:", job, "/replica:0/task:", task)),
      incarnation_(absl::Uniform<uint64_t>(absl::BitGen(), 1, UINT64_MAX)),
      cache_(cache),
      limits_(limits),
      devices_(DeviceMgr::CreateLocal(job, task, intra_op_threads)),
      inter_op_pool_(std::make_unique<ThreadPool>("worker_inter_op", inter_op_threads)) {}

Worker::~Worker() {
  absl::MutexLock lock(&mu_);
  for (auto& [id, step] : steps_) step->StartAbort(absl::CancelledError("worker shutting down"));
}

absl::Status Worker::GetStatus(const GetStatusRequest&, GetStatusResponse* resp) {
  for (const std::string& d : devices_->DeviceNames()) resp->add_device(d);
  resp->set_incarnation(static_cast<int64_t>(incarnation_));
  absl::MutexLock lock(&mu_);
  resp->set_active_steps(static_cast<int64_t>(steps_.size()));
  resp->set_registered_graphs(static_cast<int64_t>(graphs_.size()));
  return absl::OkStatus();
}

absl::Status Worker::RegisterGraph(const RegisterGraphRequest& req, RegisterGraphResponse* resp) {
  FlowGraph graph;
  TW_RETURN_IF_ERROR(ImportGraphDef(req.graph_def(), &graph, limits_));
  Device* device = nullptr;
  auto registered = std::make_shared<Registered>();
  for (Node* n : graph.nodes()) {
    Device* d = devices_->Find(n->requested_device());
    if (d == nullptr || (device != nullptr && d != device)) {
      return NodeError(n->name(), n->op(), absl::InvalidArgumentError(absl::StrCat(
                                               "device '", n->requested_device(), "' is not the one device of ",
                                               "this partition on task ", task_name_)));
    }
    device = d;
    n->set_assigned_device(d->name());
    if (n->op() == "_Arg") registered->num_args = std::max<int>(registered->num_args, *GetIntAttr(n->attrs(), "index") + 1);
    if (n->op() == "_Retval") registered->num_rets = std::max<int>(registered->num_rets, *GetIntAttr(n->attrs(), "index") + 1);
  }
  if (device == nullptr) device = devices_->default_device();
  ExecutorOptions options;
  options.device = device;
  options.inter_op_pool = inter_op_pool_.get();
  options.max_tensor_bytes = limits_.max_tensor_bytes;
  TW_ASSIGN_OR_RETURN(registered->executor, Executor::Create(graph, std::move(options)));
  absl::MutexLock lock(&mu_);
  std::string handle = absl::StrCat(req.session_handle(), "/g", next_graph_++);
  graphs_[handle] = std::move(registered);
  resp->set_graph_handle(handle);
  return absl::OkStatus();
}

absl::Status Worker::DeregisterGraph(const DeregisterGraphRequest& req, DeregisterGraphResponse*) {
  absl::MutexLock lock(&mu_);
  // Steps running it keep their own reference; it goes when they finish.
  if (graphs_.erase(req.graph_handle()) == 0) {
    return absl::NotFoundError(absl::StrCat("task ", task_name_, " has no graph '", req.graph_handle(), "'"));
  }
  return absl::OkStatus();
}

std::shared_ptr<StepRendezvous> Worker::StepFor(int64_t step_id, bool for_graph) {
  absl::MutexLock lock(&mu_);
  if (finished_.contains(step_id)) return nullptr;
  auto& step = steps_[step_id];
  if (step == nullptr) step = std::make_shared<StepRendezvous>(step_id, task_name_, cache_);
  if (for_graph) ++step->running_graphs;
  return step;
}

// A step whose partitions here are done and whose sent tensors were all received needs
// nothing more on this task: every successful step ends so, without a CleanupGraph call.
// (A failed one is cleaned up by the master, which also marks it finished.)
void Worker::ForgetIfDone(int64_t step_id, bool graph_finished) {
  absl::MutexLock lock(&mu_);
  auto it = steps_.find(step_id);
  if (it == steps_.end()) return;
  StepRendezvous& step = *it->second;
  if (graph_finished) --step.running_graphs;
  if (step.running_graphs == 0 && step.local().Empty()) steps_.erase(it);
}

// What one RunGraph keeps until its partition finished.
struct Worker::RunningGraph {
  std::shared_ptr<Registered> graph;
  std::shared_ptr<StepRendezvous> step;
  CallFrame frame;
  // Per recv_key of the request: its _Retval index, or -1 for a rendezvous key.
  std::vector<int> fetched_rets;
  Executor::Args args;
};

absl::StatusOr<std::unique_ptr<Worker::RunningGraph>> Worker::StartRunning(const RunGraphRequest& req) {
  auto run = std::make_unique<RunningGraph>();
  {
    absl::MutexLock lock(&mu_);
    auto it = graphs_.find(req.graph_handle());
    if (it == graphs_.end()) {
      // As TF: Aborted, since the usual cause is a restart that lost the registration;
      // the client re-creates its session (MonitoredTrainingSession does).
      return absl::AbortedError(absl::StrCat("task ", task_name_, " has no graph '", req.graph_handle(),
                                             "' (possibly the task restarted)"));
    }
    run->graph = it->second;
  }
  run->frame.args.resize(run->graph->num_args);
  run->frame.rets.resize(run->graph->num_rets);
  for (const NamedTensor& feed : req.send()) {
    TW_ASSIGN_OR_RETURN(int index, IndexFromName(feed.name(), "arg:", run->graph->num_args));
    TW_ASSIGN_OR_RETURN(run->frame.args[index], TensorFromProto(feed.tensor(), limits_.max_tensor_bytes));
  }
  for (const std::string& key : req.recv_key()) {
    if (absl::StartsWith(key, "ret:")) {
      TW_ASSIGN_OR_RETURN(int index, IndexFromName(key, "ret:", run->graph->num_rets));
      run->fetched_rets.push_back(index);
    } else if (absl::StartsWith(key, task_name_ + "/")) {
      run->fetched_rets.push_back(-1);  // A tensor this partition sends, returned to the master.
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("recv_key '", key, "' is neither ret:N nor a tensor sent by task ", task_name_));
    }
  }
  for (const std::string& key : req.master_delivered_key()) {
    if (absl::StartsWith(key, task_name_ + "/") || key.find(';') == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("master_delivered_key '", key, "' does not name a tensor sent by another task"));
    }
  }
  run->step = StepFor(req.step_id(), /*for_graph=*/true);
  if (run->step == nullptr) return absl::AbortedError(absl::StrCat("step ", req.step_id(), " already finished"));
  for (const std::string& key : req.master_delivered_key()) run->step->ExpectDelivered(key);
  run->args.step_id = req.step_id();
  run->args.call_frame = &run->frame;
  run->args.cancellation = &run->step->cancellation();
  run->args.rendezvous = run->step.get();
  return run;
}

void Worker::RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp,
                           std::function<void(const absl::Status&)> done) {
  auto started = StartRunning(*req);
  if (!started.ok()) {
    done(started.status());
    return;
  }
  RunningGraph* run = started->release();
  run->graph->executor->RunAsync(run->args, [this, run, req, resp, done = std::move(done)](absl::Status s) {
    std::unique_ptr<RunningGraph> finished(run);
    for (int i = 0; s.ok() && i < req->recv_key_size(); ++i) {
      const int ret = finished->fetched_rets[i];
      absl::StatusOr<Tensor> value =
          ret >= 0 ? finished->frame.rets[ret] : finished->step->local().TakeSent(req->recv_key(i));
      if (!value.ok()) {
        s = value.status();
        break;
      }
      NamedTensor* out = resp->add_recv();
      out->set_name(req->recv_key(i));
      *out->mutable_tensor() = TensorToProto(*value);
    }
    if (!s.ok()) {
      finished->step->StartAbort(s);
      s = absl::Status(s.code(), absl::StrCat(s.message(), " (on task ", task_name_, ")"));
    }
    ForgetIfDone(req->step_id(), /*graph_finished=*/true);
    done(s);
  });
}

void Worker::Deliver(int64_t step_id, const std::string& key, const Tensor& value) {
  std::shared_ptr<StepRendezvous> step = StepFor(step_id, /*for_graph=*/false);
  // A finished or failed step has no use for it.
  if (step != nullptr) step->Send(key, value).IgnoreError();
}

void Worker::RecvTensorAsync(const RecvTensorRequest& req, CancellationManager* cancellation,
                             RecvTensorDone done) {
  std::shared_ptr<StepRendezvous> step = StepFor(req.step_id(), /*for_graph=*/false);
  if (step == nullptr) {
    done(absl::AbortedError(absl::StrCat("step ", req.step_id(), " already finished on task ", task_name_)),
         Tensor());
    return;
  }
  // Waits in the step's table until the tensor is sent, the step ends (CleanupGraph aborts
  // it) or the caller cancels (e.g. its deadline passed).
  step->local().RecvAsync(req.rendezvous_key(), cancellation,
                          [this, step_id = req.step_id(), done = std::move(done)](const absl::Status& s, const Tensor& t) {
                            done(s, t);
                            ForgetIfDone(step_id, /*graph_finished=*/false);
                          });
}

absl::Status Worker::CleanupGraph(const CleanupGraphRequest& req, CleanupGraphResponse*) {
  std::shared_ptr<StepRendezvous> step;
  {
    absl::MutexLock lock(&mu_);
    if (finished_.insert(req.step_id()).second) {
      finished_order_.push_back(req.step_id());
      constexpr size_t kRemembered = 4096;
      if (finished_order_.size() > kRemembered) {
        finished_.erase(finished_order_.front());
        finished_order_.pop_front();
      }
    }
    auto it = steps_.find(req.step_id());
    if (it == steps_.end()) return absl::OkStatus();
    step = std::move(it->second);
    steps_.erase(it);
  }
  step->StartAbort(absl::CancelledError("step ended"));
  return absl::OkStatus();
}

absl::Status Worker::CleanupAll(const CleanupAllRequest& req, CleanupAllResponse*) {
  std::vector<std::string> containers(req.container().begin(), req.container().end());
  for (const auto& d : devices_->devices()) d->resource_mgr()->Clear(containers);
  return absl::OkStatus();
}

}  // namespace tw
