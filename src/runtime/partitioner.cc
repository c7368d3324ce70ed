#include "runtime/partitioner.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/loop_frames.h"
#include "tensor/tensor_proto.h"

namespace tw {

const char kFrameAttr[] = "_frame";

namespace {

class Partitioner {
 public:
  Partitioner(const FlowGraph& graph, const PartitionOptions& options) : graph_(graph), options_(options) {
    for (const Node* n : graph.nodes()) device_index_.emplace(n->assigned_device(), device_index_.size());
  }

  absl::StatusOr<std::map<std::string, GraphDef>> Run() {
    bool has_loops = false;
    for (const Node* n : graph_.nodes()) {
      if (n->assigned_device().empty()) {
        return absl::InternalError(absl::StrCat("node '", n->name(), "' is not placed"));
      }
      parts_[n->assigned_device()];  // Every device gets a partition, even one with no edges.
      has_loops = has_loops || n->op() == "Enter" || n->op() == "RefEnter";
    }
    if (has_loops) {
      auto frames = FindLoopFrames(graph_);
      if (!frames.ok()) return frames.status();
      frames_ = *std::move(frames);
    }
    for (const Node* n : graph_.nodes()) {
      NodeDef def = n->ToNodeDef();
      def.set_device(n->assigned_device());
      def.clear_input();
      for (int i = 0; i < n->num_inputs(); ++i) {
        const Edge* e = n->input_edge(i);
        def.add_input(e->src->assigned_device() == n->assigned_device()
                          ? TensorName(e->src, e->src_output)
                          : RecvFor(e->src, e->src_output, n->assigned_device()));
      }
      for (const Edge* e : n->control_inputs()) {
        def.add_input(e->src->assigned_device() == n->assigned_device()
                          ? "^" + e->src->name()
                          : "^" + ControlRecvFor(e->src, n->assigned_device()));
      }
      *parts_[n->assigned_device()].add_node() = std::move(def);
    }
    if (!status_.ok()) return status_;
    return std::move(parts_);
  }

 private:
  static std::string TensorName(const Node* n, int index) {
    return index == 0 ? n->name() : absl::StrCat(n->name(), ":", index);
  }

  // Adds (once) the _Send on the source's device and the _Recv on `dst_device`; returns
  // the _Recv's name.
  std::string RecvFor(const Node* src, int index, const std::string& dst_device) {
    const std::string key = absl::StrCat(src->name(), ":", index, "@", dst_device);
    auto it = recvs_.find(key);
    if (it != recvs_.end()) return it->second;
    const std::string suffix = absl::StrCat(src->name(), "/", index, "/to", device_index_[dst_device]);
    recvs_[key] = "_recv/" + suffix;  // Before the frame's control loop, which may receive its predicate here.
    AddPair(TensorName(src, index), src->assigned_device(), dst_device, src->output_type(index),
            src->output_shape(index), absl::StrCat(src->name(), ":", index), "_send/" + suffix,
            "_recv/" + suffix, ValueFrame(*src));
    return "_recv/" + suffix;
  }

  // A control edge across devices: a dummy scalar made after `src`, sent over.
  std::string ControlRecvFor(const Node* src, const std::string& dst_device) {
    const std::string key = absl::StrCat("^", src->name(), "@", dst_device);
    auto it = recvs_.find(key);
    if (it != recvs_.end()) return it->second;
    const std::string suffix = absl::StrCat(src->name(), "/ctrl/to", device_index_[dst_device]);
    NodeDef dummy;
    dummy.set_name("_ctrl/" + suffix);
    dummy.set_op("Const");
    dummy.set_device(src->assigned_device());
    dummy.add_input("^" + src->name());
    (*dummy.mutable_attr())["dtype"] = MakeAttr(DType::kInt32);
    (*dummy.mutable_attr())["value"] = MakeAttr(Tensor::Scalar<int32_t>(0));
    *parts_[src->assigned_device()].add_node() = dummy;
    recvs_[key] = "_recv/" + suffix;
    AddPair(dummy.name(), src->assigned_device(), dst_device, DType::kInt32, PartialShape({}),
            absl::StrCat("^", src->name()), "_send/" + suffix, "_recv/" + suffix, ValueFrame(*src));
    return "_recv/" + suffix;
  }

  // The while-loop frame `src`'s outputs live in (0: the root, or no loops).
  int ValueFrame(const Node& src) const { return frames_.frames.size() > 1 ? frames_.OutputFrame(src) : 0; }

  // A pair inside loop frame `frame` (not the root) is marked with the frame's name (the worker
  // pulls such keys when asked for, one per iteration), and its _Recv runs once per iteration
  // of the frame: a control edge from the frame's control loop on the receiving device.
  void AddPair(const std::string& input, const std::string& src_device, const std::string& dst_device,
               DType dtype, const PartialShape& shape, const std::string& tensor_name,
               const std::string& send_name, const std::string& recv_name, int frame) {
    const int64_t incarnation = static_cast<int64_t>(options_.incarnation(src_device));
    auto common = [&](NodeDef& def) {
      auto& attr = *def.mutable_attr();
      attr["tensor_name"] = MakeAttr(tensor_name);
      attr["send_device"] = MakeAttr(src_device);
      attr["send_device_incarnation"] = MakeAttr(incarnation);
      attr["recv_device"] = MakeAttr(dst_device);
      attr["client_terminated"] = MakeAttr(false);
    };
    NodeDef send;
    send.set_name(send_name);
    send.set_op("_Send");
    send.set_device(src_device);
    send.add_input(input);
    common(send);
    (*send.mutable_attr())["T"] = MakeAttr(dtype);
    if (frame != 0) (*send.mutable_attr())[kFrameAttr] = MakeAttr(frames_.frames[frame].name);
    *parts_[src_device].add_node() = std::move(send);

    NodeDef recv;
    recv.set_name(recv_name);
    recv.set_op("_Recv");
    recv.set_device(dst_device);
    common(recv);
    (*recv.mutable_attr())["tensor_type"] = MakeAttr(dtype);
    (*recv.mutable_attr())["shape"] = MakeAttr(shape);
    if (frame != 0) {
      (*recv.mutable_attr())[kFrameAttr] = MakeAttr(frames_.frames[frame].name);
      std::optional<std::string> merge = ControlLoopFor(frame, dst_device);
      if (merge.has_value()) recv.add_input("^" + *merge);
    }
    *parts_[dst_device].add_node() = std::move(recv);
  }

  // The control loop of `frame` on `device` (made once), as TF1's partitioner makes them: a
  // loop of dummy nodes that iterates whenever the loop does, driven by the loop's LoopCond,
  //   Enter(const) -> Merge(Enter, NextIteration) -> Switch(Merge, LoopCond) -> NextIteration(Switch:1);
  // returns its Merge, which fires once in every iteration (the last one too). Null after an error.
  std::optional<std::string> ControlLoopFor(int frame, const std::string& device) {
    const auto key = std::make_pair(frame, device);
    if (auto it = control_loops_.find(key); it != control_loops_.end()) return it->second;
    const LoopFrames::Frame& f = frames_.frames[frame];
    if (f.parent != 0) {
      Fail(absl::UnimplementedError(absl::StrCat("while loop '", f.name, "' is nested in loop '",
                                                 frames_.frames[f.parent].name, "' and spans devices or tasks; ",
                                                 "only outermost loops may span them")));
      return std::nullopt;
    }
    if (f.loop_cond == nullptr) {
      Fail(absl::InvalidArgumentError(absl::StrCat("while loop '", f.name,
                                                   "' spans devices or tasks but has no LoopCond")));
      return std::nullopt;
    }
    const std::string prefix = absl::StrCat("_cloop/", f.name, "/", device_index_[device], "/");
    control_loops_[key] = prefix + "merge";
    GraphDef& part = parts_[device];
    auto add = [&](const std::string& name, const std::string& op, std::vector<std::string> inputs) {
      NodeDef* def = part.add_node();
      def->set_name(prefix + name);
      def->set_op(op);
      def->set_device(device);
      for (std::string& in : inputs) def->add_input(std::move(in));
      if (op != "Const") (*def->mutable_attr())["T"] = MakeAttr(DType::kInt32);
      return def;
    };
    NodeDef* start = add("start", "Const", {});
    (*start->mutable_attr())["dtype"] = MakeAttr(DType::kInt32);
    (*start->mutable_attr())["value"] = MakeAttr(Tensor::Scalar<int32_t>(0));
    NodeDef* enter = add("enter", "Enter", {prefix + "start"});
    (*enter->mutable_attr())["frame_name"] = MakeAttr(f.name);
    (*enter->mutable_attr())["is_constant"] = MakeAttr(false);
    (*enter->mutable_attr())["parallel_iterations"] = MakeAttr(f.parallel_iterations);
    NodeDef* merge = add("merge", "Merge", {prefix + "enter", prefix + "next"});
    (*merge->mutable_attr())["N"] = MakeAttr(int64_t{2});
    const std::string pred = f.loop_cond->assigned_device() == device ? f.loop_cond->name()
                                                                       : RecvFor(f.loop_cond, 0, device);
    add("switch", "Switch", {prefix + "merge", pred});
    add("next", "NextIteration", {prefix + "switch:1"});
    return prefix + "merge";
  }

  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  const FlowGraph& graph_;
  const PartitionOptions& options_;
  LoopFrames frames_;
  std::map<std::pair<int, std::string>, std::string> control_loops_;  // (frame, device) -> its Merge
  absl::Status status_;
  absl::flat_hash_map<std::string, int> device_index_;
  absl::flat_hash_map<std::string, std::string> recvs_;
  std::map<std::string, GraphDef> parts_;
};

}  // namespace

absl::StatusOr<std::map<std::string, GraphDef>> Partition(const FlowGraph& graph, const PartitionOptions& options) {
  return Partitioner(graph, options).Run();
}

}  // namespace tw
