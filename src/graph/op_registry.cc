#include "graph/op_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tensor/tensor_proto.h"
#include "tensor/tf_dtype_name.h"
#include "tensorweave/status.h"

namespace tw {

const AttrDef* OpDef::FindAttr(const std::string& name) const {
  for (const auto& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

OpDefBuilder::OpDefBuilder(std::string name) { def_.name = std::move(name); }
OpDefBuilder& OpDefBuilder::Input(const std::string& spec) {
  input_specs_.push_back(spec);
  return *this;
}
OpDefBuilder& OpDefBuilder::Output(const std::string& spec) {
  output_specs_.push_back(spec);
  return *this;
}
OpDefBuilder& OpDefBuilder::Attr(const std::string& spec) {
  attr_specs_.push_back(spec);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  def_.shape_fn = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetStateful() {
  def_.stateful = true;
  return *this;
}

namespace {

// Splits "name: rest" into its two trimmed halves.
absl::Status SplitSpec(const std::string& spec, std::string* name, std::string* rest) {
  std::pair<std::string, std::string> parts = absl::StrSplit(spec, absl::MaxSplits(':', 1));
  *name = std::string(absl::StripAsciiWhitespace(parts.first));
  *rest = std::string(absl::StripAsciiWhitespace(parts.second));
  if (name->empty() || rest->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("malformed spec '", spec, "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ArgDef> ParseArg(const std::string& spec) {
  ArgDef arg;
  std::string type;
  TW_RETURN_IF_ERROR(SplitSpec(spec, &arg.name, &type));
  std::vector<std::string> star = absl::StrSplit(type, '*');
  if (star.size() == 2) {
    arg.number_attr = std::string(absl::StripAsciiWhitespace(star[0]));
    type = std::string(absl::StripAsciiWhitespace(star[1]));
  }
  auto fixed = DTypeFromName(type);
  if (fixed.ok()) {
    arg.fixed_type = *fixed;
  } else {
    arg.type_attr = type;
  }
  return arg;
}

absl::StatusOr<AttrValue> ParseDefault(const std::string& type, std::string text) {
  text = std::string(absl::StripAsciiWhitespace(text));
  if (type == "int") {
    int64_t v;
    if (!absl::SimpleAtoi(text, &v)) return absl::InvalidArgumentError("bad int default " + text);
    return MakeAttr(v);
  }
  if (type == "float") {
    double v;
    if (!absl::SimpleAtod(text, &v)) return absl::InvalidArgumentError("bad float default " + text);
    return MakeAttr(static_cast<float>(v));
  }
  if (type == "bool") return MakeAttr(text == "true");
  if (type == "string") {
    if (text.size() < 2) return absl::InvalidArgumentError("bad string default " + text);
    return MakeAttr(text.substr(1, text.size() - 2));
  }
  if (type == "type") {
    TW_ASSIGN_OR_RETURN(DType t, DTypeFromName(text));
    return MakeAttr(t);
  }
  if (type == "shape" && text == "unknown") return MakeAttr(PartialShape::UnknownRank());
  if (absl::StartsWith(type, "list(") || type == "shape") {
    if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
      return absl::InvalidArgumentError("bad list default " + text);
    }
    std::vector<int64_t> values;
    for (absl::string_view piece : absl::StrSplit(text.substr(1, text.size() - 2), ',', absl::SkipWhitespace())) {
      int64_t v;
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(piece), &v)) {
        return absl::InvalidArgumentError("bad list default " + text);
      }
      values.push_back(v);
    }
    if (type == "shape") return MakeAttr(PartialShape(values));
    AttrValue a = MakeAttr(absl::Span<const int64_t>(values));
    if (type != "list(int)" && !values.empty()) {
      return absl::InvalidArgumentError("only empty defaults for " + type);
    }
    return a;
  }
  return absl::InvalidArgumentError("no default syntax for attr type " + type);
}

absl::StatusOr<AttrDef> ParseAttr(const std::string& spec) {
  AttrDef attr;
  std::string rest;
  TW_RETURN_IF_ERROR(SplitSpec(spec, &attr.name, &rest));
  std::string default_text;
  if (auto eq = rest.find('='); eq != std::string::npos && rest.find(">=") != eq - 1) {
    default_text = rest.substr(eq + 1);
    rest = std::string(absl::StripAsciiWhitespace(rest.substr(0, eq)));
  }
  if (auto ge = rest.find(">="); ge != std::string::npos) {
    int64_t min;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(rest.substr(ge + 2)), &min)) {
      return absl::InvalidArgumentError("bad minimum in " + spec);
    }
    attr.minimum = min;
    rest = std::string(absl::StripAsciiWhitespace(rest.substr(0, ge)));
  }
  if (!rest.empty() && rest.front() == '{') {
    attr.type = "type";
    for (absl::string_view t : absl::StrSplit(rest.substr(1, rest.size() - 2), ',', absl::SkipWhitespace())) {
      TW_ASSIGN_OR_RETURN(DType d, DTypeFromName(absl::StripAsciiWhitespace(t)));
      attr.allowed_types.push_back(d);
    }
  } else {
    attr.type = rest;
  }
  static const char* kTypes[] = {"int", "float", "bool", "string", "type", "shape", "tensor",
                                 "list(int)", "list(type)", "list(string)", "list(shape)", "func"};
  if (std::find(std::begin(kTypes), std::end(kTypes), attr.type) == std::end(kTypes)) {
    return absl::InvalidArgumentError("unknown attr type in " + spec);
  }
  if (!default_text.empty()) {
    TW_ASSIGN_OR_RETURN(attr.default_value, ParseDefault(attr.type, default_text));
  }
  return attr;
}

}  // namespace

absl::StatusOr<OpDef> OpDefBuilder::Build() const {
  OpDef def = def_;
  for (const auto& s : attr_specs_) {
    TW_ASSIGN_OR_RETURN(AttrDef a, ParseAttr(s));
    def.attrs.push_back(std::move(a));
  }
  for (const auto& s : input_specs_) {
    TW_ASSIGN_OR_RETURN(ArgDef a, ParseArg(s));
    def.inputs.push_back(std::move(a));
  }
  for (const auto& s : output_specs_) {
    TW_ASSIGN_OR_RETURN(ArgDef a, ParseArg(s));
    def.outputs.push_back(std::move(a));
  }
  for (auto* args : {&def.inputs, &def.outputs}) {
    for (ArgDef& a : *args) {
      if (const AttrDef* attr = def.FindAttr(a.type_attr); attr != nullptr && attr->type == "list(type)") {
        if (!a.number_attr.empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat(def.name, ": arg ", a.name, " has both a length and a type list"));
        }
        a.type_list_attr = std::move(a.type_attr);
        a.type_attr.clear();
      }
      if (!a.type_attr.empty() && def.FindAttr(a.type_attr) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(def.name, ": arg ", a.name, " names undeclared attr ", a.type_attr));
      }
      if (!a.number_attr.empty() && def.FindAttr(a.number_attr) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(def.name, ": arg ", a.name, " names undeclared attr ", a.number_attr));
      }
    }
  }
  if (!def.shape_fn) def.shape_fn = UnknownShape;
  return def;
}

namespace {
// Constant-initialized, so it is valid whichever static initializer runs first.
OpListFn global_op_list = nullptr;
}  // namespace

void SetGlobalOpList(OpListFn fn) { global_op_list = fn; }

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    if (global_op_list == nullptr) {
      std::fprintf(stderr, "tensorweave: no op list: the ops library (src/ops) is not linked\n");
      std::abort();
    }
    auto* r = new OpRegistry;
    global_op_list(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(const OpDefBuilder& builder) {
  auto def = builder.Build();
  if (!def.ok()) {
    std::fprintf(stderr, "tensorweave: bad op registration: %s\n", def.status().ToString().c_str());
    std::abort();
  }
  std::string name = def->name;
  if (!ops_.emplace(name, std::make_unique<OpDef>(*std::move(def))).second) {
    std::fprintf(stderr, "tensorweave: op %s registered twice\n", name.c_str());
    std::abort();
  }
}

absl::StatusOr<const OpDef*> OpRegistry::Find(const std::string& op) const {
  auto it = ops_.find(op);
  if (it == ops_.end()) return absl::NotFoundError(absl::StrCat("unknown op '", op, "'"));
  return it->second.get();
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::vector<std::string> names;
  for (const auto& [name, def] : ops_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

bool AttrHasType(const AttrValue& v, const std::string& type) {
  const std::string actual = AttrValueTypeName(v);
  if (actual == type) return true;
  // An empty list fits any list type.
  return v.value_case() == AttrValue::kList && absl::StartsWith(type, "list(") &&
         actual == "list(int)" && v.list().i_size() == 0;
}

}  // namespace

absl::Status ValidateAndCompleteAttrs(const OpDef& op, AttrMap& attrs) {
  for (const auto& [name, value] : attrs) {
    if (!name.empty() && name[0] == '_') continue;  // Internal attrs such as _class.
    if (op.FindAttr(name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown attr '", name, "' for op ", op.name));
    }
  }
  for (const AttrDef& def : op.attrs) {
    auto it = attrs.find(def.name);
    if (it == attrs.end()) {
      if (!def.default_value) {
        return absl::InvalidArgumentError(
            absl::StrCat("missing attr '", def.name, "' (", def.type, ") for op ", op.name));
      }
      it = attrs.emplace(def.name, *def.default_value).first;
    }
    const AttrValue& v = it->second;
    if (!AttrHasType(v, def.type)) {
      return absl::InvalidArgumentError(absl::StrCat("attr '", def.name, "' should be ", def.type,
                                                     " but holds ", AttrValueTypeName(v)));
    }
    if (def.type == "type") {
      if (!IsValidDType(v.type())) {
        return absl::InvalidArgumentError(
            absl::StrCat("attr '", def.name, "' is ", TfDTypeName(v.type()), ", which tensorweave does not support"));
      }
      DType t = static_cast<DType>(v.type());
      if (!def.allowed_types.empty() &&
          std::find(def.allowed_types.begin(), def.allowed_types.end(), t) == def.allowed_types.end()) {
        std::string allowed;
        for (DType a : def.allowed_types) absl::StrAppend(&allowed, allowed.empty() ? "" : ", ", DTypeName(a));
        return absl::InvalidArgumentError(absl::StrCat("attr '", def.name, "' is ", DTypeName(t),
                                                       ", not one of {", allowed, "}"));
      }
    }
    if (def.minimum && absl::StartsWith(def.type, "list(")) {
      // A list's minimum bounds its length (TensorFlow's "list(int) >= 4").
      const int64_t n = v.list().i_size() + v.list().type_size() + v.list().s_size() + v.list().shape_size();
      if (n < *def.minimum) {
        return absl::InvalidArgumentError(absl::StrCat("Length for attr '", def.name, "' of ", n,
                                                       " must be at least minimum ", *def.minimum));
      }
    } else if (def.minimum && v.i() < *def.minimum) {
      return absl::InvalidArgumentError(absl::StrCat("attr '", def.name, "' is ", v.i(),
                                                     ", less than the minimum ", *def.minimum));
    }
  }
  return absl::OkStatus();
}

void InferAttrsFromInputs(const OpDef& op, const std::vector<DType>& input_types, AttrMap& attrs) {
  size_t k = 0;
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    const ArgDef& arg = op.inputs[a];
    int64_t n = 1;
    if (!arg.number_attr.empty()) {
      auto it = attrs.find(arg.number_attr);
      if (it != attrs.end()) {
        n = it->second.i();
      } else {
        // Whatever the other (single-tensor) args leave over belongs to this list, shared
        // evenly with later lists of the same length attr (DynamicStitch's indices, data).
        int64_t same = 1, singles = 0;
        for (size_t b = a + 1; b < op.inputs.size(); ++b) {
          (op.inputs[b].number_attr == arg.number_attr ? same : singles) += 1;
        }
        n = (static_cast<int64_t>(input_types.size()) - static_cast<int64_t>(k) - singles) / same;
        attrs[arg.number_attr] = MakeAttr(std::max<int64_t>(n, 0));
      }
    }
    if (!arg.type_attr.empty() && !attrs.contains(arg.type_attr) && k < input_types.size()) {
      attrs[arg.type_attr] = MakeAttr(input_types[k]);
    }
    if (!arg.type_list_attr.empty()) {
      auto it = attrs.find(arg.type_list_attr);
      if (it != attrs.end()) {
        n = it->second.list().type_size();
      } else {
        // As a list length: whatever the other args leave over has these types.
        n = static_cast<int64_t>(input_types.size()) - static_cast<int64_t>(k) -
            static_cast<int64_t>(op.inputs.size() - 1 - a);
        const size_t begin = std::min(k, input_types.size());
        const size_t count = std::clamp<int64_t>(n, 0, static_cast<int64_t>(input_types.size() - begin));
        attrs[arg.type_list_attr] = MakeAttr(absl::Span<const DType>(input_types.data() + begin, count));
      }
    }
    k += std::max<int64_t>(n, 0);
  }
}

absl::StatusOr<std::vector<DType>> ArgTypes(const OpDef& op, const std::vector<ArgDef>& args,
                                            const AttrMap& attrs) {
  std::vector<DType> types;
  for (const ArgDef& arg : args) {
    DType t = arg.fixed_type;
    if (!arg.type_attr.empty()) {
      TW_ASSIGN_OR_RETURN(t, GetTypeAttr(attrs, arg.type_attr));
    }
    if (!arg.type_list_attr.empty()) {
      TW_ASSIGN_OR_RETURN(std::vector<DType> list, GetTypeListAttr(attrs, arg.type_list_attr));
      types.insert(types.end(), list.begin(), list.end());
      continue;
    }
    int64_t n = 1;
    if (!arg.number_attr.empty()) {
      TW_ASSIGN_OR_RETURN(n, GetIntAttr(attrs, arg.number_attr));
      if (n < 0 || n > 100000) {
        return absl::InvalidArgumentError(absl::StrCat("attr '", arg.number_attr, "' = ", n,
                                                       " is not a valid list length"));
      }
    }
    types.insert(types.end(), n, t);
  }
  return types;
}

}  // namespace tw
