#include "runtime/partitioner.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "tensor/tensor_proto.h"

namespace tw {
namespace {

class Partitioner {
 public:
  Partitioner(const FlowGraph& graph, const PartitionOptions& options) : graph_(graph), options_(options) {
    for (const Node* n : graph.nodes()) device_index_.emplace(n->assigned_device(), device_index_.size());
  }

  absl::StatusOr<std::map<std::string, GraphDef>> Run() {
    for (const Node* n : graph_.nodes()) {
      if (n->assigned_device().empty()) {
        return absl::InternalError(absl::StrCat("node '", n->name(), "' is not placed"));
      }
      parts_[n->assigned_device()];  // Every device gets a partition, even one with no edges.
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
    AddPair(TensorName(src, index), src->assigned_device(), dst_device, src->output_type(index),
            src->output_shape(index), absl::StrCat(src->name(), ":", index), "_send/" + suffix,
            "_recv/" + suffix);
    return recvs_[key] = "_recv/" + suffix;
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
    AddPair(dummy.name(), src->assigned_device(), dst_device, DType::kInt32, PartialShape({}),
            absl::StrCat("^", src->name()), "_send/" + suffix, "_recv/" + suffix);
    return recvs_[key] = "_recv/" + suffix;
  }

  void AddPair(const std::string& input, const std::string& src_device, const std::string& dst_device,
               DType dtype, const PartialShape& shape, const std::string& tensor_name,
               const std::string& send_name, const std::string& recv_name) {
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
    *parts_[src_device].add_node() = std::move(send);

    NodeDef recv;
    recv.set_name(recv_name);
    recv.set_op("_Recv");
    recv.set_device(dst_device);
    common(recv);
    (*recv.mutable_attr())["tensor_type"] = MakeAttr(dtype);
    (*recv.mutable_attr())["shape"] = MakeAttr(shape);
    *parts_[dst_device].add_node() = std::move(recv);
  }

  const FlowGraph& graph_;
  const PartitionOptions& options_;
  absl::flat_hash_map<std::string, int> device_index_;
  absl::flat_hash_map<std::string, std::string> recvs_;
  std::map<std::string, GraphDef> parts_;
};

}  // namespace

absl::StatusOr<std::map<std::string, GraphDef>> Partition(const FlowGraph& graph, const PartitionOptions& options) {
  return Partitioner(graph, options).Run();
}

}  // namespace tw
