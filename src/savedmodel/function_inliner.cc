#include "savedmodel/function_inliner.h"

#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/op_registry.h"

namespace tw {
namespace {

constexpr int kMaxDepth = 16;
// Recursive or fanned-out calls grow the graph geometrically: stop well before memory does.
constexpr int kMaxInlinedNodes = 200000;

std::string NodeOf(const std::string& input) {
  std::string name = input.rfind('^', 0) == 0 ? input.substr(1) : input;
  return name.substr(0, name.find(':'));
}

const AttrValue* AttrOf(const NodeDef& node, const OpDef& op, const std::string& name) {
  if (auto it = node.attr().find(name); it != node.attr().end()) return &it->second;
  const AttrDef* def = op.FindAttr(name);
  return def != nullptr && def->default_value ? &*def->default_value : nullptr;
}

// The flat output index of output `arg`[idx] of a body node ("MatMul:product:0").
absl::StatusOr<int> FlatOutputIndex(const NodeDef& node, const std::string& arg, int idx) {
  if (IsFunctionCall(node)) {
    if (arg != "output") {
      return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' has no output '", arg, "'"));
    }
    return idx;
  }
  absl::StatusOr<const OpDef*> op = OpRegistry::Global().Find(node.op());
  if (!op.ok()) {
    return absl::UnimplementedError(absl::StrCat("function body node '", node.name(), "' uses op '", node.op(),
                                                 "', which tensorweave does not have"));
  }
  int base = 0;
  for (const ArgDef& a : (*op)->outputs) {
    int size = 1;
    if (!a.number_attr.empty() || !a.type_list_attr.empty()) {
      const AttrValue* attr = AttrOf(node, **op, a.number_attr.empty() ? a.type_list_attr : a.number_attr);
      if (attr == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' lacks the attr sizing output '",
                                                       a.name, "'"));
      }
      size = a.number_attr.empty() ? attr->list().type_size() : static_cast<int>(attr->i());
    }
    if (a.name == arg) {
      if (idx < 0 || idx >= size) break;
      return base + idx;
    }
    base += size;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("node '", node.name(), "' (", node.op(), ") has no output '", arg, ":", idx, "'"));
}

// One call replaced by its body; the new nodes go to `out`.
absl::Status InlineOne(const NodeDef& call, const FunctionDef& fn, GraphDef* out,
                       std::map<std::string, std::string>* renamed) {
  const std::string prefix = call.name() + "/";
  std::vector<std::string> data_inputs, control_inputs;
  for (const std::string& in : call.input()) (in.rfind('^', 0) == 0 ? control_inputs : data_inputs).push_back(in);
  const auto& sig = fn.signature();
  if (sig.input_arg_size() != static_cast<int>(data_inputs.size())) {
    return absl::InvalidArgumentError(absl::StrCat("node '", call.name(), "' gives ", data_inputs.size(),
                                                   " inputs to function '", sig.name(), "', which takes ",
                                                   sig.input_arg_size()));
  }
  std::map<std::string, std::string> args;
  for (int i = 0; i < sig.input_arg_size(); ++i) args[sig.input_arg(i).name()] = data_inputs[i];
  std::map<std::string, const NodeDef*> body;
  for (const NodeDef& n : fn.node_def()) body[n.name()] = &n;
  auto translate = [&](const std::string& in) -> absl::StatusOr<std::string> {
    if (in.rfind('^', 0) == 0) {
      const std::string name = in.substr(1);
      if (auto a = args.find(name); a != args.end()) return "^" + NodeOf(a->second);
      if (!body.count(name)) return absl::InvalidArgumentError(absl::StrCat("unknown control input '", in, "'"));
      return "^" + prefix + name;
    }
    std::vector<std::string> parts = absl::StrSplit(in, ':');
    if (parts.size() == 1) {
      if (auto a = args.find(in); a != args.end()) return a->second;
      return absl::InvalidArgumentError(absl::StrCat("'", in, "' is no argument"));
    }
    int idx = 0;
    auto src = body.find(parts[0]);
    if (parts.size() != 3 || src == body.end() || !absl::SimpleAtoi(parts[2], &idx)) {
      return absl::InvalidArgumentError(absl::StrCat("malformed input '", in, "'"));
    }
    absl::StatusOr<int> flat = FlatOutputIndex(*src->second, parts[1], idx);
    if (!flat.ok()) return flat.status();
    return absl::StrCat(prefix, parts[0], ":", *flat);
  };
  auto in_function = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("inlining function '", sig.name(), "' at node '", call.name(),
                                               "': ", s.message()));
  };
  std::vector<std::string> all_body;
  for (const NodeDef& n : fn.node_def()) {
    NodeDef* copy = out->add_node();
    *copy = n;
    copy->set_name(prefix + n.name());
    copy->set_device(n.device().empty() ? call.device() : n.device());
    copy->clear_input();
    for (const std::string& in : n.input()) {
      absl::StatusOr<std::string> t = translate(in);
      if (!t.ok()) return in_function(t.status());
      copy->add_input(*t);
    }
    for (const std::string& c : control_inputs) copy->add_input(c);
    all_body.push_back("^" + copy->name());
  }
  // The call's own name: output 0 (or a NoOp), after the whole body (its side effects).
  std::vector<std::string> results;
  for (const auto& out_arg : sig.output_arg()) {
    auto r = fn.ret().find(out_arg.name());
    if (r == fn.ret().end()) return in_function(absl::InvalidArgumentError("an output has no ret"));
    absl::StatusOr<std::string> t = translate(r->second);
    if (!t.ok()) return in_function(t.status());
    results.push_back(*t);
  }
  auto tout = call.attr().find("Tout");
  auto out_type = [&](size_t k) -> absl::StatusOr<int> {
    if (tout == call.attr().end() || tout->second.list().type_size() <= static_cast<int>(k)) {
      return absl::InvalidArgumentError(absl::StrCat("node '", call.name(), "' lacks Tout for output ", k));
    }
    return tout->second.list().type(static_cast<int>(k));
  };
  NodeDef* self = out->add_node();
  self->set_name(call.name());
  self->set_device(call.device());
  if (results.empty()) {
    self->set_op("NoOp");
  } else {
    self->set_op("Identity");
    self->add_input(results[0]);
    absl::StatusOr<int> t = out_type(0);
    if (!t.ok()) return t.status();
    (*self->mutable_attr())["T"].set_type(static_cast<DataType>(*t));
  }
  for (const std::string& dep : all_body) self->add_input(dep);
  for (size_t k = 1; k < results.size(); ++k) {
    NodeDef* extra = out->add_node();
    extra->set_name(absl::StrCat(prefix, "_output_", k));
    extra->set_op("Identity");
    extra->set_device(call.device());
    extra->add_input(results[k]);
    absl::StatusOr<int> t = out_type(k);
    if (!t.ok()) return t.status();
    (*extra->mutable_attr())["T"].set_type(static_cast<DataType>(*t));
    (*renamed)[absl::StrCat(call.name(), ":", k)] = extra->name() + ":0";
  }
  return absl::OkStatus();
}

}  // namespace

bool IsFunctionCall(const NodeDef& node) {
  return node.op() == "StatefulPartitionedCall" || node.op() == "PartitionedCall";
}

absl::StatusOr<std::string> CalledFunction(const NodeDef& node) {
  auto it = node.attr().find("f");
  if (it == node.attr().end() || !it->second.has_func() || it->second.func().name().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", node.name(), "' (", node.op(), ") names no function in its attr 'f'"));
  }
  return it->second.func().name();
}

FunctionDefLibrary LibraryOf(const GraphDef& def) { return def.library(); }

absl::Status InlineFunctionCalls(GraphDef* def, const FunctionDefLibrary& library,
                                 std::map<std::string, std::string>* renamed) {
  std::map<std::string, const FunctionDef*> functions;
  for (const FunctionDef& fn : library.function()) functions[fn.signature().name()] = &fn;
  for (int depth = 0;; ++depth) {
    bool any = false;
    for (const NodeDef& n : def->node()) any = any || IsFunctionCall(n);
    if (!any) break;
    if (depth == kMaxDepth) {
      return absl::InvalidArgumentError(absl::StrCat("function calls nest deeper than ", kMaxDepth));
    }
    GraphDef next;
    *next.mutable_versions() = def->versions();
    for (const NodeDef& n : def->node()) {
      if (!IsFunctionCall(n)) {
        *next.add_node() = n;
        continue;
      }
      absl::StatusOr<std::string> name = CalledFunction(n);
      if (!name.ok()) return name.status();
      auto fn = functions.find(*name);
      if (fn == functions.end()) {
        return absl::NotFoundError(absl::StrCat("node '", n.name(), "' calls function '", *name,
                                                "', which is not in the graph's library"));
      }
      absl::Status s = InlineOne(n, *fn->second, &next, renamed);
      if (!s.ok()) return s;
      if (next.node_size() > kMaxInlinedNodes) {
        return absl::ResourceExhaustedError(absl::StrCat("inlining the function calls makes more than ",
                                                         kMaxInlinedNodes, " nodes"));
      }
    }
    *def = std::move(next);
  }
  for (NodeDef& n : *def->mutable_node()) {
    for (std::string& in : *n.mutable_input()) {
      if (auto r = renamed->find(in); r != renamed->end()) in = r->second;
    }
  }
  return absl::OkStatus();
}

}  // namespace tw
