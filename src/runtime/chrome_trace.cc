#include "runtime/chrome_trace.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace tw {
namespace {

// A JSON string literal.
std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// TF's _parse_op_label: "name = Op(in, in)" -> (name, op, inputs); "unknown" otherwise.
struct Label {
  std::string name = "unknown", op = "unknown";
  std::vector<std::string> inputs;
};
Label ParseLabel(const std::string& label) {
  Label out;
  const size_t close = label.rfind(')');
  if (close == std::string::npos) return out;
  const size_t open = label.rfind('(', close);
  if (open == std::string::npos) return out;
  const size_t eq = label.rfind(" = ", open);
  if (eq == std::string::npos) return out;
  out.name = label.substr(0, eq);
  out.op = label.substr(eq + 3, open - eq - 3);
  const std::string inputs = label.substr(open + 1, close - open - 1);
  if (!inputs.empty()) out.inputs = absl::StrSplit(inputs, ", ");
  return out;
}

// A transfer's "tensor @peer_device" (the input of a _Send/_Recv label).
std::pair<std::string, std::string> TransferEnds(const Label& label) {
  if (label.inputs.size() != 1) return {};
  const size_t at = label.inputs[0].rfind(" @");
  if (at == std::string::npos) return {};
  return {label.inputs[0].substr(0, at), label.inputs[0].substr(at + 2)};
}

struct Where {
  int64_t ts;
  int pid, tid;
};

class TraceWriter {
 public:
  void Process(int pid, absl::string_view name) {
    metadata_.push_back(absl::StrCat("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":", pid,
                                     ",\"args\":{\"name\":", Quote(name), "}}"));
  }
  void Region(const Where& at, int64_t dur, absl::string_view name, absl::string_view args) {
    events_.push_back(absl::StrCat("{\"ph\":\"X\",\"cat\":\"Op\",\"name\":", Quote(name), ",\"pid\":", at.pid,
                                   ",\"tid\":", at.tid, ",\"ts\":", at.ts, ",\"dur\":", dur, ",\"args\":", args, "}"));
  }
  void Flow(absl::string_view name, const Where& from, const Where& to) {
    const int id = next_flow_id_++;
    for (const auto& [ph, at] : {std::pair<const char*, const Where&>{"s", from}, {"t", to}}) {
      events_.push_back(absl::StrCat("{\"ph\":\"", ph, "\",\"cat\":\"DataFlow\",\"name\":", Quote(name),
                                     ",\"pid\":", at.pid, ",\"tid\":", at.tid, ",\"ts\":", at.ts, ",\"id\":", id,
                                     "}"));
    }
  }
  void Object(const char* ph, absl::string_view name, const Where& at, int id, absl::string_view args) {
    events_.push_back(absl::StrCat("{\"ph\":\"", ph, "\",\"cat\":\"Tensor\",\"name\":", Quote(name), ",\"pid\":",
                                   at.pid, ",\"tid\":", at.tid, ",\"ts\":", at.ts, ",\"id\":", id,
                                   args.empty() ? "" : absl::StrCat(",\"args\":", args), "}"));
  }
  std::string Json() const {
    std::vector<std::string> all = metadata_;
    all.insert(all.end(), events_.begin(), events_.end());
    return absl::StrCat("{\"traceEvents\":[\n", absl::StrJoin(all, ",\n"), "\n]}\n");
  }

 private:
  std::vector<std::string> metadata_, events_;
  int next_flow_id_ = 0;
};

// TF's _assign_lanes: each node takes the first lane free at its start.
std::vector<int> AssignLanes(const DeviceStepStats& dev) {
  std::vector<int64_t> lane_ends = {0};
  std::vector<int> lanes;
  for (const NodeExecStats& ns : dev.node_stats()) {
    int lane = -1;
    for (size_t i = 0; i < lane_ends.size(); ++i) {
      if (ns.all_start_micros() > lane_ends[i]) {
        lane = static_cast<int>(i);
        break;
      }
    }
    if (lane < 0) {
      lane = static_cast<int>(lane_ends.size());
      lane_ends.push_back(0);
    }
    lane_ends[lane] = ns.all_start_micros() + ns.all_end_rel_micros();
    lanes.push_back(lane);
  }
  return lanes;
}

}  // namespace

std::string ChromeTraceJson(const StepStats& stats, bool show_dataflow, bool show_memory) {
  TraceWriter out;
  out.Process(0, "Allocators");
  const int num_devices = stats.dev_stats_size();
  std::vector<std::vector<int>> lanes(num_devices);
  for (int d = 0; d < num_devices; ++d) {
    out.Process(1 + 2 * d, absl::StrCat(stats.dev_stats(d).device(), " Compute"));
    out.Process(2 + 2 * d, absl::StrCat(stats.dev_stats(d).device(), " Tensors"));
    lanes[d] = AssignLanes(stats.dev_stats(d));
  }
  // Where each tensor ("node" or "node:slot") was produced, and each _Send by
  // (tensor, sending device, receiving device).
  struct Produced {
    Where end;
    Where start;
    int64_t bytes;
    int64_t last_use;
  };
  absl::flat_hash_map<std::string, Produced> produced;
  absl::flat_hash_map<std::tuple<std::string, std::string, std::string>, Where> sends;
  for (int d = 0; d < num_devices; ++d) {
    const DeviceStepStats& dev = stats.dev_stats(d);
    for (int i = 0; i < dev.node_stats_size(); ++i) {
      const NodeExecStats& ns = dev.node_stats(i);
      const int64_t end = ns.all_start_micros() + ns.all_end_rel_micros();
      const Where start{ns.all_start_micros(), 1 + 2 * d, lanes[d][i]};
      for (const NodeOutput& o : ns.output()) {
        const std::string name = o.slot() == 0 ? ns.node_name() : absl::StrCat(ns.node_name(), ":", o.slot());
        produced[name] = Produced{Where{end, start.pid, start.tid}, start,
                                  o.tensor_description().allocation_description().requested_bytes(), end};
      }
      const Label label = ParseLabel(ns.timeline_label());
      if (label.op == "_Send") {
        auto [tensor, peer] = TransferEnds(label);
        sends[{tensor, dev.device(), peer}] = Where{end, start.pid, start.tid};
      }
    }
  }
  for (int d = 0; d < num_devices; ++d) {
    const DeviceStepStats& dev = stats.dev_stats(d);
    for (int i = 0; i < dev.node_stats_size(); ++i) {
      const NodeExecStats& ns = dev.node_stats(i);
      const Where at{ns.all_start_micros(), 1 + 2 * d, lanes[d][i]};
      const int64_t end = ns.all_start_micros() + ns.all_end_rel_micros();
      const Label label = ParseLabel(ns.timeline_label());
      std::string args = absl::StrCat("{\"name\":", Quote(ns.node_name()), ",\"op\":", Quote(label.op));
      for (size_t k = 0; k < label.inputs.size(); ++k) absl::StrAppend(&args, ",\"input", k, "\":", Quote(label.inputs[k]));
      args += "}";
      out.Region(at, ns.all_end_rel_micros(), label.op, args);
      for (std::string input : label.inputs) {
        if (!produced.contains(input)) {
          // Partitioning renamed the edge ("x/_3"): the flow comes from the original node.
          const size_t cut = input.rfind("/_");
          if (cut != std::string::npos && cut > 0) input = input.substr(0, cut);
        }
        auto it = produced.find(input);
        if (it == produced.end()) continue;
        it->second.last_use = std::max(it->second.last_use, end);
        const Where& from = it->second.end;
        if (show_dataflow && (from.pid != at.pid || from.tid != at.tid)) out.Flow(input, from, at);
      }
      if (show_dataflow && label.op == "_Recv") {
        auto [tensor, peer] = TransferEnds(label);
        auto it = sends.find(std::make_tuple(tensor, peer, dev.device()));
        if (it != sends.end()) {
          const Where to{std::clamp(it->second.ts, at.ts, end), at.pid, at.tid};
          out.Flow(tensor, it->second, to);
        }
      }
    }
  }
  if (show_memory) {
    int id = 0;
    std::vector<std::pair<std::string, Produced>> tensors(produced.begin(), produced.end());
    std::sort(tensors.begin(), tensors.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [name, p] : tensors) {
      const Where where{p.start.ts, p.start.pid + 1, 0};  // The device's Tensors process.
      out.Object("N", name, where, id, "");
      out.Object("O", name, where, id, absl::StrCat("{\"snapshot\":{\"tensor\":", Quote(name), ",\"bytes\":", p.bytes, "}}"));
      out.Object("D", name, Where{p.last_use, where.pid, 0}, id, "");
      ++id;
    }
  }
  return out.Json();
}

}  // namespace tw
