#include "graph/function_body.h"

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/attr_value.h"
#include "graph/graph.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status FunctionError(const std::string& fn, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("function '", fn, "': ", what));
}

// How many tensors one output arg of `node` stands for.
absl::StatusOr<int> ArgLength(const ArgDef& arg, const NodeDef& node) {
  if (!arg.number_attr.empty()) {
    auto it = node.attr().find(arg.number_attr);
    if (it == node.attr().end()) return absl::InvalidArgumentError("missing attr " + arg.number_attr);
    return static_cast<int>(it->second.i());
  }
  if (!arg.type_list_attr.empty()) {
    auto it = node.attr().find(arg.type_list_attr);
    if (it == node.attr().end()) return absl::InvalidArgumentError("missing attr " + arg.type_list_attr);
    return it->second.list().type_size();
  }
  return 1;
}

// The position of output arg `arg_name`'s first tensor among the node's outputs, and its
// length.
absl::Status OutputRange(const NodeDef& node, const std::string& arg_name, const OpRegistry& registry,
                         int* start, int* length) {
  TW_ASSIGN_OR_RETURN(const OpDef* op, registry.Find(node.op()));
  int offset = 0;
  for (const ArgDef& arg : op->outputs) {
    TW_ASSIGN_OR_RETURN(int n, ArgLength(arg, node));
    if (arg.name == arg_name) {
      *start = offset;
      *length = n;
      return absl::OkStatus();
    }
    offset += n;
  }
  return absl::InvalidArgumentError(absl::StrCat("op ", node.op(), " has no output '", arg_name, "'"));
}

}  // namespace

absl::StatusOr<GraphDef> FunctionBodyGraphDef(const FunctionDef& fn, const OpRegistry& registry) {
  const std::string& fname = fn.signature().name();
  GraphDef def;
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : fn.node_def()) {
    if (!nodes.emplace(n.name(), &n).second) return FunctionError(fname, "duplicate node '" + n.name() + "'");
  }
  std::map<std::string, DType> args;
  for (int i = 0; i < fn.signature().input_arg_size(); ++i) {
    const FunctionArg& a = fn.signature().input_arg(i);
    if (a.type() == 0 || !a.type_attr().empty() || !a.number_attr().empty() || !a.type_list_attr().empty()) {
      return FunctionError(fname, "input '" + a.name() + "' has no fixed type (polymorphic functions are not supported)");
    }
    if (nodes.count(a.name()) || !args.emplace(a.name(), static_cast<DType>(a.type())).second) {
      return FunctionError(fname, "input name '" + a.name() + "' is used twice");
    }
    NodeDef* arg = def.add_node();
    arg->set_name(a.name());
    arg->set_op("_Arg");
    (*arg->mutable_attr())["T"] = MakeAttr(static_cast<DType>(a.type()));
    (*arg->mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
  }
  // "x", "node:out:k" or "^node" -> the graph's "x", "node:n", "^node".
  auto translate = [&](const std::string& input) -> absl::StatusOr<std::string> {
    if (!input.empty() && input[0] == '^') return input;
    std::vector<std::string> parts = absl::StrSplit(input, ':');
    if (parts.size() == 1 && args.count(parts[0])) return parts[0];
    if (parts.size() == 2 && args.count(parts[0]) && parts[1] == "0") return parts[0];
    auto it = nodes.find(parts[0]);
    if (it == nodes.end()) return FunctionError(fname, "input '" + input + "' names no argument or node");
    if (parts.size() == 1) return parts[0];
    if (parts.size() != 3) return FunctionError(fname, "input '" + input + "' is not node:output:index");
    int k = 0, start = 0, length = 0;
    if (!absl::SimpleAtoi(parts[2], &k) || k < 0) return FunctionError(fname, "bad index in '" + input + "'");
    if (auto s = OutputRange(*it->second, parts[1], registry, &start, &length); !s.ok()) {
      return FunctionError(fname, absl::StrCat("input '", input, "': ", s.message()));
    }
    if (k >= length) return FunctionError(fname, "input '" + input + "' is past the output's end");
    return absl::StrCat(parts[0], ":", start + k);
  };
  for (const NodeDef& n : fn.node_def()) {
    NodeDef* out = def.add_node();
    *out = n;
    out->clear_input();
    for (const std::string& in : n.input()) {
      TW_ASSIGN_OR_RETURN(std::string t, translate(in));
      out->add_input(t);
    }
  }
  for (int i = 0; i < fn.signature().output_arg_size(); ++i) {
    const FunctionArg& a = fn.signature().output_arg(i);
    if (a.type() == 0) return FunctionError(fname, "output '" + a.name() + "' has no fixed type");
    auto it = fn.ret().find(a.name());
    if (it == fn.ret().end()) return FunctionError(fname, "output '" + a.name() + "' has no ret entry");
    NodeDef* ret = def.add_node();
    ret->set_name("_retval_" + a.name());
    ret->set_op("_Retval");
    TW_ASSIGN_OR_RETURN(std::string t, translate(it->second));
    ret->add_input(t);
    (*ret->mutable_attr())["T"] = MakeAttr(static_cast<DType>(a.type()));
    (*ret->mutable_attr())["index"] = MakeAttr(static_cast<int64_t>(i));
  }
  for (const auto& [name, node] : fn.control_ret()) {
    if (!nodes.count(node)) return FunctionError(fname, "control output '" + name + "' names no node");
  }
  return def;
}

absl::StatusOr<FunctionDef> FunctionDefFromGraphDef(const GraphDef& body, const std::string& name,
                                                    const std::vector<std::string>& inputs,
                                                    const std::vector<std::string>& outputs,
                                                    const OpRegistry& registry) {
  FunctionDef fn;
  fn.mutable_signature()->set_name(name);
  std::map<std::string, const NodeDef*> nodes;
  for (const NodeDef& n : body.node()) nodes[n.name()] = &n;
  std::map<std::string, std::string> arg_of;  // Placeholder -> arg name.
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto it = nodes.find(inputs[i]);
    if (it == nodes.end()) return FunctionError(name, "no input node '" + inputs[i] + "'");
    auto dtype = it->second->attr().find("dtype");
    if (dtype == it->second->attr().end()) return FunctionError(name, "input '" + inputs[i] + "' has no dtype");
    FunctionArg* a = fn.mutable_signature()->add_input_arg();
    a->set_name(absl::StrCat("arg", i));
    a->set_type(dtype->second.type());
    arg_of[inputs[i]] = a->name();
  }
  // "node:n" -> "node:out_arg:k"; a placeholder -> its arg.
  auto translate = [&](const std::string& tensor) -> absl::StatusOr<std::string> {
    std::string node;
    int index = 0;
    TW_RETURN_IF_ERROR(ParseTensorName(tensor, &node, &index));
    if (index == kControlSlot) return tensor;
    if (arg_of.count(node)) return arg_of[node];
    auto it = nodes.find(node);
    if (it == nodes.end()) return FunctionError(name, "'" + tensor + "' names no node");
    TW_ASSIGN_OR_RETURN(const OpDef* op, registry.Find(it->second->op()));
    int offset = 0;
    for (const ArgDef& arg : op->outputs) {
      TW_ASSIGN_OR_RETURN(int n, ArgLength(arg, *it->second));
      if (index < offset + n) return absl::StrCat(node, ":", arg.name, ":", index - offset);
      offset += n;
    }
    return FunctionError(name, "'" + tensor + "' is past the outputs of its node");
  };
  for (const NodeDef& n : body.node()) {
    if (arg_of.count(n.name())) continue;
    NodeDef* out = fn.add_node_def();
    *out = n;
    out->clear_input();
    out->clear_device();
    for (const std::string& in : n.input()) {
      TW_ASSIGN_OR_RETURN(std::string t, translate(in));
      out->add_input(t);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string node;
    int index = 0;
    TW_RETURN_IF_ERROR(ParseTensorName(outputs[i], &node, &index));
    auto it = nodes.find(node);
    if (it == nodes.end()) return FunctionError(name, "no output node '" + outputs[i] + "'");
    TW_ASSIGN_OR_RETURN(const OpDef* op, registry.Find(it->second->op()));
    AttrMap attrs(it->second->attr().begin(), it->second->attr().end());
    TW_RETURN_IF_ERROR(ValidateAndCompleteAttrs(*op, attrs));
    TW_ASSIGN_OR_RETURN(std::vector<DType> types, ArgTypes(*op, op->outputs, attrs));
    if (index < 0 || index >= static_cast<int>(types.size())) {
      return FunctionError(name, "output '" + outputs[i] + "' is past its node's outputs");
    }
    FunctionArg* a = fn.mutable_signature()->add_output_arg();
    a->set_name(absl::StrCat("output", i));
    a->set_type(static_cast<DataType>(static_cast<int>(types[index])));
    TW_ASSIGN_OR_RETURN(std::string t, translate(outputs[i]));
    (*fn.mutable_ret())[a->name()] = t;
  }
  return fn;
}

}  // namespace tw
