// The static frame analysis of the executor: which while-loop frame each node runs in.
// A walk from the nodes without inputs: an Enter's consumers are in the child frame named
// by its frame_name, an Exit's consumers in its frame's parent, everything else in the
// frame of its inputs. A node reached from two frames or an Exit outside any loop is refused
// here. A _Recv inside a loop is started by the partitioner's control loop (partitioner.h).
#include <algorithm>
#include <deque>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/attr_value.h"
#include "runtime/executor.h"

namespace tw {
namespace {

bool FedByRecv(const Node& node) {
  for (int i = 0; i < node.num_inputs(); ++i)
    if (node.input_edge(i)->src->op() == "_Recv") return true;
  for (const Edge* e : node.control_inputs())
    if (e->src->op() == "_Recv") return true;
  return false;
}

// The frame_name of the loop a NextIteration belongs to (through its Merge's Enter), for
// errors about a partition that holds only part of a loop; the node's name otherwise.
std::string LoopNameNear(const Node& node) {
  for (const Edge* e : node.out_edges()) {
    const Node* merge = e->dst;
    if (merge->op() != "Merge") continue;
    for (int i = 0; i < merge->num_inputs(); ++i) {
      const Node* src = merge->input_edge(i)->src;
      auto name = GetStringAttr(src->attrs(), "frame_name");
      if (src->op() == "Enter" && name.ok()) return *name;
    }
  }
  return node.name();
}

absl::Status SpansPartitions(const Node& node, const std::string& loop) {
  return NodeError(node.name(), node.op(), absl::UnimplementedError(absl::StrCat(
      "while loop '", loop, "' spans devices or tasks, and this partition receives a tensor of it ",
      "without the loop's control loop (a graph partitioned by hand, or not by tensorweave)")));
}

}  // namespace

absl::Status Executor::BuildFrames(const FlowGraph& graph) {
  const auto& nodes = graph.nodes();
  frames_.assign(1, StaticFrame{});
  std::map<std::pair<int, std::string>, int> child_of;  // (parent frame, frame_name) -> frame
  std::vector<int> frame_of(nodes.size(), -1);
  std::deque<int> queue;
  bool has_recv = false;
  for (const Node* n : nodes) has_recv = has_recv || n->op() == "_Recv";
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]->num_inputs() == 0 && nodes[i]->control_inputs().empty()) {
      frame_of[i] = 0;
      queue.push_back(static_cast<int>(i));
    }
  }
  auto frame_label = [&](int f) { return f == 0 ? std::string("the root frame") : "frame '" + frames_[f].name + "'"; };
  while (!queue.empty()) {
    const int id = queue.front();
    queue.pop_front();
    const Node& node = *nodes[id];
    Item& item = items_[id];
    const int frame = frame_of[id];
    item.frame = frame;
    int out_frame = frame;
    if (node.op() == "Enter" || node.op() == "RefEnter") {
      auto name = GetStringAttr(node.attrs(), "frame_name");
      if (!name.ok() || name->empty()) {
        return NodeError(node.name(), node.op(), absl::InvalidArgumentError("an Enter needs a frame_name"));
      }
      auto [it, fresh] = child_of.emplace(std::make_pair(frame, *name), static_cast<int>(frames_.size()));
      if (fresh) {
        StaticFrame f;
        f.name = *name;
        f.parent = frame;
        auto p = GetIntAttr(node.attrs(), "parallel_iterations");
        f.parallel_iterations = p.ok() && *p > 0 ? static_cast<int>(*p) : 10;
        frames_.push_back(std::move(f));
      }
      out_frame = it->second;
      ++frames_[out_frame].num_enters;
      item.loop = Item::Loop::kEnter;
      item.enter_frame = out_frame;
      auto constant = GetBoolAttr(node.attrs(), "is_constant");
      item.enter_constant = constant.ok() && *constant;
      has_loops_ = true;
    } else if (node.op() == "Exit" || node.op() == "RefExit") {
      if (frame == 0) {
        if (FedByRecv(node)) return SpansPartitions(node, node.name());
        return NodeError(node.name(), node.op(), absl::InvalidArgumentError("an Exit outside any while loop"));
      }
      frames_[frame].exits.push_back(id);
      out_frame = frames_[frame].parent;
      item.loop = Item::Loop::kExit;
    } else if (node.op() == "NextIteration" || node.op() == "RefNextIteration") {
      if (frame == 0) {
        if (FedByRecv(node)) return SpansPartitions(node, LoopNameNear(node));
        return NodeError(node.name(), node.op(),
                         absl::InvalidArgumentError("a NextIteration outside any while loop"));
      }
      item.loop = Item::Loop::kNextIteration;
    }
    for (const Edge* e : node.out_edges()) {
      const int dst = e->dst->id();
      if (dst < 0 || dst >= static_cast<int>(nodes.size()) || nodes[dst] != e->dst) continue;
      if (frame_of[dst] == -1) {
        frame_of[dst] = out_frame;
        queue.push_back(dst);
      } else if (frame_of[dst] != out_frame) {
        const int loop = std::max(frame_of[dst], out_frame);
        // In a partition, a tensor received from another one starts in the root frame.
        if (has_recv) return SpansPartitions(*e->dst, frames_[loop].name);
        return NodeError(e->dst->name(), e->dst->op(), absl::InvalidArgumentError(absl::StrCat(
            "its inputs come from two different while-loop frames (", frame_label(frame_of[dst]), " and ",
            frame_label(out_frame), " through '", node.name(), "')")));
      }
    }
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (items_[i].is_merge) {
      for (int k = 0; k < nodes[i]->num_inputs(); ++k) {
        if (items_[nodes[i]->input_edge(k)->src->id()].loop != Item::Loop::kNextIteration) {
          ++items_[i].merge_forward_inputs;
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tw
