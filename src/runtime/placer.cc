#include "runtime/placer.h"

#include <iostream>
#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/kernel_registry.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) { return parent_[x] == x ? x : parent_[x] = Find(parent_[x]); }
  void Union(int a, int b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<int> parent_;
};

std::string DeviceList(const std::vector<DeviceName>& devices) {
  return absl::StrJoin(devices, ", ",
                       [](std::string* out, const DeviceName& d) { out->append(d.ToString()); });
}

bool HasKernels(const std::vector<Node*>& members, const std::string& device_type) {
  for (const Node* n : members)
    if (!KernelRegistry::Global().Find(*n, device_type).ok()) return false;
  return true;
}

}  // namespace

absl::Status PlaceGraph(FlowGraph& graph, const std::vector<DeviceName>& devices,
                        const DeviceName& default_device, const PlacerOptions& options) {
  const auto& nodes = graph.nodes();
  const int n = static_cast<int>(nodes.size());
  absl::flat_hash_map<const Node*, int> index;
  for (int i = 0; i < n; ++i) index[nodes[i]] = i;

  // Colocation groups: resource consumers join their producer; "_class" names join too.
  UnionFind groups(n);
  for (int i = 0; i < n; ++i) {
    const Node* node = nodes[i];
    for (int k = 0; k < node->num_inputs(); ++k) {
      if (node->input_type(k) == DType::kResource) groups.Union(i, index[node->input_edge(k)->src]);
    }
    auto cls = node->attrs().find("_class");
    if (cls != node->attrs().end()) {
      for (const std::string& loc : cls->second.list().s()) {
        if (!absl::StartsWith(loc, "loc:@")) continue;
        const Node* other = graph.FindNode(loc.substr(5));
        if (other != nullptr && index.contains(other)) groups.Union(i, index[other]);
      }
    }
  }
  absl::flat_hash_map<int, std::vector<Node*>> members;
  for (int i = 0; i < n; ++i) members[groups.Find(i)].push_back(nodes[i]);

  for (auto& member : members) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in `pick`.
    std::vector<Node*>& group = member.second;
    // Merge the requests of the group; conflicting requests are an error.
    DeviceName request;
    const Node* requester = nullptr;
    for (Node* node : group) {
      auto parsed = DeviceName::Parse(node->requested_device());
      if (!parsed.ok()) return NodeError(node->name(), node->op(), parsed.status());
      if (!request.IsCompatibleWith(*parsed)) {
        if (options.allow_soft_placement) continue;
        return NodeError(node->name(), node->op(),
                         absl::InvalidArgumentError(absl::StrCat(
                             "requested device '", node->requested_device(),
                             "' conflicts with '", requester->requested_device(), "' of '",
                             requester->name(), "', which it must be colocated with")));
      }
      if (!node->requested_device().empty()) requester = node;
      request.MergeFrom(*parsed);
    }
    // Among matching devices with kernels for every member, prefer the default's fields.
    auto pick = [&](const DeviceName& want) -> const DeviceName* {
      const DeviceName* best = nullptr;
      int best_score = -1;
      for (const DeviceName& d : devices) {
        if (!want.Matches(d) || !HasKernels(group, d.type)) continue;
        int score = (d.job == default_device.job) * 8 + (d.task == default_device.task) * 4 +
                    (d.type == "CPU") * 2 + (d.id == 0);
        if (score > best_score) {
          best = &d;
          best_score = score;
        }
      }
      return best;
    };
    const DeviceName* chosen = pick(request);
    if (chosen == nullptr && options.allow_soft_placement) {
      DeviceName relaxed = request;
      relaxed.has_type = relaxed.has_id = false;
      chosen = pick(relaxed);
      if (chosen == nullptr) chosen = pick(DeviceName());
    }
    if (chosen == nullptr) {
      const Node* culprit = requester != nullptr ? requester : group.front();
      return NodeError(culprit->name(), culprit->op(),
                       absl::InvalidArgumentError(absl::StrCat(
                           "cannot assign a device: no device matches '", request.ToString(),
                           "' (with kernels for every op colocated with it). Available devices: ",
                           DeviceList(devices),
                           ". Fix the device string or enable allow_soft_placement.")));
    }
    for (Node* node : group) node->set_assigned_device(chosen->ToString());
  }
  if (options.log_device_placement) {
    std::ostream& log = options.log != nullptr ? *options.log : std::cerr;
    for (const Node* node : nodes) {
      log << node->name() << ": (" << node->op() << "): " << node->assigned_device() << "\n";
    }
  }
  return absl::OkStatus();
}

}  // namespace tw
