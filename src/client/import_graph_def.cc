// tw::ImportGraphDef: renames the GraphDef's nodes under the prefix, splices the mapped
// inputs onto the graph's tensors, then hands the rewritten GraphDef to the one GraphDef
// importer (Graph::Import -> graph/graph_def_import.cc), which validates it.
#include "tensorweave/import_graph_def.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/graph.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"

namespace tw {

namespace {

// "x" -> "x:0"; "x:k" stays; the key form of input_map.
std::string CanonicalTensorName(const std::string& node, int index) { return absl::StrCat(node, ":", index); }

// The GraphDef's node names -> their names in the graph.
StatusOr<absl::flat_hash_map<std::string, std::string>> NewNames(const GraphDef& def, const std::string& prefix,
                                                                 const FlowGraph& graph) {
  absl::flat_hash_map<std::string, std::string> renamed;
  for (const NodeDef& node : def.node()) {
    if (!renamed.emplace(node.name(), "").second) {
      return absl::InvalidArgumentError(absl::StrCat("Node '", node.name(), "' is not unique"));
    }
  }
  absl::flat_hash_set<std::string> taken;
  for (const NodeDef& node : def.node()) {
    std::string name = prefix.empty() ? node.name() : absl::StrCat(prefix, "/", node.name());
    if (prefix.empty()) {  // As TF for name="": a clash with the graph gets "_1", "_2", ...
      const std::string base = name;
      for (int k = 1; graph.FindNode(name) != nullptr || taken.contains(name) ||
                      (name != base && renamed.contains(name));
           ++k) {
        name = absl::StrCat(base, "_", k);
      }
    }
    taken.insert(name);
    renamed[node.name()] = name;
  }
  return renamed;
}

}  // namespace

StatusOr<std::vector<ImportedElement>> ImportGraphDef(const GraphDef& def, const ImportGraphDefOptions& options,
                                                      Graph* graph) {
  if (graph == nullptr) return absl::InvalidArgumentError("ImportGraphDef: no graph");
  const FlowGraph& flow = graph->flow_graph();
  for (const NodeDef& node : def.node()) {
    if (!flow.registry().Find(node.op()).ok()) {
      return absl::NotFoundError(absl::StrCat("Op type not registered '", node.op(), "' (node '", node.name(),
                                              "'): this build of tensorweave lacks it"));
    }
  }
  TW_ASSIGN_OR_RETURN(auto renamed, NewNames(def, options.prefix, flow));
  std::map<std::string, Output> input_map;  // keys as "node:k"
  for (const auto& [key, tensor] : options.input_map) {
    std::string node;
    int index;
    if (!ParseTensorName(key, &node, &index).ok() || index == kControlSlot) {
      return absl::InvalidArgumentError(absl::StrCat("input_map key '", key, "' is not a tensor name"));
    }
    if (tensor.graph() != graph) {
      return absl::InvalidArgumentError(absl::StrCat("input_map['", key, "'] is a tensor of another graph"));
    }
    input_map[CanonicalTensorName(node, index)] = tensor;
  }
  for (const Operation& op : options.control_dependencies) {
    if (op.graph() != graph) {
      return absl::InvalidArgumentError(absl::StrCat("control dependency '", op.name(), "' is of another graph"));
    }
  }
  for (const auto& [key, op] : options.control_input_map) {
    if (op.graph() != graph) {
      return absl::InvalidArgumentError(absl::StrCat("input_map['^", key, "'] is an operation of another graph"));
    }
  }
  std::set<std::string> used_keys;
  absl::flat_hash_map<std::string, std::string> devices;  // the GraphDef's node -> its device
  for (const NodeDef& node : def.node()) devices[node.name()] = node.device();
  GraphDef rewritten = def;
  for (NodeDef& node : *rewritten.mutable_node()) {
    const std::string original = node.name();
    node.set_name(renamed.at(original));
    for (std::string& input : *node.mutable_input()) {
      std::string src;
      int index;
      TW_RETURN_IF_ERROR(ParseTensorName(input, &src, &index));
      const bool control = index == kControlSlot;
      if (control) {
        if (auto it = options.control_input_map.find(src); it != options.control_input_map.end()) {
          used_keys.insert("^" + src);
          input = "^" + it->second.name();
          continue;
        }
      } else if (auto it = input_map.find(CanonicalTensorName(src, index)); it != input_map.end()) {
        used_keys.insert(it->first);
        input = it->second.name();
        continue;
      }
      auto found = renamed.find(src);
      if (found == renamed.end()) {
        return absl::InvalidArgumentError(absl::StrCat("Node '", original, "': Unknown input node '", input, "'"));
      }
      input = control ? "^" + found->second : index == 0 ? found->second : absl::StrCat(found->second, ":", index);
    }
    for (const Operation& dep : options.control_dependencies) {
      const std::string control = "^" + dep.name();
      if (std::find(node.input().begin(), node.input().end(), control) == node.input().end()) {
        node.add_input(control);
      }
    }
    // Colocation ("loc:@x") follows the renamed node, and the op takes the device of the
    // first op it is colocated with, as TF's import does.
    if (auto it = node.mutable_attr()->find("_class"); it != node.mutable_attr()->end() && it->second.has_list()) {
      bool device_taken = false;
      for (std::string& s : *it->second.mutable_list()->mutable_s()) {
        if (!absl::StartsWith(s, "loc:@")) continue;
        const std::string target_name = s.substr(5);
        auto target = renamed.find(target_name);
        if (target == renamed.end()) continue;
        s = "loc:@" + target->second;
        if (!device_taken) node.set_device(devices.at(target_name));
        device_taken = true;
      }
    }
  }
  std::vector<std::string> unused;
  for (const auto& [key, tensor] : input_map) {
    if (!used_keys.contains(key)) unused.push_back(key);
  }
  for (const auto& [node, op] : options.control_input_map) {
    if (!used_keys.contains("^" + node)) unused.push_back("^" + node);
  }
  if (!unused.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Attempted to map inputs that were not found in graph_def: [",
                                                   absl::StrJoin(unused, ", "), "]"));
  }
  // Return elements are checked against the GraphDef before anything is added.
  struct Wanted {
    std::string node;
    int index;
  };
  std::vector<Wanted> wanted;
  for (const std::string& element : options.return_elements) {
    std::string node;
    int index;
    const bool is_tensor = element.find(':') != std::string::npos;
    if (!ParseTensorName(element, &node, &index).ok() || index == kControlSlot || !renamed.contains(node)) {
      return absl::InvalidArgumentError(absl::StrCat("Requested return ", is_tensor ? "tensor '" : "node '", element,
                                                     "' not found in graph def"));
    }
    wanted.push_back({node, is_tensor ? index : -1});
  }
  try {
    graph->Import(rewritten);
  } catch (const StatusError& e) {
    return e.status();
  }
  std::vector<ImportedElement> results;
  for (const Wanted& w : wanted) {
    ImportedElement element;
    element.operation = graph->operation(renamed.at(w.node));
    if (w.index >= 0) {
      if (w.index >= element.operation.num_outputs()) {
        return absl::InvalidArgumentError(absl::StrCat("Invalid return output ", w.index, " of node '", w.node,
                                                       "', which has ", element.operation.num_outputs(),
                                                       " output(s)"));
      }
      element.is_tensor = true;
      // As TF: a mapped tensor is returned as what it was mapped to.
      auto mapped = input_map.find(CanonicalTensorName(w.node, w.index));
      element.tensor = mapped != input_map.end() ? mapped->second : element.operation.output(w.index);
    }
    results.push_back(element);
  }
  return results;
}

}  // namespace tw
