// Runs one placed graph (a partition, all on one device) step after step.
//
// Prepared once: a flat array of nodes with kernels built, input slots as indices into
// one per-step Tensor array, and initial pending counts. Per step: roots start on the
// caller's thread; a finished node hands its outputs to its consumers' slots and
// decrements their pending counts; newly ready cheap nodes run inline on the same
// thread, expensive ones go to the inter-op pool so independent branches run in parallel.
// The first error cancels the step; its Status names the failing node and op.
//
// Dead tensors (TF1's dataflow cond): the output a Switch does not take is dead; a node
// with a dead input (data or control) does not run and its outputs are dead; a Merge runs
// on its first live input, or is dead when all its data inputs are dead. Fetching a dead
// tensor fails naming it. A _Send and a _Recv run even when dead: the dead tensor reaches
// the other partition (a cond or a loop spanning devices or tasks).
//
// While loops (TF1's dataflow loops): an Enter starts its frame_name's child frame (one
// instance per parent frame and iteration) at iteration 0; NextIteration carries a value
// into the next iteration; Exit hands a value back to the parent frame. Every tensor lives
// in one (frame instance, iteration): each iteration has its own input slots, pending
// counts and deadness. An is_constant Enter's value (a loop invariant) reaches every
// iteration. At most parallel_iterations iterations of a frame are alive; a further
// NextIteration waits. A dead NextIteration ends the loop (it starts no iteration); an
// Exit that stayed dead in every iteration is dead in the parent once the frame is done.
// A loop stops iterating once the step is cancelled (deadline, session close, error).
// A loop spanning partitions (the partitioner's control loops, partitioner.h): its _Send and
// _Recv nodes key their tensors by frame instance and iteration.
#ifndef TENSORWEAVE_SRC_RUNTIME_EXECUTOR_H_
#define TENSORWEAVE_SRC_RUNTIME_EXECUTOR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/cancellation.h"
#include "core/threadpool.h"
#include "graph/graph.h"
#include "kernels/op_kernel.h"
#include "runtime/device.h"

namespace tw {

class StepStatsCollector;

using KernelCreator = std::function<absl::StatusOr<std::shared_ptr<OpKernel>>(const Node& node)>;

struct ExecutorOptions {
  Device* device = nullptr;
  ThreadPool* inter_op_pool = nullptr;  // Null: everything runs on the caller's thread.
  // Null: a fresh kernel per node from the global KernelRegistry.
  KernelCreator create_kernel;
  // Cap on any one output a kernel allocates (OpKernelContext::allocate_output): a
  // server passes its ResourceLimits, a local session its SessionOptions.
  int64_t max_tensor_bytes = ResourceLimits{}.max_tensor_bytes;
  // Handed to the kernels the default create_kernel builds (functions calling functions).
  FunctionLibraryRuntime* function_library = nullptr;
};

class Executor {
 public:
  // `graph` must be placed on options.device; it is not retained.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(const FlowGraph& graph, ExecutorOptions options);
  ~Executor();

  struct Args {
    int64_t step_id = 0;
    CallFrame* call_frame = nullptr;
    // The step's cancellation; the executor cancels it on the first error. May be null.
    CancellationManager* cancellation = nullptr;
    // Where _Send/_Recv exchange tensors with other partitions of the step. May be null
    // for a graph without them.
    Rendezvous* rendezvous = nullptr;
    // A traced step's record (step_stats_collector.h): each node run is saved there under
    // the executor's device. Null: nothing is recorded.
    StepStatsCollector* stats = nullptr;
  };
  // Runs the graph once; `done` is called exactly once, on some thread, when every
  // started node has finished. Args pointers must stay valid until then.
  void RunAsync(const Args& args, std::function<void(absl::Status)> done);
  absl::Status Run(const Args& args);

  int num_nodes() const { return static_cast<int>(items_.size()); }

 private:
  friend class ExecutorState;
  struct OutEdge {
    int dst;       // Item index.
    int dst_slot;  // Absolute input slot, or -1 for a control edge.
    int src_output;
  };
  struct Item {
    std::shared_ptr<OpKernel> kernel;
    int input_start = 0;
    int num_inputs = 0;
    int num_outputs = 0;
    int initial_pending = 0;
    bool expensive = false;
    bool async = false;
    int out_begin = 0, out_end = 0;  // Range in out_edges_.
    uint64_t used_outputs = 0;       // Bit i: output i has a data edge (64 and up: always set).
    bool is_merge = false;          // Fires on its first live input (see above).
    bool may_leave_unset = false;   // Switch, _Recv: an unset output is dead, not a bug.
    bool is_transfer = false;       // _Send, _Recv: run even when dead, to carry the deadness over.
    int num_control_inputs = 0;
    // Non-empty for nodes that must not be skipped when dead (_Retval): the error.
    std::string dead_error;
    // While loops: the static frame the node runs in (0: the step's root frame).
    int frame = 0;
    enum class Loop { kNone, kEnter, kExit, kNextIteration } loop = Loop::kNone;
    int enter_frame = -1;        // Enter: the child frame its outputs go into.
    bool enter_constant = false;  // Enter: is_constant (a loop invariant).
    int merge_forward_inputs = 0;  // Merge: inputs not from a NextIteration (back edge).
  };
  struct StaticFrame {
    std::string name;  // The Enters' frame_name ("" for the root).
    int parent = -1;
    int parallel_iterations = 1;
    int num_enters = 0;
    std::vector<int> exits;  // Exit items of the frame.
  };
  // Assigns each item its frame from the Enter/Exit structure; InvalidArgument naming a
  // node when the structure is inconsistent (executor_frames.cc).
  absl::Status BuildFrames(const FlowGraph& graph);
  Executor() = default;

  // Traced steps only: TF's timeline_label of each item ("name = Op(input, ...)"; _Send and
  // _Recv name their tensor and peer device: "name = _Recv(tensor @device)").
  struct TraceInfo {
    std::string label;
    bool is_recv = false;
  };

  ExecutorOptions options_;
  std::vector<Item> items_;
  std::vector<OutEdge> out_edges_;
  std::vector<int> roots_;
  int num_slots_ = 0;
  std::vector<StaticFrame> frames_;  // frames_[0] is the root frame.
  bool has_loops_ = false;
  std::vector<TraceInfo> trace_info_;  // By item.
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_EXECUTOR_H_
