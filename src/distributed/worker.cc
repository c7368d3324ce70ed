#include "distributed/worker.h"

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/file_access.h"
#include "core/message_text.h"
#include "distributed/message_limits.h"
#include "distributed/step_slot_keys.h"
#include "graph/device_name.h"
#include "graph/graph_def_import.h"
#include "kernels/step_container.h"
#include "runtime/local_rendezvous.h"
#include "runtime/partitioner.h"
#include "runtime/step_stats_collector.h"
#include "tensor/tensor_proto.h"

namespace tw {

// The rendezvous of one step on this task: a local table. Tensors sent here wait in it
// (served to other tasks by RecvTensors); tensors sent by another task arrive in it,
// pulled by StartPulling or handed over by the master (master_delivered_key).
class StepRendezvous : public Rendezvous {
 public:
  absl::Status Send(const std::string& key, const Tensor& value) override { return local_.Send(key, value); }
  void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) override {
    std::function<void(const std::string&)> pull;
    if (Rendezvous::IsInFrame(key)) {
      absl::MutexLock lock(&pull_mu_);
      pull = pull_in_loop_;
    }
    if (pull) pull(key);
    local_.RecvAsync(key, cancellation, std::move(done));
  }
  // How a key inside a while loop is pulled from another task when its _Recv asks for it
  // (one key per iteration: not known up front). Set by every RunGraph whose graph has one.
  void SetLoopPuller(std::function<void(const std::string&)> pull) {
    absl::MutexLock lock(&pull_mu_);
    if (!pull_in_loop_) pull_in_loop_ = std::move(pull);
  }
  void StartAbort(const absl::Status& status) override {
    local_.StartAbort(status);
    cancellation_.StartCancel();
  }

  LocalRendezvous& local() { return local_; }
  int running_graphs = 0;  // RunGraph calls of this step still running; guarded by Worker::mu_.
  absl::Time last_used = absl::Now();  // The last call that touched the step; guarded by Worker::mu_.
  CancellationManager& cancellation() { return cancellation_; }

 private:
  LocalRendezvous local_;
  CancellationManager cancellation_;
  absl::Mutex pull_mu_;
  std::function<void(const std::string&)> pull_in_loop_ ABSL_GUARDED_BY(pull_mu_);
};

namespace {

// The tensors a partition receives from one other task in every step.
struct RemoteSource {
  std::string job;
  int task = 0;
  std::vector<std::string> keys;
};

// Adds the key of a _Recv node to the source task it receives from, unless that is this
// task (`own_task`, "/job:x/replica:0/task:n") or the _Recv is inside a while loop (then
// `pulls_in_loop` is set: its keys are pulled when asked for).
absl::Status AddRemoteSource(const Node& recv, const std::string& own_task, std::vector<RemoteSource>& sources,
                             bool* pulls_in_loop) {
  TW_ASSIGN_OR_RETURN(std::string send_device, GetStringAttr(recv.attrs(), "send_device"));
  if (absl::StartsWith(send_device, own_task + "/")) return absl::OkStatus();
  auto src = DeviceName::Parse(send_device);
  if (!src.ok() || !src->has_job || !src->has_task) {
    return NodeError(recv.name(), recv.op(), absl::InvalidArgumentError(absl::StrCat(
                                                 "send_device '", send_device, "' names no task")));
  }
  if (recv.attrs().contains(kFrameAttr)) {  // Inside a while loop: pulled per iteration.
    *pulls_in_loop = true;
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(std::string key, Rendezvous::KeyFromAttrs(recv.attrs()));
  for (RemoteSource& s : sources) {
    if (s.job == src->job && s.task == src->task) {
      s.keys.push_back(std::move(key));
      return absl::OkStatus();
    }
  }
  sources.push_back({src->job, src->task, {std::move(key)}});
  return absl::OkStatus();
}

// Pulls the keys of `pull` from `worker` into the step's table, where the receivers wait; a
// failed pull fails them with its error (which the step then reports; cancelling the step
// here could report "cancelled").
void PullInto(WorkerInterface* worker, std::shared_ptr<RecvTensorsRequest> pull,
              const std::shared_ptr<StepRendezvous>& step, const std::shared_ptr<std::atomic<int64_t>>& pulled_bytes) {
  const RecvTensorsRequest& request = *pull;
  worker->RecvTensorsAsync(
      request, &step->cancellation(),
      [step, pull, pulled_bytes](int i, const Tensor& t) {
        pulled_bytes->fetch_add(static_cast<int64_t>(t.TotalBytes()), std::memory_order_relaxed);
        step->Send(pull->rendezvous_key(i), t).IgnoreError();
      },
      [step](const absl::Status& s) {
        if (!s.ok()) step->local().StartAbort(s);
      });
}

}  // namespace

struct Worker::Registered {
  std::shared_ptr<LocalFunctionRuntime> functions;  // Null without a library; outlives the executor.
  std::unique_ptr<Executor> executor;
  Device* device = nullptr;  // Where it runs (its step's resources are cleared there).
  int num_args = 0;
  int num_rets = 0;
  // Per _Arg index: what a RunGraph must send for it.
  std::vector<DType> arg_types;
  std::vector<PartialShape> arg_shapes;
  std::vector<RemoteSource> remote_sources;
  bool pulls_in_loop = false;  // A _Recv inside a while loop receives from another task.
};

namespace {

// "arg:3" -> 3; the master names feeds and fetches by their _Arg/_Retval index.
absl::StatusOr<int> IndexFromName(const std::string& name, absl::string_view prefix, int limit) {
  int index;
  if (!ParseSlotKey(name, prefix, &index) || index >= limit) {
    return absl::InvalidArgumentError(absl::StrCat("'", name, "' names no ", prefix, "N slot of this graph"));
  }
  return index;
}

// The _Arg (or _Retval) nodes of a registered graph must hold the indexes 0..n-1, once
// each: RunGraph requests name their slots by these indexes, and the frame is sized by them.
// Returns the nodes by index.
absl::StatusOr<std::vector<const Node*>> SlotNodes(const FlowGraph& graph, const std::string& op) {
  std::vector<const Node*> by_index;
  for (const Node* n : graph.nodes()) {
    if (n->op() == op) by_index.push_back(nullptr);
  }
  for (const Node* n : graph.nodes()) {
    if (n->op() != op) continue;
    TW_ASSIGN_OR_RETURN(int64_t index, GetIntAttr(n->attrs(), "index"));
    if (index < 0 || index >= static_cast<int64_t>(by_index.size()) || by_index[index] != nullptr) {
      return NodeError(n->name(), n->op(), absl::InvalidArgumentError(absl::StrCat(
                                               "index ", index, " is out of range or repeated: the graph's ",
                                               by_index.size(), " ", op, " nodes must hold indexes 0..",
                                               by_index.size(), "-1 once each")));
    }
    by_index[index] = n;
  }
  return by_index;
}

}  // namespace

Worker::Worker(const std::string& job, int task, WorkerCache* cache, const ResourceLimits& limits,
               int intra_op_threads, int inter_op_threads, std::string file_access_root)
    : job_(job),
      task_(task),
      task_name_(absl::StrCat("/job:", job, "/replica:0/task:", task)),
      incarnation_(absl::Uniform<uint64_t>(absl::BitGen(), 1, UINT64_MAX)),
      cache_(cache),
      limits_(limits),
      file_access_root_(std::move(file_access_root)),
      devices_(DeviceMgr::CreateLocal(job, task, intra_op_threads)),
      inter_op_pool_(std::make_unique<ThreadPool>("worker_inter_op", inter_op_threads)) {
  // The kernels of this task's devices read it when they are built (core/file_access.h).
  for (const auto& d : devices_->devices()) SetFileAccessRoot(d->resource_mgr(), file_access_root_);
}

Worker::~Worker() {
  for (const auto& d : devices_->devices()) SetFileAccessRoot(d->resource_mgr(), "");
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
  // Graphs are held until their session deregisters them: a session names them, and
  // their number is capped, so a client cannot fill the task with them.
  if (req.session_handle().empty()) {
    return absl::InvalidArgumentError("RegisterGraph needs the session_handle of the session the graph belongs to");
  }
  {
    absl::MutexLock lock(&mu_);
    if (static_cast<int64_t>(graphs_.size()) >= limits_.max_registered_graphs) {
      return absl::ResourceExhaustedError(absl::StrCat("task ", task_name_, " already holds ", graphs_.size(),
                                                       " registered graphs, its limit (--max_registered_graphs)"));
    }
  }
  FlowGraph graph;
  TW_RETURN_IF_ERROR(ImportGraphDef(req.graph_def(), &graph, limits_, GraphSource::kPartitioner));
  Device* device = nullptr;
  auto registered = std::make_shared<Registered>();
  for (Node* n : graph.nodes()) {
    Device* d = devices_->Find(n->requested_device());
    if (d == nullptr) {
      return NodeError(n->name(), n->op(), absl::InvalidArgumentError(absl::StrCat(
                                               "device '", TruncateForMessage(n->requested_device()),
                                               "' is not the full name of a device of task ", task_name_,
                                               " (its devices: ", absl::StrJoin(devices_->DeviceNames(), ", "), ")")));
    }
    if (device != nullptr && d != device) {
      return NodeError(n->name(), n->op(), absl::InvalidArgumentError(absl::StrCat(
                                               "a registered graph runs on one device, but this node is on ", d->name(),
                                               " and the graph's other nodes on ", device->name())));
    }
    device = d;
    n->set_assigned_device(d->name());
    if (n->op() == "_Recv") {
      TW_RETURN_IF_ERROR(AddRemoteSource(*n, task_name_, registered->remote_sources, &registered->pulls_in_loop));
    }
  }
  TW_ASSIGN_OR_RETURN(std::vector<const Node*> args, SlotNodes(graph, "_Arg"));
  TW_ASSIGN_OR_RETURN(std::vector<const Node*> rets, SlotNodes(graph, "_Retval"));
  registered->num_args = static_cast<int>(args.size());
  registered->num_rets = static_cast<int>(rets.size());
  for (const Node* arg : args) {
    TW_ASSIGN_OR_RETURN(DType type, GetTypeAttr(arg->attrs(), "T"));
    TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(arg->attrs(), "shape"));
    registered->arg_types.push_back(type);
    registered->arg_shapes.push_back(std::move(shape));
  }
  if (device == nullptr) device = devices_->default_device();
  registered->device = device;
  ExecutorOptions options;
  options.device = device;
  options.inter_op_pool = inter_op_pool_.get();
  options.max_tensor_bytes = limits_.max_tensor_bytes;
  if (req.graph_def().library().function_size() > 0) {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<LocalFunctionRuntime>& functions = functions_[absl::StrCat(req.session_handle(), "|", device->name())];
    if (!functions) functions = std::make_shared<LocalFunctionRuntime>(device, limits_.max_tensor_bytes);
    TW_RETURN_IF_ERROR(functions->AddLibrary(req.graph_def().library()));
    registered->functions = functions;
    options.function_library = functions.get();
  }
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
  std::vector<std::shared_ptr<StepRendezvous>> idle;
  std::shared_ptr<StepRendezvous> found;
  {
    absl::MutexLock lock(&mu_);
    if (finished_.contains(step_id)) return nullptr;
    idle = TakeIdleSteps();
    auto& step = steps_[step_id];
    if (step == nullptr) step = std::make_shared<StepRendezvous>();
    if (for_graph) ++step->running_graphs;
    step->last_used = absl::Now();
    found = step;
  }
  for (auto& dropped : idle) {
    dropped->StartAbort(absl::DeadlineExceededError(absl::StrCat(
        "the step was idle on task ", task_name_, " for more than ", limits_.idle_step_timeout_ms,
        " ms (--idle_step_timeout_ms) and was dropped")));
  }
  return found;
}

// A step normally ends here when its sent tensors are all received (ForgetIfDone) or the
// master cleans it up; one whose tensors nobody takes would stay forever. Swept at most
// ten times per timeout, when a step is looked up (so an idle task keeps them a while).
std::vector<std::shared_ptr<StepRendezvous>> Worker::TakeIdleSteps() {
  std::vector<std::shared_ptr<StepRendezvous>> idle;
  const absl::Time now = absl::Now();
  if (now < next_idle_sweep_) return idle;
  const absl::Duration timeout = absl::Milliseconds(limits_.idle_step_timeout_ms);
  next_idle_sweep_ = now + timeout / 10;
  for (auto it = steps_.begin(); it != steps_.end();) {
    auto next = std::next(it);
    if (it->second->running_graphs == 0 && now - it->second->last_used > timeout) {
      idle.push_back(std::move(it->second));
      steps_.erase(it);
    }
    it = next;
  }
  return idle;
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
  step.last_used = absl::Now();
  if (step.running_graphs == 0 && step.local().Empty()) steps_.erase(it);
}

// What one RunGraph keeps until its partition finished.
struct Worker::RunningGraph {
  std::shared_ptr<Registered> graph;
  std::shared_ptr<StepRendezvous> step;
  CallFrame frame;
  // The request's distinct recv_keys (a repeated one is returned once), each with its
  // _Retval index, or -1 for a rendezvous key.
  std::vector<std::pair<std::string, int>> outputs;
  Executor::Args args;
  // The caller's cancellation and this run's callback in it (kInvalidToken: none).
  CancellationManager* caller = nullptr;
  CancellationManager::Token caller_token = CancellationManager::kInvalidToken;
  // Payload bytes pulled from other tasks for this run (RunGraphResponse.tensor_bytes_pulled).
  std::shared_ptr<std::atomic<int64_t>> pulled_bytes = std::make_shared<std::atomic<int64_t>>(0);
  std::unique_ptr<StepStatsCollector> stats;  // A traced step's (record_step_stats).
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
  const Registered& graph = *run->graph;
  run->frame.args.resize(graph.num_args);
  run->frame.rets.resize(graph.num_rets);
  // Every _Arg gets exactly one tensor of its dtype and shape: its consumers' kernels trust both.
  std::vector<bool> sent(graph.num_args, false);
  for (const NamedTensor& feed : req.send()) {
    TW_ASSIGN_OR_RETURN(int index, IndexFromName(feed.name(), kArgKeyPrefix, graph.num_args));
    if (sent[index]) return absl::InvalidArgumentError(absl::StrCat("'", feed.name(), "' is sent twice"));
    sent[index] = true;
    TW_ASSIGN_OR_RETURN(Tensor value, TensorFromProto(feed.tensor(), limits_.max_tensor_bytes));
    if (value.dtype() != graph.arg_types[index]) {
      return absl::InvalidArgumentError(absl::StrCat("'", feed.name(), "' is ", DTypeName(value.dtype()),
                                                     " but the graph's _Arg takes ",
                                                     DTypeName(graph.arg_types[index])));
    }
    if (!graph.arg_shapes[index].Matches(value.shape())) {
      return absl::InvalidArgumentError(absl::StrCat("'", feed.name(), "' has shape ", value.shape().DebugString(),
                                                     " but the graph's _Arg takes ",
                                                     graph.arg_shapes[index].DebugString()));
    }
    run->frame.args[index] = std::move(value);
  }
  for (int i = 0; i < graph.num_args; ++i) {
    if (!sent[i]) return absl::InvalidArgumentError(absl::StrCat("nothing is sent for ", ArgKey(i)));
  }
  absl::flat_hash_set<std::string> asked;
  for (const std::string& key : req.recv_key()) {
    if (!asked.insert(key).second) continue;
    if (IsRetKey(key)) {
      TW_ASSIGN_OR_RETURN(int index, IndexFromName(key, kRetKeyPrefix, run->graph->num_rets));
      run->outputs.emplace_back(key, index);
    } else if (absl::StartsWith(key, task_name_ + "/")) {
      run->outputs.emplace_back(key, -1);  // A tensor this partition sends, returned to the master.
    } else {
      return absl::InvalidArgumentError(absl::StrCat("recv_key '", TruncateForMessage(key),
                                                     "' is neither ret:N nor a tensor sent by task ", task_name_));
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
  StartPulling(*run->graph, req, run->step, run->pulled_bytes);
  run->args.step_id = req.step_id();
  run->args.call_frame = &run->frame;
  run->args.cancellation = &run->step->cancellation();
  run->args.rendezvous = run->step.get();
  return run;
}

void Worker::StartPulling(const Registered& graph, const RunGraphRequest& req,
                          const std::shared_ptr<StepRendezvous>& step,
                          const std::shared_ptr<std::atomic<int64_t>>& pulled_bytes) {
  if (graph.pulls_in_loop) {
    std::weak_ptr<StepRendezvous> weak_step = step;
    step->SetLoopPuller([this, weak_step, step_id = req.step_id(), pulled_bytes](const std::string& key) {
      std::shared_ptr<StepRendezvous> step = weak_step.lock();
      if (step == nullptr) return;
      const std::string send_device = key.substr(0, key.find(';'));
      if (absl::StartsWith(send_device, task_name_ + "/")) return;  // Sent in this task.
      auto src = DeviceName::Parse(send_device);
      auto worker = src.ok() && src->has_job && src->has_task
                        ? cache_->GetWorker(src->job, src->task)
                        : absl::StatusOr<WorkerInterface*>(absl::InvalidArgumentError(
                              absl::StrCat("rendezvous key names no task: ", key)));
      if (!worker.ok()) {
        step->local().StartAbort(worker.status());
        return;
      }
      auto pull = std::make_shared<RecvTensorsRequest>();
      pull->set_step_id(step_id);
      pull->add_rendezvous_key(key);
      PullInto(*worker, std::move(pull), step, pulled_bytes);
    });
  }
  for (const RemoteSource& source : graph.remote_sources) {
    auto pull = std::make_shared<RecvTensorsRequest>();
    pull->set_step_id(req.step_id());
    for (const std::string& key : source.keys) {
      const auto& delivered = req.master_delivered_key();
      if (std::find(delivered.begin(), delivered.end(), key) == delivered.end()) pull->add_rendezvous_key(key);
    }
    if (pull->rendezvous_key_size() == 0) continue;
    auto worker = cache_->GetWorker(source.job, source.task);
    if (!worker.ok()) {  // Fails the receivers waiting in the step's table.
      step->local().StartAbort(worker.status());
      return;
    }
    PullInto(*worker, std::move(pull), step, pulled_bytes);
  }
}

void Worker::RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp,
                           std::function<void(const absl::Status&)> done) {
  RunGraphAsync(req, resp, nullptr, std::move(done));
}

void Worker::RunGraphAsync(const RunGraphRequest* req, RunGraphResponse* resp, CancellationManager* caller,
                           std::function<void(const absl::Status&)> done) {
  auto started = StartRunning(*req);
  if (!started.ok()) {
    done(started.status());
    return;
  }
  RunningGraph* run = started->release();
  if (caller != nullptr) {
    run->caller = caller;
    auto abort = [step = run->step, step_id = req->step_id(), task = task_name_] {
      step->StartAbort(absl::CancelledError(absl::StrCat(
          "the caller of step ", step_id, " went away or gave up (its RunGraph call to task ", task,
          " was cancelled or passed its deadline); the step was aborted there")));
    };
    run->caller_token = caller->RegisterCallback(abort);
    if (run->caller_token == CancellationManager::kInvalidToken) abort();  // Already gone.
  }
  if (req->record_step_stats()) {
    run->stats = std::make_unique<StepStatsCollector>();
    run->args.stats = run->stats.get();
  }
  run->graph->executor->RunAsync(run->args, [this, run, req, resp, done = std::move(done)](absl::Status s) {
    std::unique_ptr<RunningGraph> finished(run);
    // The partition's step resources (TensorArrays, on its device) go with it.
    finished->graph->device->resource_mgr()->Clear({StepContainer(finished->args.step_id)});
    if (finished->caller_token != CancellationManager::kInvalidToken) {
      finished->caller->DeregisterCallback(finished->caller_token);
    }
    std::vector<Tensor> values;
    std::vector<std::pair<std::string, int64_t>> sizes;
    int64_t reply_bytes = 0;
    for (const auto& [key, ret] : finished->outputs) {
      if (!s.ok()) break;
      absl::StatusOr<Tensor> value = ret >= 0 ? finished->frame.rets[ret] : finished->step->local().TakeSent(key);
      if (!value.ok()) {
        s = value.status();
        break;
      }
      // The encoded tensor: its bytes, plus a little for the shape and names.
      const int64_t bytes = static_cast<int64_t>(value->TotalBytes()) + 1024;
      reply_bytes += bytes;
      sizes.emplace_back(key, bytes);
      values.push_back(*std::move(value));
    }
    if (s.ok()) s = CheckReplyFits("the RunGraph reply", reply_bytes, std::move(sizes));
    for (size_t i = 0; s.ok() && i < values.size(); ++i) {
      NamedTensor* out = resp->add_recv();
      out->set_name(finished->outputs[i].first);
      // A dead tensor (a cond's untaken branch) is an empty TensorProto: DT_INVALID, no shape.
      if (values[i].IsInitialized()) *out->mutable_tensor() = TensorToProto(values[i]);
    }
    resp->set_tensor_bytes_pulled(finished->pulled_bytes->load(std::memory_order_relaxed));
    if (finished->stats != nullptr) finished->stats->MoveTo(resp->mutable_step_stats());
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

void Worker::RecvTensorsAsync(const RecvTensorsRequest& req, CancellationManager* cancellation,
                              RecvTensorsArrived arrived, std::function<void(const absl::Status&)> done) {
  if (req.rendezvous_key_size() == 0) {  // Nothing to wait for: no step entry either.
    done(absl::OkStatus());
    return;
  }
  std::shared_ptr<StepRendezvous> step = StepFor(req.step_id(), /*for_graph=*/false);
  if (step == nullptr) {
    done(absl::AbortedError(absl::StrCat("step ", req.step_id(), " already finished on task ", task_name_)));
    return;
  }
  // `done` runs once every key's receive ended: a failed one aborts the step's table
  // (LocalRendezvous), which ends the others at once.
  struct Pending {
    absl::Mutex mu;
    int left;
    absl::Status status;
    RecvTensorsArrived arrived;
    std::function<void(const absl::Status&)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = req.rendezvous_key_size();
  pending->arrived = std::move(arrived);
  pending->done = std::move(done);
  // Each waits in the step's table until the tensor is sent, the step ends (CleanupGraph
  // aborts it) or the caller cancels (e.g. its deadline passed).
  for (int i = 0; i < req.rendezvous_key_size(); ++i) {
    step->local().RecvAsync(req.rendezvous_key(i), cancellation,
                            [this, pending, i, step_id = req.step_id()](const absl::Status& s, const Tensor& t) {
                              {
                                absl::ReleasableMutexLock lock(&pending->mu);
                                if (s.ok() && pending->status.ok()) pending->arrived(i, t);  // One at a time.
                                pending->status.Update(s);
                                if (--pending->left == 0) {
                                  lock.Release();
                                  pending->done(pending->status);
                                }
                              }
                              ForgetIfDone(step_id, /*graph_finished=*/false);
                            });
  }
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
