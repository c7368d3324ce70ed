#include "runtime/executor.h"

#include <atomic>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/denormal.h"
#include "absl/strings/str_cat.h"
#include "graph/attr_value.h"
#include "absl/strings/str_join.h"
#include "kernels/kernel_registry.h"
#include "runtime/step_stats_collector.h"

namespace tw {
namespace {

// Outputs this small (all statically known) make a node cheap enough to run inline.
constexpr int64_t kInlineElements = 4096;

bool HasSmallStaticOutputs(const Node& node) {
  for (int i = 0; i < node.num_outputs(); ++i) {
    const int64_t n = node.output_shape(i).num_elements();
    if (n < 0 || n > kInlineElements) return false;
  }
  return true;
}

// TF's timeline_label (step_stats_collector.cc's SetTimelineLabel): the node's inputs as a
// NodeDef lists them, or, for a transfer, the tensor and the device at the other end.
std::string TimelineLabel(const Node& node) {
  if (node.op() == "_Send" || node.op() == "_Recv") {
    auto tensor = GetStringAttr(node.attrs(), "tensor_name");
    auto peer = GetStringAttr(node.attrs(), node.op() == "_Send" ? "recv_device" : "send_device");
    return absl::StrCat(node.name(), " = ", node.op(), "(", tensor.ok() ? *tensor : "", " @", peer.ok() ? *peer : "",
                        ")");
  }
  std::vector<std::string> inputs;
  for (int i = 0; i < node.num_inputs(); ++i) {
    const Edge* e = node.input_edge(i);
    if (e == nullptr) continue;
    inputs.push_back(e->src_output == 0 ? e->src->name() : absl::StrCat(e->src->name(), ":", e->src_output));
  }
  for (const Edge* c : node.control_inputs()) inputs.push_back(absl::StrCat("^", c->src->name()));
  return absl::StrCat(node.name(), " = ", node.op(), "(", absl::StrJoin(inputs, ", "), ")");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const FlowGraph& graph, ExecutorOptions options) {
  std::unique_ptr<Executor> ex(new Executor);
  ex->options_ = std::move(options);
  if (ex->options_.device == nullptr) return absl::InvalidArgumentError("executor needs a device");
  if (!ex->options_.create_kernel) {
    Device* device = ex->options_.device;
    FunctionLibraryRuntime* flr = ex->options_.function_library;
    ex->options_.create_kernel = [device, flr](const Node& node) -> absl::StatusOr<std::shared_ptr<OpKernel>> {
      auto k = KernelRegistry::Global().Create(node, device->name(), device->device_type(),
                                               device->resource_mgr(), flr);
      if (!k.ok()) return k.status();
      return std::shared_ptr<OpKernel>(*std::move(k));
    };
  }
  const auto& nodes = graph.nodes();
  absl::flat_hash_map<const Node*, int> index;
  ex->items_.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = *nodes[i];
    index[&node] = static_cast<int>(i);
    Item& item = ex->items_[i];
    TW_ASSIGN_OR_RETURN(item.kernel, ex->options_.create_kernel(node));
    item.input_start = ex->num_slots_;
    item.num_inputs = node.num_inputs();
    item.num_outputs = node.num_outputs();
    item.initial_pending = node.num_inputs() + static_cast<int>(node.control_inputs().size());
    item.async = item.kernel->IsAsync();
    item.expensive = item.kernel->IsExpensive() && !HasSmallStaticOutputs(node);
    item.num_control_inputs = static_cast<int>(node.control_inputs().size());
    item.is_merge = node.op() == "Merge" || node.op() == "RefMerge";
    item.is_transfer = node.op() == "_Send" || node.op() == "_Recv";
    item.may_leave_unset = node.op() == "Switch";
    if (node.op() == "_Retval" && node.num_inputs() == 1) {
      const Edge* in = node.input_edge(0);
      auto index = GetIntAttr(node.attrs(), "index");
      item.dead_error = absl::StrCat("Retval[", index.ok() ? *index : 0, "] does not have value: the fetched tensor ",
                                     in->src->name(), ":", in->src_output,
                                     " is dead (it depends on a cond branch that was not taken)");
    }
    ex->trace_info_.push_back(Executor::TraceInfo{TimelineLabel(node), node.op() == "_Recv"});
    ex->num_slots_ += item.num_inputs;
    if (item.initial_pending == 0) ex->roots_.push_back(static_cast<int>(i));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    Item& item = ex->items_[i];
    item.out_begin = static_cast<int>(ex->out_edges_.size());
    for (const Edge* e : nodes[i]->out_edges()) {
      auto it = index.find(e->dst);
      if (it == index.end()) continue;
      const Item& dst = ex->items_[it->second];
      ex->out_edges_.push_back(
          OutEdge{it->second, e->IsControl() ? -1 : dst.input_start + e->dst_input, e->src_output});
      if (!e->IsControl() && e->src_output < 64) item.used_outputs |= uint64_t{1} << e->src_output;
    }
    if (item.num_outputs > 64) item.used_outputs = ~uint64_t{0};
    item.out_end = static_cast<int>(ex->out_edges_.size());
  }
  TW_RETURN_IF_ERROR(ex->BuildFrames(graph));
  return ex;
}

Executor::~Executor() = default;

// The state of one step. Deletes itself after calling `done`.
//
// Every tensor lives in one iteration of one frame instance (Iter); the root Iter is the
// whole step for a graph without loops. In a graph with loops the bookkeeping of frames
// and iterations (creating, finishing, deferring) happens under loop_mu_; a graph without
// loops never takes it.
class ExecutorState {
 public:
  ExecutorState(const Executor* ex, const Executor::Args& args, std::function<void(absl::Status)> done)
      : ex_(ex), loops_(ex->has_loops_), args_(args), done_(std::move(done)), root_(NewIter(nullptr, 0)) {
    if (args_.cancellation == nullptr) args_.cancellation = &own_cancellation_;
  }

  void Start() {
    if (ex_->roots_.empty()) {
      Finish();
      return;
    }
    outstanding_.store(static_cast<int>(ex_->roots_.size()), std::memory_order_relaxed);
    root_->outstanding = static_cast<int>(ex_->roots_.size());
    Ready ready;
    for (int id : ex_->roots_) ready.push_back(Tagged{id, root_.get()});
    RunReady(ready);
  }

 private:
  struct Frame;
  struct MergeState {
    int control_pending = 0;
    int dead_inputs = 0;
    bool live = false;
    bool fired = false;
  };
  // One iteration of one frame instance: its own input slots, pending counts, deadness.
  struct Iter {
    Frame* frame = nullptr;  // Null for the root.
    int64_t number = 0;
    // "<parent's>/<frame_name>#<number>": the same on every partition running the loop.
    std::string frame_iter;
    std::vector<Tensor> slots;
    std::unique_ptr<std::atomic<int>[]> pending;
    std::unique_ptr<std::atomic<bool>[]> dead;  // A data or control input was dead.
    absl::flat_hash_map<int, MergeState> merges;  // Guarded by merge_mu_.
    // Loops only (loop_mu_): nodes ready or running here, plus live child frames.
    int outstanding = 0;
    absl::flat_hash_map<int, std::unique_ptr<Frame>> children;  // By static frame.
  };
  // One instance of a loop's frame (per parent frame instance and iteration).
  struct Frame {
    int static_frame = 0;
    Iter* parent_iter = nullptr;
    std::map<int64_t, std::unique_ptr<Iter>> iters;  // Alive iterations, oldest first.
    int64_t oldest = 0;                              // Every earlier iteration is done.
    int pending_enters = 0;                          // Enters not yet fired into it.
    struct Invariant {
      int item;
      Tensor value;
      bool dead;
    };
    std::vector<Invariant> invariants;  // is_constant Enters' values, for every iteration.
    // NextIteration values waiting for parallel_iterations: iteration -> (item, value).
    std::map<int64_t, std::vector<std::pair<int, Tensor>>> deferred;
    absl::flat_hash_set<int> live_exits;
  };
  struct Tagged {
    int id;
    Iter* iter;
  };
  using Ready = absl::InlinedVector<Tagged, 8>;

  std::unique_ptr<Iter> NewIter(Frame* frame, int64_t number) {
    auto it = std::make_unique<Iter>();
    it->frame = frame;
    it->number = number;
    if (frame != nullptr) {
      const std::string& parent = frame->parent_iter->frame_iter;
      it->frame_iter = absl::StrCat(parent, parent.empty() ? "" : "/", ex_->frames_[frame->static_frame].name, "#",
                                    number);
    }
    it->slots.resize(ex_->num_slots_);
    const size_t n = ex_->items_.size();
    it->pending.reset(new std::atomic<int>[n]);
    it->dead.reset(new std::atomic<bool>[n]);
    for (size_t i = 0; i < n; ++i) {
      it->pending[i].store(ex_->items_[i].initial_pending, std::memory_order_relaxed);
      it->dead[i].store(false, std::memory_order_relaxed);
      if (ex_->items_[i].is_merge) it->merges[static_cast<int>(i)].control_pending = ex_->items_[i].num_control_inputs;
    }
    return it;
  }

  // Runs `ready` and everything it makes ready inline, except expensive nodes, which
  // go to the pool when there is other work for this thread.
  void RunReady(Ready& ready) {
    while (!ready.empty()) {
      Tagged t = ready.back();
      ready.pop_back();
      Process(t, ready);
    }
  }

  void Process(Tagged t, Ready& ready) {
    ScopedFlushDenormal flush;  // Whichever thread runs the kernel (core/denormal.h).
    const int id = t.id;
    const Executor::Item& item = ex_->items_[id];
    // A node runs once its inputs are there, even in a step that failed or was cancelled
    // (as TensorFlow's executor): what ends such a step is its waiting kernels (_Recv,
    // dequeues) failing with the abort, and their consumers never becoming ready. Skipping
    // ready nodes instead could stop a step half-way through its updates: a ps whose
    // caller went away applied some variables' updates and not the others' or the global
    // step's increment (scripts/netns_fault_test.sh, RELIABILITY.md).
    const bool dead = t.iter->dead[id].load(std::memory_order_acquire);
    const bool dead_transfer = dead && item.is_transfer;
    if (dead && !dead_transfer) {
      if (!item.dead_error.empty()) {
        Abort(absl::InvalidArgumentError(item.dead_error));
        NodeDone(t, nullptr, ready);
      } else {
        NodeDone(t, nullptr, ready, /*dead=*/true);
      }
      return;
    }
    OpKernelContext::Params params;
    params.inputs = t.iter->slots.data() + item.input_start;
    params.num_inputs = item.num_inputs;
    params.num_outputs = item.num_outputs;
    params.device_name = &ex_->options_.device->name();
    params.resource_mgr = ex_->options_.device->resource_mgr();
    params.intra_op_pool = ex_->options_.device->intra_op_pool();
    params.cancellation = args_.cancellation;
    params.call_frame = args_.call_frame;
    params.rendezvous = args_.rendezvous;
    params.step_id = args_.step_id;
    params.max_tensor_bytes = ex_->options_.max_tensor_bytes;
    params.used_outputs = item.used_outputs;
    if (t.iter->frame != nullptr) params.frame_iter = &t.iter->frame_iter;
    params.input_dead = dead_transfer;
    NodeExecStats* trace = args_.stats == nullptr ? nullptr : TraceStart(t.id);
    if (item.async) {
      auto* ctx = new OpKernelContext(params);
      auto* kernel = static_cast<AsyncOpKernel*>(item.kernel.get());
      kernel->ComputeAsync(*ctx, [this, t, ctx, dead_transfer, trace](absl::Status s) {
        if (!s.ok()) Abort(NodeError(ex_->items_[t.id].kernel->name(), ex_->items_[t.id].kernel->op(), s));
        if (trace != nullptr) TraceEnd(t.id, trace, *ctx);
        Ready next;
        const bool node_dead = s.ok() && (dead_transfer || ReceivedDead(ex_->items_[t.id], *ctx));
        NodeDone(t, s.ok() && !node_dead ? ctx : nullptr, next, node_dead);
        delete ctx;
        RunReady(next);
      });
      return;
    }
    OpKernelContext ctx(params);
    absl::Status s = item.kernel->Compute(ctx);
    if (!s.ok()) Abort(NodeError(item.kernel->name(), item.kernel->op(), s));
    if (trace != nullptr) TraceEnd(t.id, trace, ctx);
    NodeDone(t, s.ok() && !dead_transfer ? &ctx : nullptr, ready, s.ok() && dead_transfer);
  }

  // A _Recv that got a dead tensor leaves its output unset: the node is dead, control edges too.
  static bool ReceivedDead(const Executor::Item& item, OpKernelContext& ctx) {
    return item.is_transfer && ctx.num_outputs() == 1 && !ctx.outputs()[0].IsInitialized();
  }

  // A traced step's record of one node (kept out of line: untraced steps skip it).
  ABSL_ATTRIBUTE_NOINLINE NodeExecStats* TraceStart(int id) {
    auto* ns = new NodeExecStats;
    ns->set_node_name(ex_->items_[id].kernel->name());
    const int64_t now = NowMicros();
    ns->set_scheduled_micros(now);
    ns->set_all_start_micros(now);
    ns->set_op_start_rel_micros(0);
    ns->set_thread_id(CurrentThreadId());
    return ns;
  }

  // Saves the node's record before NodeDone (whose last call ends the step). A _Recv's
  // time is the time its tensor took to arrive in the rendezvous; its label says so.
  ABSL_ATTRIBUTE_NOINLINE void TraceEnd(int id, NodeExecStats* ns, OpKernelContext& ctx) {
    std::unique_ptr<NodeExecStats> owned(ns);
    const int64_t rel = NowMicros() - ns->all_start_micros();
    ns->set_op_end_rel_micros(rel);
    ns->set_all_end_rel_micros(rel);
    const Executor::TraceInfo& info = ex_->trace_info_[id];
    if (info.is_recv) {
      ns->set_timeline_label(absl::StrCat(info.label, " waited ", rel, "us in the rendezvous"));
    } else {
      ns->set_timeline_label(info.label);
    }
    for (int slot = 0; slot < static_cast<int>(ctx.outputs().size()); ++slot) {
      const Tensor& out = ctx.outputs()[slot];
      if (!out.IsInitialized()) continue;
      NodeOutput* o = ns->add_output();
      o->set_slot(slot);
      TensorDescription* d = o->mutable_tensor_description();
      d->set_dtype(static_cast<DataType>(out.dtype()));
      for (int64_t dim : out.shape().dims()) d->mutable_shape()->add_dim()->set_size(dim);
      AllocationDescription* a = d->mutable_allocation_description();
      a->set_requested_bytes(static_cast<int64_t>(out.TotalBytes()));
      a->set_allocated_bytes(static_cast<int64_t>(out.TotalBytes()));
      a->set_allocator_name("cpu");
    }
    args_.stats->Save(ex_->options_.device->name(), std::move(*ns));
  }

  // Releases the node's inputs, hands its outputs (if it succeeded) to consumers and
  // queues those that became ready. `ctx` is null when the node failed, was skipped or is
  // dead; a dead node passes deadness along every out edge.
  void NodeDone(Tagged t, OpKernelContext* ctx, Ready& ready, bool dead = false) {
    const Executor::Item& item = ex_->items_[t.id];
    for (int i = 0; i < item.num_inputs; ++i) t.iter->slots[item.input_start + i] = Tensor();
    Ready became_ready;
    if (!loops_) {
      if (ctx != nullptr || dead) PropagateOutputs(t, ctx, dead, t.iter, became_ready);
    } else {
      LoopNodeDone(t, ctx, dead, became_ready);
    }
    // Count the new nodes before any can run (and finish) on another thread.
    if (!became_ready.empty()) {
      outstanding_.fetch_add(static_cast<int>(became_ready.size()), std::memory_order_relaxed);
      for (const Tagged& dst : became_ready) Schedule(dst, ready);
    }
    if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }

  // NodeDone's frame bookkeeping for a graph with loops (kept out of line: the loop-free
  // path stays small).
  ABSL_ATTRIBUTE_NOINLINE void LoopNodeDone(Tagged t, OpKernelContext* ctx, bool dead, Ready& became_ready) {
    const Executor::Item& item = ex_->items_[t.id];
    absl::MutexLock lock(&loop_mu_);
    Frame* child = nullptr;
    if (ctx != nullptr || dead) {
      switch (item.loop) {
        case Executor::Item::Loop::kNone:
          PropagateOutputs(t, ctx, dead, t.iter, became_ready);
          break;
        case Executor::Item::Loop::kEnter:
          child = EnterDone(t, ctx, dead, became_ready);
          break;
        case Executor::Item::Loop::kExit:
          if (!dead) {  // A dead Exit waits for its frame's end (FinishDone).
            t.iter->frame->live_exits.insert(t.id);
            PropagateOutputs(t, ctx, false, t.iter->frame->parent_iter, became_ready);
          }
          break;
        case Executor::Item::Loop::kNextIteration:
          NextIterationDone(t, ctx, dead, became_ready);
          break;
      }
    }
    if (child != nullptr) FinishDone(child, became_ready);
    --t.iter->outstanding;
    FinishDone(t.iter->frame, became_ready);
  }

  // Hands the node's outputs to its consumers in `target`.
  ABSL_ATTRIBUTE_ALWAYS_INLINE void PropagateOutputs(Tagged t, OpKernelContext* ctx, bool dead, Iter* target, Ready& became_ready) {
    const Executor::Item& item = ex_->items_[t.id];
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const Executor::OutEdge& edge = ex_->out_edges_[e];
      if (dead) {
        Deliver(edge, nullptr, /*dead=*/true, target, became_ready);
        continue;
      }
      if (edge.dst_slot < 0) {
        Deliver(edge, nullptr, /*dead=*/false, target, became_ready);
        continue;
      }
      const Tensor& out = ctx->outputs()[edge.src_output];
      if (!out.IsInitialized()) {
        if (item.may_leave_unset) {
          Deliver(edge, nullptr, /*dead=*/true, target, became_ready);
          continue;
        }
        Abort(NodeError(item.kernel->name(), item.kernel->op(),
                        absl::InternalError(absl::StrCat("output ", edge.src_output, " was not set"))));
        break;
      }
      Deliver(edge, &out, /*dead=*/false, target, became_ready);
    }
  }

  // Hands one edge's value (null for a control edge or a dead one) to its consumer in `target`.
  void Deliver(const Executor::OutEdge& edge, const Tensor* value, bool dead, Iter* target, Ready& became_ready) {
    if (ex_->items_[edge.dst].is_merge) {
      DeliverToMerge(edge, value, dead, target, became_ready);
      return;
    }
    if (dead) {
      target->dead[edge.dst].store(true, std::memory_order_relaxed);  // Published by the fetch_sub.
    } else if (edge.dst_slot >= 0) {
      target->slots[edge.dst_slot] = *value;
    }
    if (target->pending[edge.dst].fetch_sub(1, std::memory_order_acq_rel) == 1) MadeReady(edge.dst, target, became_ready);
  }

  void MadeReady(int id, Iter* iter, Ready& became_ready) {
    if (loops_) ++iter->outstanding;  // Under loop_mu_.
    became_ready.push_back(Tagged{id, iter});
  }

  // A Merge fires once per iteration: when its control inputs are done and one data input
  // is live (it forwards that one; later live inputs are dropped), or dead once every data
  // input but the loop's back edges is dead (a dead NextIteration delivers nothing).
  void DeliverToMerge(const Executor::OutEdge& edge, const Tensor* value, bool dead, Iter* target,
                      Ready& became_ready) {
    const Executor::Item& dst = ex_->items_[edge.dst];
    absl::MutexLock lock(&merge_mu_);
    MergeState& m = target->merges[edge.dst];
    if (m.fired) return;
    if (edge.dst_slot < 0) {
      --m.control_pending;
    } else if (dead) {
      ++m.dead_inputs;
    } else {
      target->slots[edge.dst_slot] = *value;
      m.live = true;
    }
    if (m.control_pending == 0 && (m.live || m.dead_inputs == dst.merge_forward_inputs)) {
      m.fired = true;
      if (!m.live) target->dead[edge.dst].store(true, std::memory_order_release);
      MadeReady(edge.dst, target, became_ready);
    }
  }

  // An Enter ran in t.iter: its value goes to iteration 0 of the child frame (created by
  // the frame's first Enter), or, for a loop invariant, to every iteration. Returns the frame.
  Frame* EnterDone(Tagged t, OpKernelContext* ctx, bool dead, Ready& became_ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_mu_) {
    const Executor::Item& item = ex_->items_[t.id];
    std::unique_ptr<Frame>& slot = t.iter->children[item.enter_frame];
    if (slot == nullptr) {
      slot = std::make_unique<Frame>();
      slot->static_frame = item.enter_frame;
      slot->parent_iter = t.iter;
      slot->pending_enters = ex_->frames_[item.enter_frame].num_enters;
      slot->iters[0] = NewIter(slot.get(), 0);
      ++t.iter->outstanding;  // The live child frame.
    }
    Frame* frame = slot.get();
    --frame->pending_enters;
    Tensor value;
    if (!dead) value = ctx->outputs()[0];
    if (item.enter_constant) {
      frame->invariants.push_back(Frame::Invariant{t.id, value, dead});
      for (auto& [number, iter] : frame->iters) PropagateInvariant(frame->invariants.back(), iter.get(), became_ready);
    } else {
      PropagateOutputs(t, ctx, dead, frame->iters.at(0).get(), became_ready);
    }
    return frame;
  }

  void PropagateInvariant(const Frame::Invariant& inv, Iter* iter, Ready& became_ready) {
    const Executor::Item& item = ex_->items_[inv.item];
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const Executor::OutEdge& edge = ex_->out_edges_[e];
      Deliver(edge, inv.dead || edge.dst_slot < 0 ? nullptr : &inv.value, inv.dead, iter, became_ready);
    }
  }

  // A NextIteration ran in iteration k: a live value starts (or joins) iteration k + 1, or
  // waits while parallel_iterations are alive; a dead one, or a cancelled step, ends the loop.
  void NextIterationDone(Tagged t, OpKernelContext* ctx, bool dead, Ready& became_ready)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_mu_) {
    if (dead) return;
    Frame* frame = t.iter->frame;
    const Executor::StaticFrame& sf = ex_->frames_[frame->static_frame];
    if (args_.cancellation->IsCancelled()) {
      Abort(absl::CancelledError(absl::StrCat("while loop '", sf.name, "' stopped in iteration ", t.iter->number,
                                              ": the step was cancelled")));
      return;
    }
    const int64_t next = t.iter->number + 1;
    const Tensor& value = ctx->outputs()[0];
    if (!value.IsInitialized()) {
      Abort(NodeError(ex_->items_[t.id].kernel->name(), "NextIteration", absl::InternalError("output 0 was not set")));
      return;
    }
    auto it = frame->iters.find(next);
    if (it == frame->iters.end()) {
      if (next >= frame->oldest + sf.parallel_iterations) {
        frame->deferred[next].emplace_back(t.id, value);
        return;
      }
      it = frame->iters.emplace(next, StartIter(frame, next, became_ready)).first;
    }
    PropagateValue(t.id, value, it->second.get(), became_ready);
  }

  // A new iteration sees the loop invariants that have arrived so far.
  std::unique_ptr<Iter> StartIter(Frame* frame, int64_t number, Ready& became_ready) {
    std::unique_ptr<Iter> iter = NewIter(frame, number);
    for (const Frame::Invariant& inv : frame->invariants) PropagateInvariant(inv, iter.get(), became_ready);
    return iter;
  }

  void PropagateValue(int id, const Tensor& value, Iter* target, Ready& became_ready) {
    const Executor::Item& item = ex_->items_[id];
    for (int e = item.out_begin; e < item.out_end; ++e) {
      const Executor::OutEdge& edge = ex_->out_edges_[e];
      Deliver(edge, edge.dst_slot < 0 ? nullptr : &value, false, target, became_ready);
    }
  }

  // Retires the frame's finished iterations, oldest first, starting deferred ones as room
  // frees up; a frame with nothing left hands its dead Exits to the parent and goes away,
  // which may finish the parent's iteration in turn.
  void FinishDone(Frame* frame, Ready& became_ready) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_mu_) {
    while (frame != nullptr) {
      const Executor::StaticFrame& sf = ex_->frames_[frame->static_frame];
      while (!frame->iters.empty() && frame->pending_enters == 0) {
        auto oldest = frame->iters.begin();
        if (oldest->second->outstanding > 0 || !oldest->second->children.empty()) break;
        frame->oldest = oldest->first + 1;
        frame->iters.erase(oldest);
        while (!frame->deferred.empty() && frame->deferred.begin()->first < frame->oldest + sf.parallel_iterations) {
          auto d = frame->deferred.begin();
          auto started = frame->iters.emplace(d->first, StartIter(frame, d->first, became_ready)).first;
          for (const auto& [id, value] : d->second) PropagateValue(id, value, started->second.get(), became_ready);
          frame->deferred.erase(d);
        }
      }
      if (!frame->iters.empty() || frame->pending_enters > 0 || !frame->deferred.empty()) return;
      Iter* parent = frame->parent_iter;
      for (int exit : sf.exits) {
        if (!frame->live_exits.contains(exit)) PropagateOutputs(Tagged{exit, parent}, nullptr, true, parent, became_ready);
      }
      parent->children.erase(frame->static_frame);  // Deletes `frame`.
      --parent->outstanding;
      if (parent->outstanding > 0) return;
      frame = parent->frame;
    }
  }

  void Schedule(Tagged t, Ready& ready) {
    ThreadPool* pool = ex_->options_.inter_op_pool;
    if (pool != nullptr && ex_->items_[t.id].expensive && !ready.empty()) {
      pool->Schedule([this, t] {
        Ready local;
        Process(t, local);
        RunReady(local);
      });
    } else {
      ready.push_back(t);
    }
  }

  void Abort(absl::Status s) {
    {
      absl::MutexLock lock(&mu_);
      if (status_.ok()) status_ = std::move(s);
    }
    if (!aborted_.exchange(true)) args_.cancellation->StartCancel();
  }

  void Finish() {
    absl::Status s;
    {
      absl::MutexLock lock(&mu_);
      s = status_;
    }
    auto done = std::move(done_);
    delete this;
    done(s);
  }

  const Executor* ex_;
  const bool loops_;  // The graph has while loops: frames are bookkept under loop_mu_.
  Executor::Args args_;
  std::function<void(absl::Status)> done_;
  absl::Mutex merge_mu_;
  absl::Mutex loop_mu_;
  std::unique_ptr<Iter> root_;
  std::atomic<int> outstanding_{0};
  std::atomic<bool> aborted_{false};
  CancellationManager own_cancellation_;
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

void Executor::RunAsync(const Args& args, std::function<void(absl::Status)> done) {
  (new ExecutorState(this, args, std::move(done)))->Start();
}

absl::Status Executor::Run(const Args& args) {
  absl::Notification finished;
  absl::Status result;
  RunAsync(args, [&](absl::Status s) {
    result = std::move(s);
    finished.Notify();
  });
  finished.WaitForNotification();
  return result;
}

}  // namespace tw
