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
// (served to other tasks by RecvTensor); tensors sent by another task are pulled from it.
class StepRendezvous : public Rendezvous {
 public:
  StepRendezvous(int64_t step_id, std::string task_name, WorkerCache* cache)
      : step_id_(step_id), task_prefix_(std::move(task_name) + "/"), cache_(cache) {}

  absl::Status Send(const std::string& key, const Tensor& value) override { return local_.Send(key, value); }

  void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) override {
    const std::string src_device = key.substr(0, key.find(';'));
    if (absl::StartsWith(src_device, task_prefix_)) {
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

  LocalRendezvous& local() { return local_; }
  CancellationManager& cancellation() { return cancellation_; }

 private:
  const int64_t step_id_;
  const std::string task_prefix_;
  WorkerCache* cache_;
  LocalRendezvous local_;
  CancellationManager cancellation_;
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

Worker::Worker(const std::string& job, int task, WorkerCache* cache, const ResourceLimits& limits)
    : job_(job),
      task_(task),
      task_name_(absl::StrCat("/job:", job, "/replica:0/task:", task)),
      incarnation_(absl::Uniform<uint64_t>(absl::BitGen(), 1, UINT64_MAX)),
      cache_(cache),
      limits_(limits),
      devices_(DeviceMgr::CreateLocal(job, task)),
      inter_op_pool_(std::make_unique<ThreadPool>("worker_inter_op", 0)) {}

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

std::shared_ptr<StepRendezvous> Worker::StepFor(int64_t step_id) {
  absl::MutexLock lock(&mu_);
  if (finished_.contains(step_id)) return nullptr;
  auto& step = steps_[step_id];
  if (step == nullptr) step = std::make_shared<StepRendezvous>(step_id, task_name_, cache_);
  return step;
}

absl::Status Worker::RunGraph(const RunGraphRequest& req, RunGraphResponse* resp) {
  std::shared_ptr<Registered> graph;
  {
    absl::MutexLock lock(&mu_);
    auto it = graphs_.find(req.graph_handle());
    if (it == graphs_.end()) {
      // As TF: Aborted, since the usual cause is a restart that lost the registration;
      // the client re-creates its session (MonitoredTrainingSession does).
      return absl::AbortedError(absl::StrCat("task ", task_name_, " has no graph '", req.graph_handle(),
                                             "' (possibly the task restarted)"));
    }
    graph = it->second;
  }
  CallFrame frame;
  frame.args.resize(graph->num_args);
  frame.rets.resize(graph->num_rets);
  for (const NamedTensor& feed : req.send()) {
    TW_ASSIGN_OR_RETURN(int index, IndexFromName(feed.name(), "arg:", graph->num_args));
    TW_ASSIGN_OR_RETURN(frame.args[index], TensorFromProto(feed.tensor(), limits_.max_tensor_bytes));
  }
  std::shared_ptr<StepRendezvous> step = StepFor(req.step_id());
  if (step == nullptr) return absl::AbortedError(absl::StrCat("step ", req.step_id(), " already finished"));
  Executor::Args args;
  args.step_id = req.step_id();
  args.call_frame = &frame;
  args.cancellation = &step->cancellation();
  args.rendezvous = step.get();
  absl::Status s = graph->executor->Run(args);
  if (!s.ok()) {
    step->StartAbort(s);
    return absl::Status(s.code(), absl::StrCat(s.message(), " (on task ", task_name_, ")"));
  }
  for (const std::string& key : req.recv_key()) {
    TW_ASSIGN_OR_RETURN(int index, IndexFromName(key, "ret:", graph->num_rets));
    NamedTensor* out = resp->add_recv();
    out->set_name(key);
    *out->mutable_tensor() = TensorToProto(frame.rets[index]);
  }
  return absl::OkStatus();
}

void Worker::RecvTensorAsync(const RecvTensorRequest& req, CancellationManager* cancellation,
                             RecvTensorDone done) {
  std::shared_ptr<StepRendezvous> step = StepFor(req.step_id());
  if (step == nullptr) {
    done(absl::AbortedError(absl::StrCat("step ", req.step_id(), " already finished on task ", task_name_)),
         Tensor());
    return;
  }
  // Waits in the step's table until the tensor is sent, the step ends (CleanupGraph aborts
  // it) or the caller cancels (e.g. its deadline passed).
  step->local().RecvAsync(req.rendezvous_key(), cancellation, std::move(done));
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
