#include "graph/freeze_graph.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "tensor/tensor_proto.h"

namespace tw {
namespace {

// "^a", "a:1", "a" -> "a".
std::string NodeNameOf(const std::string& input) {
  std::string name = input.empty() || input[0] != '^' ? input : input.substr(1);
  const auto colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      name.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    name.resize(colon);
  }
  return name;
}

// The value must fit the variable: its dtype, and its shape where the attr fixes one.
absl::Status CheckValueFits(const NodeDef& node, const Tensor& value) {
  const auto dtype = node.attr().find("dtype");
  if (dtype != node.attr().end() && static_cast<int>(value.dtype()) != dtype->second.type()) {
    return absl::InvalidArgumentError(absl::StrCat("variable '", node.name(), "' is ",
                                                   DTypeName(static_cast<DType>(dtype->second.type())),
                                                   " but its value is ", DTypeName(value.dtype())));
  }
  const auto shape = node.attr().find("shape");
  if (shape == node.attr().end() || shape->second.shape().unknown_rank()) return absl::OkStatus();
  absl::StatusOr<PartialShape> declared = PartialShapeFromProto(shape->second.shape());
  const bool fits = !declared.ok() || declared->Matches(value.shape());
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat("variable '", node.name(), "' has shape ",
                                                   declared->DebugString(), " but its value has ",
                                                   value.shape().DebugString()));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsFreezableVariableOp(const std::string& op) {
  return op == "VariableV2" || op == "Variable" || op == "VarHandleOp";
}

absl::StatusOr<GraphDef> ExtractSubGraph(const GraphDef& def, const std::vector<std::string>& outputs) {
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& node : def.node()) by_name.emplace(node.name(), &node);
  std::set<std::string> needed;
  std::vector<std::string> pending;
  for (const std::string& output : outputs) {
    const std::string name = NodeNameOf(output);
    if (!by_name.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("output node '", name, "' is not in the graph"));
    }
    pending.push_back(name);
  }
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (!needed.insert(name).second) continue;
    const auto it = by_name.find(name);
    if (it == by_name.end()) continue;  // a dangling input: the import reports it, naming the node
    for (const std::string& input : it->second->input()) pending.push_back(NodeNameOf(input));
  }
  // A copy without nodes keeps everything else, fields this GraphDef does not model included.
  GraphDef out = def;
  out.clear_node();
  for (const NodeDef& node : def.node()) {
    if (needed.count(node.name())) *out.add_node() = node;
  }
  return out;
}

absl::StatusOr<GraphDef> FreezeGraphDef(const GraphDef& def, const VariableValueFn& value_of,
                                        const std::vector<std::string>& outputs, const FreezeOptions& options) {
  auto sub = ExtractSubGraph(def, outputs);
  if (!sub.ok()) return sub.status();
  // The variables to convert, with the dtype their readers will see.
  std::map<std::string, int> converted;
  for (const NodeDef& node : sub->node()) {
    if (!IsFreezableVariableOp(node.op())) continue;
    if (!options.whitelist.empty() && !options.whitelist.count(node.name())) continue;
    if (options.blacklist.count(node.name())) continue;
    converted[node.name()] = node.attr().count("dtype") ? node.attr().at("dtype").type() : 0;
  }
  // Identities between a handle and its readers carry DT_RESOURCE: they now carry the value.
  std::map<std::string, int> resource_identities;
  for (bool changed = true; changed;) {
    changed = false;
    for (const NodeDef& node : sub->node()) {
      if (node.op() != "Identity" || node.input_size() < 1 || resource_identities.count(node.name())) continue;
      const auto t = node.attr().find("T");
      if (t == node.attr().end() || t->second.type() != static_cast<int>(DType::kResource)) continue;
      const std::string source = NodeNameOf(node.input(0));
      const auto var = converted.find(source);
      const auto chained = resource_identities.find(source);
      if (var != converted.end()) {
        resource_identities[node.name()] = var->second;
        changed = true;
      } else if (chained != resource_identities.end()) {
        resource_identities[node.name()] = chained->second;
        changed = true;
      }
    }
  }
  auto reads_converted_handle = [&](const NodeDef& node) -> const int* {
    if (node.input_size() < 1) return nullptr;
    const std::string source = NodeNameOf(node.input(0));
    if (auto it = converted.find(source); it != converted.end()) return &it->second;
    if (auto it = resource_identities.find(source); it != resource_identities.end()) return &it->second;
    return nullptr;
  };

  GraphDef out = *sub;
  out.clear_node();
  for (const NodeDef& node : sub->node()) {
    NodeDef* frozen = out.add_node();
    if (converted.count(node.name())) {
      absl::StatusOr<Tensor> value = value_of(node.name());
      if (!value.ok()) {
        return absl::Status(value.status().code(),
                            absl::StrCat("variable '", node.name(), "': ", value.status().message()));
      }
      if (absl::Status fits = CheckValueFits(node, *value); !fits.ok()) return fits;
      frozen->set_name(node.name());
      frozen->set_op("Const");
      (*frozen->mutable_attr())["dtype"].set_type(static_cast<DataType>(value->dtype()));
      *(*frozen->mutable_attr())["value"].mutable_tensor() = TensorToProto(*value);
      if (auto cls = node.attr().find("_class"); cls != node.attr().end()) {
        (*frozen->mutable_attr())["_class"] = cls->second;
      }
    } else if (const int* dtype = node.op() == "ReadVariableOp" ? reads_converted_handle(node) : nullptr) {
      frozen->set_name(node.name());
      frozen->set_op("Identity");
      frozen->set_device(node.device());
      for (const std::string& input : node.input()) frozen->add_input(input);
      (*frozen->mutable_attr())["T"].set_type(static_cast<DataType>(*dtype));
      if (auto cls = node.attr().find("_class"); cls != node.attr().end()) {
        (*frozen->mutable_attr())["_class"] = cls->second;
      }
    } else {
      *frozen = node;
      if (auto it = resource_identities.find(node.name()); it != resource_identities.end()) {
        (*frozen->mutable_attr())["T"].set_type(static_cast<DataType>(it->second));
      }
    }
    if (options.clear_devices) frozen->clear_device();
  }
  return out;
}

}  // namespace tw
