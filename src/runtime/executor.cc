#include "runtime/executor.h"

#include <atomic>

#include "absl/container/inlined_vector.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/denormal.h"
#include "absl/strings/str_cat.h"
#include "graph/attr_value.h"
#include "kernels/kernel_registry.h"

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

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(const FlowGraph& graph, ExecutorOptions options) {
  std::unique_ptr<Executor> ex(new Executor);
  ex->options_ = std::move(options);
  if (ex->options_.device == nullptr) return absl::InvalidArgumentError("executor needs a device");
  if (!ex->options_.create_kernel) {
    Device* device = ex->options_.device;
    ex->options_.create_kernel = [device](const Node& node) -> absl::StatusOr<std::shared_ptr<OpKernel>> {
      auto k = KernelRegistry::Global().Create(node, device->name(), device->device_type(),
                                               device->resource_mgr());
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
    item.is_merge = node.op() == "Merge";
    item.may_leave_unset = node.op() == "Switch";
    if (node.op() == "_Retval" && node.num_inputs() == 1) {
      const Edge* in = node.input_edge(0);
      auto index = GetIntAttr(node.attrs(), "index");
      item.dead_error = absl::StrCat("Retval[", index.ok() ? *index : 0, "] does not have value: the fetched tensor ",
                                     in->src->name(), ":", in->src_output,
                                     " is dead (it depends on a cond branch that was not taken)");
    } else if (node.op() == "_Send") {
      item.dead_error = absl::StrCat("node ", node.name(), ": the tensor it sends to another device is dead ",
                                     "(a cond branch not taken); control flow spanning devices is not supported");
      item.dead_error_unimplemented = true;
    }
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
    }
    item.out_end = static_cast<int>(ex->out_edges_.size());
  }
  return ex;
}

Executor::~Executor() = default;

// The state of one step. Deletes itself after calling `done`.
class ExecutorState {
 public:
  ExecutorState(const Executor* ex, const Executor::Args& args, std::function<void(absl::Status)> done)
      : ex_(ex),
        args_(args),
        done_(std::move(done)),
        slots_(ex->num_slots_),
        pending_(new std::atomic<int>[ex->items_.size()]),
        dead_(new std::atomic<bool>[ex->items_.size()]) {
    for (size_t i = 0; i < ex->items_.size(); ++i) {
      pending_[i].store(ex->items_[i].initial_pending, std::memory_order_relaxed);
      dead_[i].store(false, std::memory_order_relaxed);
      if (ex->items_[i].is_merge) merges_[static_cast<int>(i)].control_pending = ex->items_[i].num_control_inputs;
    }
    if (args_.cancellation == nullptr) args_.cancellation = &own_cancellation_;
  }

  void Start() {
    if (ex_->roots_.empty()) {
      Finish();
      return;
    }
    outstanding_.store(static_cast<int>(ex_->roots_.size()), std::memory_order_relaxed);
    Ready ready(ex_->roots_.begin(), ex_->roots_.end());
    RunReady(ready);
  }

 private:
  using Ready = absl::InlinedVector<int, 8>;

  // Runs `ready` and everything it makes ready inline, except expensive nodes, which
  // go to the pool when there is other work for this thread.
  void RunReady(Ready& ready) {
    while (!ready.empty()) {
      int id = ready.back();
      ready.pop_back();
      Process(id, ready);
    }
  }

  void Process(int id, Ready& ready) {
    ScopedFlushDenormal flush;  // Whichever thread runs the kernel (core/denormal.h).
    const Executor::Item& item = ex_->items_[id];
    // A node runs once its inputs are there, even in a step that failed or was cancelled
    // (as TensorFlow's executor): what ends such a step is its waiting kernels (_Recv,
    // dequeues) failing with the abort, and their consumers never becoming ready. Skipping
    // ready nodes instead could stop a step half-way through its updates: a ps whose
    // caller went away applied some variables' updates and not the others' or the global
    // step's increment (scripts/netns_fault_test.sh, RELIABILITY.md).
    if (dead_[id].load(std::memory_order_acquire)) {
      if (!item.dead_error.empty()) {
        Abort(item.dead_error_unimplemented ? absl::UnimplementedError(item.dead_error)
                                            : absl::InvalidArgumentError(item.dead_error));
        NodeDone(id, nullptr, ready);
      } else {
        NodeDone(id, nullptr, ready, /*dead=*/true);
      }
      return;
    }
    OpKernelContext::Params params;
    params.inputs = slots_.data() + item.input_start;
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
    if (item.async) {
      auto* ctx = new OpKernelContext(params);
      static_cast<AsyncOpKernel*>(item.kernel.get())->ComputeAsync(*ctx, [this, id, ctx](absl::Status s) {
        if (!s.ok()) Abort(NodeError(ex_->items_[id].kernel->name(), ex_->items_[id].kernel->op(), s));
        Ready next;
        NodeDone(id, s.ok() ? ctx : nullptr, next);
        delete ctx;
        RunReady(next);
      });
      return;
    }
    OpKernelContext ctx(params);
    absl::Status s = item.kernel->Compute(ctx);
    if (!s.ok()) Abort(NodeError(item.kernel->name(), item.kernel->op(), s));
    NodeDone(id, s.ok() ? &ctx : nullptr, ready);
  }

  // Releases the node's inputs, hands its outputs (if it succeeded) to consumers and
  // queues those that became ready. `ctx` is null when the node failed, was skipped or is
  // dead; a dead node passes deadness along every out edge.
  void NodeDone(int id, OpKernelContext* ctx, Ready& ready, bool dead = false) {
    const Executor::Item& item = ex_->items_[id];
    for (int i = 0; i < item.num_inputs; ++i) slots_[item.input_start + i] = Tensor();
    Ready became_ready;
    if (ctx != nullptr || dead) {
      for (int e = item.out_begin; e < item.out_end; ++e) {
        const Executor::OutEdge& edge = ex_->out_edges_[e];
        if (dead) {
          Deliver(edge, nullptr, /*dead=*/true, became_ready);
          continue;
        }
        if (edge.dst_slot < 0) {
          Deliver(edge, nullptr, /*dead=*/false, became_ready);
          continue;
        }
        const Tensor& out = ctx->outputs()[edge.src_output];
        if (!out.IsInitialized()) {
          if (item.may_leave_unset) {
            Deliver(edge, nullptr, /*dead=*/true, became_ready);
            continue;
          }
          Abort(NodeError(item.kernel->name(), item.kernel->op(),
                          absl::InternalError(absl::StrCat("output ", edge.src_output, " was not set"))));
          break;
        }
        Deliver(edge, &out, /*dead=*/false, became_ready);
      }
    }
    // Count the new nodes before any can run (and finish) on another thread.
    if (!became_ready.empty()) {
      outstanding_.fetch_add(static_cast<int>(became_ready.size()), std::memory_order_relaxed);
      for (int dst : became_ready) Schedule(dst, ready);
    }
    if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) Finish();
  }

  // Hands one edge's value (null for a control edge or a dead one) to its consumer.
  void Deliver(const Executor::OutEdge& edge, const Tensor* value, bool dead, Ready& became_ready) {
    if (ex_->items_[edge.dst].is_merge) {
      DeliverToMerge(edge, value, dead, became_ready);
      return;
    }
    if (dead) {
      dead_[edge.dst].store(true, std::memory_order_relaxed);  // Published by the fetch_sub.
    } else if (edge.dst_slot >= 0) {
      slots_[edge.dst_slot] = *value;
    }
    if (pending_[edge.dst].fetch_sub(1, std::memory_order_acq_rel) == 1) became_ready.push_back(edge.dst);
  }

  // A Merge fires once: when its control inputs are done and one data input is live (it
  // forwards that one; later live inputs are dropped), or dead once every data input is dead.
  void DeliverToMerge(const Executor::OutEdge& edge, const Tensor* value, bool dead, Ready& became_ready) {
    const Executor::Item& dst = ex_->items_[edge.dst];
    absl::MutexLock lock(&merge_mu_);
    MergeState& m = merges_[edge.dst];
    if (m.fired) return;
    if (edge.dst_slot < 0) {
      --m.control_pending;
    } else if (dead) {
      ++m.dead_inputs;
    } else {
      slots_[edge.dst_slot] = *value;
      m.live = true;
    }
    if (m.control_pending == 0 && (m.live || m.dead_inputs == dst.num_inputs)) {
      m.fired = true;
      if (!m.live) dead_[edge.dst].store(true, std::memory_order_release);
      became_ready.push_back(edge.dst);
    }
  }

  void Schedule(int id, Ready& ready) {
    ThreadPool* pool = ex_->options_.inter_op_pool;
    if (pool != nullptr && ex_->items_[id].expensive && !ready.empty()) {
      pool->Schedule([this, id] {
        Ready local;
        Process(id, local);
        RunReady(local);
      });
    } else {
      ready.push_back(id);
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
  Executor::Args args_;
  std::function<void(absl::Status)> done_;
  std::vector<Tensor> slots_;
  std::unique_ptr<std::atomic<int>[]> pending_;
  std::unique_ptr<std::atomic<bool>[]> dead_;  // A data or control input was dead.
  struct MergeState {
    int control_pending = 0;
    int dead_inputs = 0;
    bool live = false;
    bool fired = false;
  };
  absl::Mutex merge_mu_;
  absl::flat_hash_map<int, MergeState> merges_ ABSL_GUARDED_BY(merge_mu_);
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
