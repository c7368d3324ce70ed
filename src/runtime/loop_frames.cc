#include "runtime/loop_frames.h"

#include <deque>
#include <map>

#include "absl/strings/str_cat.h"
#include "graph/attr_value.h"

namespace tw {

int LoopFrames::OutputFrame(const Node& node) const {
  const int id = node.id();
  if (enter_frame[id] >= 0) return enter_frame[id];
  if (node.op() == "Exit" || node.op() == "RefExit") return frames[frame_of[id]].parent;
  return frame_of[id];
}

absl::StatusOr<LoopFrames> FindLoopFrames(const FlowGraph& graph) {
  LoopFrames out;
  out.frames.assign(1, LoopFrames::Frame{});
  int max_id = -1;
  for (const Node* n : graph.nodes()) max_id = std::max(max_id, n->id());
  out.frame_of.assign(max_id + 1, -1);
  out.enter_frame.assign(max_id + 1, -1);
  std::map<std::pair<int, std::string>, int> child_of;  // (parent, frame_name) -> frame
  std::deque<const Node*> queue;
  for (const Node* n : graph.nodes()) {
    if (n->num_inputs() == 0 && n->control_inputs().empty()) {
      out.frame_of[n->id()] = 0;
      queue.push_back(n);
    }
  }
  while (!queue.empty()) {
    const Node& node = *queue.front();
    queue.pop_front();
    const int frame = out.frame_of[node.id()];
    if (node.op() == "Enter" || node.op() == "RefEnter") {
      auto name = GetStringAttr(node.attrs(), "frame_name");
      if (!name.ok() || name->empty()) {
        return NodeError(node.name(), node.op(), absl::InvalidArgumentError("an Enter needs a frame_name"));
      }
      auto [it, fresh] = child_of.emplace(std::make_pair(frame, *name), static_cast<int>(out.frames.size()));
      if (fresh) {
        LoopFrames::Frame f;
        f.name = *name;
        f.parent = frame;
        auto p = GetIntAttr(node.attrs(), "parallel_iterations");
        if (p.ok() && *p > 0) f.parallel_iterations = *p;
        out.frames.push_back(std::move(f));
      }
      out.enter_frame[node.id()] = it->second;
    } else if ((node.op() == "Exit" || node.op() == "RefExit") && frame == 0) {
      return NodeError(node.name(), node.op(), absl::InvalidArgumentError("an Exit outside any while loop"));
    } else if (node.op() == "LoopCond" && frame != 0) {
      out.frames[frame].loop_cond = &node;
    }
    const int out_frame = out.OutputFrame(node);
    for (const Edge* e : node.out_edges()) {
      int& dst = out.frame_of[e->dst->id()];
      if (dst == -1) {
        dst = out_frame;
        queue.push_back(e->dst);
      } else if (dst != out_frame) {
        return NodeError(e->dst->name(), e->dst->op(), absl::InvalidArgumentError(absl::StrCat(
            "its inputs come from two different while-loop frames (through '", node.name(), "')")));
      }
    }
  }
  return out;
}

}  // namespace tw
