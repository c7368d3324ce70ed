#include "distributed/master.h"


#include <algorithm>
#include <iostream>
#include <atomic>
#include <optional>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "absl/synchronization/notification.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/container/flat_hash_set.h"
#include "core/message_text.h"
#include "distributed/message_limits.h"
#include "distributed/step_slot_keys.h"
#include "graph/attr_value.h"
#include "graph/device_name.h"
#include "graph/graph_def_import.h"
#include "runtime/partitioner.h"
#include "runtime/placer.h"
#include "runtime/step_stats_collector.h"
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

// A small tensor that a task sends to the master's own task travels in that task's
// RunGraph response instead of being pulled by a RecvTensors call: one round trip less
// on the step's critical path. Only for parts that receive nothing (they cannot wait on
// the master's task, so returning their sends when they finish cannot deadlock) and whose
// every send goes to the master's task with a known small size. Returns the rendezvous
// keys of those sends, or nothing when `def` does not qualify.
constexpr int64_t kMaxReturnedBytes = 64 << 10;

std::vector<std::string> KeysReturnedToMaster(const GraphDef& def, const DeviceName& master,
                                              const std::map<std::string, GraphDef>& parts) {
  std::vector<std::string> keys;
  for (const NodeDef& n : def.node()) {
    if (n.op() == "_Recv") return {};
    if (n.op() != "_Send") continue;
    const AttrMap attrs(n.attr().begin(), n.attr().end());
    if (attrs.contains(kFrameAttr)) return {};  // Inside a while loop: a key per iteration.
    const std::string recv_device = *GetStringAttr(attrs, "recv_device");
    const std::string send_device = *GetStringAttr(attrs, "send_device");
    const std::string tensor_name = *GetStringAttr(attrs, "tensor_name");
    auto dst = DeviceName::Parse(recv_device);
    if (!dst.ok() || dst->job != master.job || dst->task != master.task) return {};
    // The size is on the matching _Recv (its shape attr) in the master's part.
    bool small = false;
    auto receiver = parts.find(recv_device);
    if (receiver == parts.end()) return {};
    for (const NodeDef& r : receiver->second.node()) {
      if (r.op() != "_Recv") continue;
      const AttrMap recv_attrs(r.attr().begin(), r.attr().end());
      if (*GetStringAttr(recv_attrs, "tensor_name") != tensor_name ||
          *GetStringAttr(recv_attrs, "send_device") != send_device) {
        continue;
      }
      auto shape = GetShapeAttr(recv_attrs, "shape");
      auto dtype = GetTypeAttr(recv_attrs, "tensor_type");
      small = shape.ok() && dtype.ok() && shape->IsFullyDefined() &&
              shape->num_elements() * static_cast<int64_t>(DTypeSize(*dtype)) <= kMaxReturnedBytes;
    }
    if (!small) return {};
    keys.push_back(Rendezvous::CreateKey(send_device, static_cast<uint64_t>(*GetIntAttr(attrs, "send_device_incarnation")),
                                         recv_device, tensor_name));
  }
  return keys;
}

}  // namespace

class MasterSession : public std::enable_shared_from_this<MasterSession> {
 public:
  // For the idle sweep (Master::CloseIdleSessions): calls in progress, and when the last
  // one started or ended.
  std::atomic<int64_t> active_calls{0};
  std::atomic<int64_t> last_used_ns{absl::GetCurrentTimeNanos()};
  void Touch() { last_used_ns.store(absl::GetCurrentTimeNanos()); }

  MasterSession(std::string handle, const ClusterSpec& cluster, const std::string& job, int task,
                WorkerCache* workers, Worker* local_worker, ThreadPool* rpc_pool, DeadlineTimer* step_timer,
                SessionConfigProto config, const ResourceLimits& limits, const std::vector<DeviceName>& device_filters)
      : handle_(std::move(handle)),
        limits_(limits),
        workers_(workers),
        local_worker_(local_worker),
        rpc_pool_(rpc_pool),
        step_timer_(step_timer),
        config_(std::move(config)),
        default_device_(CpuOf(job, task)) {
    // As TF's device_filters: only the matching devices (and this task's own) exist for
    // the session, so a node pinned elsewhere fails to place unless soft placement.
    for (const auto& [j, tasks] : cluster.job_tasks()) {
      for (const auto& [t, address] : tasks) {
        const DeviceName device = CpuOf(j, t);
        const bool kept = device_filters.empty() || device == default_device_ ||
                          std::any_of(device_filters.begin(), device_filters.end(),
                                      [&](const DeviceName& f) { return f.Matches(device); });
        if (kept) devices_.push_back(device);
      }
    }
  }

  // Adds `def` to the graph, all of it or (on error) nothing. `expected_version`: the
  // version the client's graph extends, as TensorFlow's master checks it (none for the
  // graph CreateSession starts with). Returns the new version.
  absl::StatusOr<int64_t> Extend(const GraphDef& def, std::optional<int64_t> expected_version,
                                 const std::function<bool()>& cancelled = {}) {
    absl::MutexLock lock(&mu_);
    if (expected_version.has_value() && *expected_version != graph_version_) {
      return absl::AbortedError(absl::StrCat("current graph version is ", graph_version_, " but the caller expected ",
                                             *expected_version, " (another client extended the session?)"));
    }
    TW_RETURN_IF_ERROR(ImportGraphDef(def, &graph_, limits_, GraphSource::kClient, cancelled));
    if (expected_version.has_value()) ++graph_version_;
    return graph_version_;
  }

  // Runs one step; `done` runs once, on whichever thread finishes it (possibly this one).
  // req and resp live until then. `client_cancel` (may be null) fires if the client goes.
  void RunAsync(const RunStepRequest* req, RunStepResponse* resp, CancellationManager* client_cancel,
                StepDone done, bool may_block = false) {
    FeedList feeds;
    for (const NamedTensor& f : req->feed()) {
      auto t = TensorFromProto(f.tensor(), limits_.max_tensor_bytes);
      if (!t.ok()) {
        return done(absl::Status(t.status().code(), absl::StrCat("feed '", f.name(), "': ", t.status().message())));
      }
      feeds.emplace_back(f.name(), *std::move(t));
    }
    // A fetch asked for twice is run and returned once (clients match replies by name).
    std::vector<std::string> fetches;
    absl::flat_hash_set<std::string> asked;
    for (const std::string& f : req->fetch()) {
      if (asked.insert(f).second) fetches.push_back(f);
    }
    std::vector<std::string> targets(req->target().begin(), req->target().end());
    if (fetches.empty() && targets.empty()) {
      return done(absl::InvalidArgumentError("nothing to run: give at least one fetch or target"));
    }
    absl::StatusOr<RunSignature> sig = CanonicalizeRun(feeds, fetches, targets);
    if (!sig.ok()) return done(sig.status());
    std::shared_ptr<Prepared> prepared = FindPrepared(*sig);
    if (prepared == nullptr && !may_block) {
      // Preparing registers partitions with blocking calls: not on a gRPC thread.
      rpc_pool_->Schedule([self = shared_from_this(), req, resp, client_cancel, done = std::move(done)]() mutable {
        self->RunAsync(req, resp, client_cancel, std::move(done), /*may_block=*/true);
      });
      return;
    }
    if (prepared == nullptr) {
      absl::StatusOr<std::shared_ptr<Prepared>> made = GetOrPrepare(*sig);
      if (!made.ok()) return done(made.status());
      prepared = *std::move(made);
    }
    if (absl::Status s = ValidateFeeds(*sig, prepared->pruned); !s.ok()) return done(s);
    StartParts(std::move(prepared), *sig, std::move(fetches), resp, client_cancel, WantsStepStats(req->options()),
               std::move(done));
  }

  // Cancels the steps still running, as closing a TensorFlow session does (each task
  // aborts its part, so ops waiting there — a dequeue, a take_grad — end now), then
  // deregisters every partition this session registered (tasks that are down are skipped).
  void Close() {
    std::vector<std::shared_ptr<Step>> running;
    {
      absl::MutexLock lock(&running_mu_);
      closed_ = true;
      for (const auto& [step_id, step] : running_) running.push_back(step);
    }
    for (const auto& step : running) Step::Abort(step, rpc_pool_);
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
    std::string graph_handle;
    std::vector<int> args, rets;
    std::vector<std::string> returned_keys;   // Sends returned in the response.
    std::vector<std::string> delivered_keys;  // Receives the master delivers (own task).
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

  std::shared_ptr<Prepared> FindPrepared(const RunSignature& sig) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    auto it = prepared_.find(sig.Key());
    return it == prepared_.end() ? nullptr : it->second;
  }

  absl::StatusOr<std::shared_ptr<Prepared>> GetOrPrepare(const RunSignature& sig) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    auto it = prepared_.find(sig.Key());
    if (it != prepared_.end()) return it->second;
    auto prepared = std::make_shared<Prepared>();
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
      RegisterGraphRequest reg;
      reg.set_session_handle(handle_);
      *reg.mutable_graph_def() = def;
      // Every partition gets the session's function library: its dataset and function-
      // calling kernels instantiate from it on the worker.
      *reg.mutable_graph_def()->mutable_library() = graph_.library();
      RegisterGraphResponse reg_resp;
      TW_RETURN_IF_ERROR(part.worker->RegisterGraph(reg, &reg_resp));
      part.graph_handle = reg_resp.graph_handle();
      part.args = SlotIndexes(def, "_Arg");
      part.rets = SlotIndexes(def, "_Retval");
      const bool own_task = d.job == default_device_.job && d.task == default_device_.task;
      if (!own_task) part.returned_keys = KeysReturnedToMaster(def, default_device_, parts);
      prepared->parts.push_back(std::move(part));
    }
    // This task's own part last: it starts running on the caller's thread, remote parts
    // only need their call sent.
    const std::string own_task = absl::StrCat("/job:", default_device_.job, "/replica:0/task:", default_device_.task);
    std::stable_partition(prepared->parts.begin(), prepared->parts.end(),
                          [&](const Part& p) { return p.task != own_task; });
    for (Part& part : prepared->parts) {
      if (part.task != own_task) continue;
      for (const Part& other : prepared->parts)
        part.delivered_keys.insert(part.delivered_keys.end(), other.returned_keys.begin(), other.returned_keys.end());
    }
    return prepared_[sig.Key()] = std::move(prepared);
  }

  // A running step, shared by the callbacks of its parts and by Close().
  struct Step {
    int64_t step_id = 0;
    std::shared_ptr<Prepared> prepared;  // Kept while running even if the session closes.
    std::vector<std::string> fetches;
    std::vector<RunGraphRequest> requests;  // One per part.
    std::vector<RunGraphResponse> responses;
    RunStepResponse* resp = nullptr;
    CancellationManager* client_cancel = nullptr;
    CancellationManager::Token cancel_token = CancellationManager::kInvalidToken;
    StepDone done;
    std::atomic<size_t> pending{0};
    std::atomic<bool> aborted{false};
    int64_t timer_id = 0;  // The step_timeout_ms deadline (0: none).
    int64_t stall_timer_id = 0;  // The stall warning (0: none).
    absl::Time started = absl::Now();

    // The tasks whose part has not returned yet, each once.
    std::vector<std::string> WaitingTasks() {
      std::vector<std::string> waiting;
      absl::MutexLock lock(&mu);
      for (size_t i = 0; i < part_returned.size(); ++i) {
        const std::string& task = prepared->parts[i].task;
        if (!part_returned[i] && std::find(waiting.begin(), waiting.end(), task) == waiting.end()) {
          waiting.push_back(task);
        }
      }
      return waiting;
    }

    // Releases every task (once), some of which may wait for tensors a failed one will
    // never send: one CleanupGraph per task, each on its own pool thread, so that an
    // unreachable task holds up no other. The step's failure is reported without waiting
    // for them: once every part returned, what a task still holds of the step (tensors
    // sent and never received) cannot meet a later step.
    static void Abort(const std::shared_ptr<Step>& step, ThreadPool* pool) {
      if (step->aborted.exchange(true)) return;
      for (const Part& part : step->prepared->parts) {
        pool->Schedule([step, worker = part.worker] {
          CleanupGraphRequest cleanup;
          cleanup.set_step_id(step->step_id);
          CleanupGraphResponse ignored;
          worker->CleanupGraph(cleanup, &ignored).IgnoreError();
        });
      }
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
    std::vector<bool> part_returned ABSL_GUARDED_BY(mu);  // Per part: its RunGraph ended.
  };

  // At the session's step_timeout_ms: fails the step with DeadlineExceeded naming the
  // tasks whose parts had not returned (the slow ones), and aborts it everywhere.
  void StartDeadline(const std::shared_ptr<Step>& step) {
    const int64_t timeout_ms = config_.step_timeout_ms();
    if (timeout_ms <= 0) return;
    ThreadPool* pool = rpc_pool_;
    step->timer_id = step_timer_->Schedule(absl::Now() + absl::Milliseconds(timeout_ms), [step, pool, timeout_ms] {
      std::vector<std::string> waiting = step->WaitingTasks();
      step->RecordError(absl::DeadlineExceededError(absl::StrCat(
          "step ", step->step_id, " ran longer than the session's step_timeout_ms (", timeout_ms,
          " ms; TF's operation_timeout_in_ms) and was cancelled; still running on ",
          waiting.empty() ? "no task (it was finishing)" : absl::StrJoin(waiting, ", "))));
      Step::Abort(step, pool);
    });
  }

  // A step that waits long is most often held by a task that stopped or is overloaded
  // (or by a task waiting on one, as a sync-replicas accumulator on the ps waits for a
  // stopped worker): after kStallWarning the master says which tasks have not answered,
  // at most one line per session per kStallWarning, so that a stall is not silent.
  static constexpr absl::Duration kStallWarning = absl::Seconds(5);
  void StartStallWarning(const std::shared_ptr<Step>& step) {
    step->stall_timer_id = step_timer_->Schedule(
        step->started + kStallWarning, [step, self = weak_from_this(), session = handle_] {
          auto me = self.lock();
          if (me == nullptr) return;
          const int64_t now = absl::GetCurrentTimeNanos();
          int64_t last = me->last_stall_warning_ns_.load();
          if (now - last < absl::ToInt64Nanoseconds(kStallWarning) ||
              !me->last_stall_warning_ns_.compare_exchange_strong(last, now)) {
            return;
          }
          std::vector<std::string> waiting = step->WaitingTasks();
          if (waiting.empty()) return;
          // The probe waits: on the pool, not on the timer's one thread.
          me->rpc_pool_->Schedule([me, step, session, waiting] {
            const std::string probe = me->ProbeOtherTasks();
            std::cerr << "tw master: WARNING: step " << step->step_id << " of session " << session
                      << " has waited " << absl::FormatDuration(absl::Now() - step->started) << " for "
                      << absl::StrJoin(waiting, ", ")
                      << " (its part of the step has not returned: is that task stopped or overloaded, or waiting"
                      << " for another one?)" << probe << std::endl;
          });
        });
  }

  // `fetch_names`: the fetches as the client spelled them (sig.fetches in canonical form).
  // `trace`: every part records step_stats, merged into the response's metadata.
  void StartParts(std::shared_ptr<Prepared> prepared, const RunSignature& sig, std::vector<std::string> fetch_names,
                  RunStepResponse* resp, CancellationManager* client_cancel, bool trace, StepDone done) {
    const size_t n = prepared->parts.size();
    if (n == 0) return done(absl::InternalError("the step has no partition to run"));
    auto step = std::make_shared<Step>();
    step->step_id = absl::Uniform<int64_t>(absl::BitGen(), 1, INT64_MAX);
    step->prepared = std::move(prepared);
    step->fetches = std::move(fetch_names);
    step->resp = resp;
    step->client_cancel = client_cancel;
    step->done = std::move(done);
    step->requests.resize(n);
    step->responses.resize(n);
    {
      absl::MutexLock lock(&step->mu);
      step->part_returned.assign(n, false);
    }
    for (size_t i = 0; i < n; ++i) {
      const Part& part = step->prepared->parts[i];
      RunGraphRequest& req = step->requests[i];
      req.set_session_handle(handle_);
      req.set_graph_handle(part.graph_handle);
      req.set_step_id(step->step_id);
      req.set_record_step_stats(trace);
      for (int a : part.args) {
        NamedTensor* t = req.add_send();
        t->set_name(ArgKey(a));
        *t->mutable_tensor() = TensorToProto(*sig.feed_values[a]);
      }
      for (int r : part.rets) req.add_recv_key(RetKey(r));
      for (const std::string& key : part.returned_keys) req.add_recv_key(key);
      for (const std::string& key : part.delivered_keys) req.add_master_delivered_key(key);
    }
    {
      absl::MutexLock lock(&running_mu_);
      if (closed_) return step->done(absl::CancelledError(absl::StrCat("session '", handle_, "' is closed")));
      running_[step->step_id] = step;
    }
    ThreadPool* pool = rpc_pool_;
    if (client_cancel != nullptr) {
      step->cancel_token = client_cancel->RegisterCallback([step, pool] { Step::Abort(step, pool); });
      if (step->cancel_token == CancellationManager::kInvalidToken) {
        step->pending = 1;
        return FinishPart(step, 0, absl::CancelledError("the client went away"));
      }
    }
    step->pending = n;
    StartDeadline(step);
    StartStallWarning(step);
    for (size_t i = 0; i < n; ++i) {
      step->prepared->parts[i].worker->RunGraphAsync(
          &step->requests[i], &step->responses[i],
          [self = shared_from_this(), step, i](const absl::Status& s) { self->FinishPart(step, i, s); });
    }
  }

  // Called once per part; the last one ends the step.
  void FinishPart(const std::shared_ptr<Step>& step, size_t part, const absl::Status& s) {
    {
      absl::MutexLock lock(&step->mu);
      if (part < step->part_returned.size()) step->part_returned[part] = true;
    }
    if (!s.ok()) {
      step->RecordError(absl::IsResourceExhausted(s) ? NameFetches(*step, part, s) : s);
      Step::Abort(step, rpc_pool_);
    } else if (!step->prepared->parts[part].returned_keys.empty()) {
      for (const NamedTensor& t : step->responses[part].recv()) {
        if (IsRetKey(t.name())) continue;
        // An empty TensorProto is a dead tensor (a cond's untaken branch): delivered as one.
        const bool dead = t.tensor().dtype() == 0 && !t.tensor().has_tensor_shape();
        absl::StatusOr<Tensor> value = dead ? Tensor() : TensorFromProto(t.tensor());
        if (!value.ok()) {
          step->RecordError(absl::DataLossError(absl::StrCat("tensor '", t.name(), "' returned by ",
                                                             step->prepared->parts[part].task, ": ",
                                                             value.status().message())));
          Step::Abort(step, rpc_pool_);
          break;
        }
        local_worker_->Deliver(step->step_id, t.name(), *value);
      }
    }
    if (step->pending.fetch_sub(1) != 1) return;
    if (step->timer_id != 0) step_timer_->Cancel(step->timer_id);
    if (step->stall_timer_id != 0) step_timer_->Cancel(step->stall_timer_id);
    if (step->client_cancel != nullptr && step->cancel_token != CancellationManager::kInvalidToken) {
      step->client_cancel->DeregisterCallback(step->cancel_token);
    }
    {
      absl::MutexLock lock(&running_mu_);
      running_.erase(step->step_id);
    }
    absl::Status status = step->error();
    if (step->client_cancel != nullptr && step->client_cancel->IsCancelled()) {
      status = absl::CancelledError("the client went away during the step");
    }
    if (status.ok()) CountWireBytes(*step);  // First: GatherFetches moves the fetched tensors out.
    if (status.ok()) MergeStepStatsOfParts(*step);
    if (status.ok()) status = GatherFetches(*step);
    // Tasks forget a successful step by themselves; a failed one is cleaned up (if no
    // failed part did it already).
    if (!status.ok()) Step::Abort(step, rpc_pool_);
    if (absl::IsDeadlineExceeded(status)) {
      // The probe waits up to kProbeWait: not on the thread that delivered the part's reply.
      rpc_pool_->Schedule([self = shared_from_this(), step, status] { step->done(self->NameSilentTasks(status)); });
      return;
    }
    step->done(status);
  }

  // A step that timed out names the task whose call timed out, but that task may itself
  // be waiting for another one (a sync-replicas accumulator on the ps waits for a stopped
  // worker's gradients): a status probe to every other task of the session names those
  // that do not answer within kProbeWait (stopped, cut off or overloaded).
  static constexpr absl::Duration kProbeWait = absl::Milliseconds(500);
  absl::Status NameSilentTasks(const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat(status.message(), ProbeOtherTasks()));
  }

  // "; no answer to a status probe within 500ms from <tasks> (...)", or " (every other task
  // answered a status probe)", or "" when the session has no other task.
  std::string ProbeOtherTasks() {
    struct Probes {
      absl::Mutex mu;
      int left = 0;
      std::vector<bool> answered;
    };
    std::vector<DeviceName> tasks;
    for (const DeviceName& d : devices_) {
      if (d.job != default_device_.job || d.task != default_device_.task) tasks.push_back(d);
    }
    if (tasks.empty()) return "";
    auto probes = std::make_shared<Probes>();
    probes->left = static_cast<int>(tasks.size());
    probes->answered.assign(tasks.size(), false);
    for (size_t i = 0; i < tasks.size(); ++i) {
      rpc_pool_->Schedule([probes, i, workers = workers_, job = tasks[i].job, task = tasks[i].task] {
        auto worker = workers->GetWorker(job, task);
        GetStatusResponse resp;
        const bool ok = worker.ok() && (*worker)->GetStatus({}, &resp).ok();
        absl::MutexLock lock(&probes->mu);
        probes->answered[i] = ok;
        --probes->left;
      });
    }
    std::vector<std::string> silent;
    {
      absl::MutexLock lock(&probes->mu);
      probes->mu.AwaitWithTimeout(absl::Condition(
                                      +[](int* left) { return *left == 0; }, &probes->left),
                                  kProbeWait);
      for (size_t i = 0; i < tasks.size(); ++i) {
        if (!probes->answered[i]) silent.push_back(absl::StrCat("/job:", tasks[i].job, "/replica:0/task:", tasks[i].task));
      }
    }
    if (silent.empty()) return " (every other task answered a status probe)";
    return absl::StrCat("; no answer to a status probe within ", absl::FormatDuration(kProbeWait), " from ",
                        absl::StrJoin(silent, ", "), " (stopped, cut off or overloaded: the step may wait for it)");
  }

  // A part's reply names its fetches by slot ("ret:3"): add the client's names.
  static absl::Status NameFetches(const Step& step, size_t part, const absl::Status& s) {
    std::string names;
    for (int r : step.prepared->parts[part].rets) {
      if (r < static_cast<int>(step.fetches.size())) {
        absl::StrAppend(&names, names.empty() ? "" : ", ", RetKey(r), " = '", TruncateForMessage(step.fetches[r]), "'");
      }
    }
    if (names.empty()) return s;
    return absl::Status(s.code(), absl::StrCat(s.message(), "; the fetches of that task: ", names));
  }

  // Moves the fetched tensors from the parts' replies into the client's, if they fit in
  // one message.
  // RunMetadata.wire_bytes: what the parts pulled from other tasks, and the RunGraph
  // messages exchanged with tasks other than the master's own (which are calls, not RPCs).
  void CountWireBytes(Step& step) const {
    StepWireBytes* wire = step.resp->mutable_metadata()->mutable_wire_bytes();
    for (size_t i = 0; i < step.responses.size(); ++i) {
      wire->set_tensor_bytes(wire->tensor_bytes() + step.responses[i].tensor_bytes_pulled());
      if (step.prepared->parts[i].worker == static_cast<WorkerInterface*>(local_worker_)) continue;
      wire->set_run_graph_bytes(wire->run_graph_bytes() + static_cast<int64_t>(step.requests[i].ByteSizeLong()) +
                                static_cast<int64_t>(step.responses[i].ByteSizeLong()));
    }
  }

  // RunMetadata.step_stats of a traced step: every part's, by device.
  static void MergeStepStatsOfParts(Step& step) {
    for (RunGraphResponse& r : step.responses) {
      if (!r.has_step_stats()) continue;
      MergeStepStats(std::move(*r.mutable_step_stats()), step.resp->mutable_metadata()->mutable_step_stats());
    }
  }

  static absl::Status GatherFetches(Step& step) {
    std::vector<TensorProto*> fetched(step.fetches.size(), nullptr);
    for (RunGraphResponse& r : step.responses) {
      for (NamedTensor& t : *r.mutable_recv()) {
        int index;
        if (ParseSlotKey(t.name(), kRetKeyPrefix, &index) &&
            index < static_cast<int>(fetched.size())) {
          fetched[index] = t.mutable_tensor();
        }
      }
    }
    int64_t reply_bytes = 0;
    std::vector<std::pair<std::string, int64_t>> sizes;
    for (size_t j = 0; j < fetched.size(); ++j) {
      if (fetched[j] == nullptr) {
        return absl::InternalError(absl::StrCat("fetch '", TruncateForMessage(step.fetches[j]), "' was not returned"));
      }
      const int64_t bytes = static_cast<int64_t>(fetched[j]->ByteSizeLong() + step.fetches[j].size()) + 16;
      reply_bytes += bytes;
      sizes.emplace_back(step.fetches[j], bytes);
    }
    TW_RETURN_IF_ERROR(CheckReplyFits("the RunStep reply", reply_bytes, std::move(sizes)));
    for (size_t j = 0; j < fetched.size(); ++j) {
      NamedTensor* out = step.resp->add_tensor();
      out->set_name(step.fetches[j]);
      out->mutable_tensor()->Swap(fetched[j]);
    }
    return absl::OkStatus();
  }

  const std::string handle_;
  const ResourceLimits limits_;
  WorkerCache* workers_;
  Worker* local_worker_;
  ThreadPool* rpc_pool_;
  DeadlineTimer* step_timer_;
  std::atomic<int64_t> last_stall_warning_ns_{0};
  const SessionConfigProto config_;
  const DeviceName default_device_;
  std::vector<DeviceName> devices_;
  absl::Mutex mu_;
  FlowGraph graph_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;  // Extensions so far.
  absl::flat_hash_map<std::string, std::shared_ptr<Prepared>> prepared_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, uint64_t> incarnations_;
  absl::Mutex running_mu_;
  bool closed_ ABSL_GUARDED_BY(running_mu_) = false;
  // Steps in flight.
  absl::flat_hash_map<int64_t, std::shared_ptr<Step>> running_ ABSL_GUARDED_BY(running_mu_);
};

Master::Master(ClusterSpec cluster, std::string job, int task, WorkerCache* workers, Worker* local_worker,
               const ResourceLimits& limits, int64_t session_gc_seconds)
    : cluster_(std::move(cluster)),
      job_(std::move(job)),
      task_(task),
      workers_(workers),
      local_worker_(local_worker),
      limits_(limits),
      session_gc_seconds_(session_gc_seconds) {}

Master::~Master() = default;

absl::StatusOr<std::shared_ptr<MasterSession>> Master::Find(const std::string& handle) {
  CloseIdleSessions();
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return absl::NotFoundError(absl::StrCat("session '", TruncateForMessage(handle),
                                            "' does not exist (closed or never created); a session idle for more than ",
                                            session_gc_seconds_, " s is closed (--session_gc_seconds)"));
  }
  it->second->Touch();
  return it->second;
}

void Master::CloseIdleSessions() {
  std::vector<std::shared_ptr<MasterSession>> idle;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    if (now < next_session_sweep_) return;
    const absl::Duration timeout = absl::Seconds(session_gc_seconds_);
    next_session_sweep_ = now + timeout / 10;
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      auto next = std::next(it);
      MasterSession& s = *it->second;
      if (s.active_calls.load() == 0 && now - absl::FromUnixNanos(s.last_used_ns.load()) > timeout) {
        idle.push_back(std::move(it->second));
        sessions_.erase(it);
      }
      it = next;
    }
  }
  // Closing deregisters partitions with blocking calls: not on the caller's thread.
  for (auto& session : idle) rpc_pool_.Schedule([session] { session->Close(); });
}

int64_t Master::num_sessions() {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(sessions_.size());
}

absl::Status Master::CreateSession(const CreateSessionRequest& req, CreateSessionResponse* resp,
                                   const std::function<bool()>& cancelled) {
  CloseIdleSessions();
  auto gave_up = [&] { return cancelled && cancelled(); };
  const absl::Status dropped = absl::CancelledError("the client cancelled CreateSession; no session was kept");
  if (gave_up()) return dropped;
  std::string handle;
  {
    absl::MutexLock lock(&mu_);
    handle = absl::StrCat("s", next_session_++, "_", absl::Hex(absl::Uniform<uint32_t>(absl::BitGen())));
  }
  std::vector<DeviceName> filters;
  for (const std::string& f : req.config().device_filters()) {
    auto parsed = DeviceName::Parse(f);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("ConfigProto.device_filters: '", TruncateForMessage(f),
                                                     "' is not a device name: ", parsed.status().message()));
    }
    filters.push_back(*std::move(parsed));
  }
  auto session = std::make_shared<MasterSession>(handle, cluster_, job_, task_, workers_, local_worker_, &rpc_pool_, &step_timer_,
                                                 req.config(), limits_, filters);
  // The import stops when the client gives up; one that left while the graph was imported
  // never gets the handle: keep nothing.
  auto version = session->Extend(req.graph_def(), std::nullopt, gave_up);
  if (gave_up()) return dropped;
  TW_RETURN_IF_ERROR(version.status());
  absl::MutexLock lock(&mu_);
  sessions_[handle] = std::move(session);
  resp->set_session_handle(handle);
  resp->set_graph_version(*version);
  return absl::OkStatus();
}

absl::Status Master::ExtendSession(const ExtendSessionRequest& req, ExtendSessionResponse* resp) {
  TW_ASSIGN_OR_RETURN(auto session, Find(req.session_handle()));
  session->active_calls.fetch_add(1);
  auto version = session->Extend(req.graph_def(), req.current_graph_version());
  session->Touch();
  session->active_calls.fetch_sub(1);
  TW_RETURN_IF_ERROR(version.status());
  resp->set_new_graph_version(*version);
  return absl::OkStatus();
}

void Master::RunStepAsync(const RunStepRequest* req, RunStepResponse* resp, CancellationManager* client_cancel,
                          StepDone done) {
  absl::StatusOr<std::shared_ptr<MasterSession>> session = Find(req->session_handle());
  if (!session.ok()) return done(session.status());
  // Counted before any work: a flood of steps is refused instead of queueing.
  const int64_t running = running_steps_.fetch_add(1) + 1;
  if (running > limits_.max_concurrent_steps) {
    running_steps_.fetch_sub(1);
    return done(absl::ResourceExhaustedError(absl::StrCat("step refused: ", running - 1,
                                                          " steps are running, the max_concurrent_steps limit is ",
                                                          limits_.max_concurrent_steps)));
  }
  (*session)->active_calls.fetch_add(1);
  (*session)->RunAsync(req, resp, client_cancel,
                       [this, session = *session, done = std::move(done)](const absl::Status& s) {
                         session->Touch();
                         session->active_calls.fetch_sub(1);
                         running_steps_.fetch_sub(1);
                         done(s);
                       });
}

absl::Status Master::RunStep(const RunStepRequest& req, RunStepResponse* resp) {
  absl::Notification finished;
  absl::Status status;
  RunStepAsync(&req, resp, nullptr, [&](const absl::Status& s) {
    status = s;
    finished.Notify();
  });
  finished.WaitForNotification();
  return status;
}

absl::Status Master::CloseSession(const CloseSessionRequest& req, CloseSessionResponse*) {
  std::shared_ptr<MasterSession> session;
  {
    absl::MutexLock lock(&mu_);
    auto it = sessions_.find(req.session_handle());
    if (it == sessions_.end()) {
      return absl::NotFoundError(absl::StrCat("session '", TruncateForMessage(req.session_handle()),
                                              "' does not exist (closed or never created)"));
    }
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
