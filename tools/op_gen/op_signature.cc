#include "tools/op_gen/op_signature.h"

#include <cctype>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tw::opgen {
namespace {

std::string ArgSpec(const ArgDef& arg) {
  std::string type;
  if (!arg.number_attr.empty()) {
    type = absl::StrCat(arg.number_attr, " * ", arg.type_attr.empty() ? DTypeName(arg.fixed_type) : arg.type_attr);
  } else if (!arg.type_list_attr.empty()) {
    type = arg.type_list_attr;
  } else if (!arg.type_attr.empty()) {
    type = arg.type_attr;
  } else {
    type = DTypeName(arg.fixed_type);
  }
  return absl::StrCat(arg.name, ": ", type);
}

std::string AttrSpec(const AttrDef& attr) {
  std::string spec = absl::StrCat(attr.name, ": ", attr.type);
  if (!attr.allowed_types.empty()) {
    std::vector<std::string> names;
    for (DType t : attr.allowed_types) names.push_back(DTypeName(t));
    absl::StrAppend(&spec, " in {", absl::StrJoin(names, ", "), "}");
  }
  if (attr.minimum) absl::StrAppend(&spec, " >= ", *attr.minimum);
  if (attr.default_value) absl::StrAppend(&spec, " = ", AttrValueToString(*attr.default_value));
  return spec;
}

std::string Doc(const OpDef& def) {
  std::vector<std::string> ins, outs, attrs;
  for (const ArgDef& a : def.inputs) ins.push_back(ArgSpec(a));
  for (const ArgDef& a : def.outputs) outs.push_back(ArgSpec(a));
  for (const AttrDef& a : def.attrs) attrs.push_back(AttrSpec(a));
  std::string doc = absl::StrCat(def.name, "(", absl::StrJoin(ins, ", "), ") -> (", absl::StrJoin(outs, ", "), ")");
  if (!attrs.empty()) absl::StrAppend(&doc, "\nattrs: ", absl::StrJoin(attrs, "; "));
  if (def.stateful) absl::StrAppend(&doc, "\nstateful: never merged or pruned as a duplicate");
  return doc;
}

}  // namespace

OpSignature SignatureOf(const OpDef& def) {
  OpSignature sig;
  sig.op = def.name;
  sig.stateful = def.stateful;
  sig.doc = Doc(def);
  // Attrs the inputs determine: their type attrs and list lengths.
  std::set<std::string> inferred;
  for (const ArgDef& in : def.inputs) {
    sig.inputs.push_back({in.name, !in.number_attr.empty() || !in.type_list_attr.empty(), in.number_attr});
    for (const std::string* a : {&in.type_attr, &in.number_attr, &in.type_list_attr}) {
      if (!a->empty()) inferred.insert(*a);
    }
  }
  std::vector<AttrParam> required, optional;
  for (const AttrDef& attr : def.attrs) {
    AttrParam p{attr.name, attr.type, attr.default_value, inferred.count(attr.name) > 0};
    (p.required() ? required : optional).push_back(std::move(p));
  }
  sig.attrs = std::move(required);
  sig.attrs.insert(sig.attrs.end(), optional.begin(), optional.end());
  sig.num_output_args = static_cast<int>(def.outputs.size());
  sig.single_output = def.outputs.size() == 1 && def.outputs[0].number_attr.empty() &&
                      def.outputs[0].type_list_attr.empty();
  return sig;
}

std::string SnakeCase(const std::string& camel) {
  std::string out;
  for (size_t i = 0; i < camel.size(); ++i) {
    const unsigned char c = camel[i];
    if (std::isupper(c) && i > 0) {
      const unsigned char prev = camel[i - 1];
      const bool next_lower = i + 1 < camel.size() && std::islower(static_cast<unsigned char>(camel[i + 1]));
      if (std::islower(prev) || (std::isupper(prev) && next_lower)) out += '_';
    }
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

bool IsPublicOp(const std::string& op) { return !op.empty() && op[0] != '_'; }

}  // namespace tw::opgen
