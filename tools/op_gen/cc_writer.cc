#include "tools/op_gen/cc_writer.h"

#include <cmath>
#include <map>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace tw::opgen {
namespace {

// Parameter names that would not compile or would shadow the builder's own parameters.
std::string Ident(const std::string& name) {
  static const std::set<std::string> reserved = {
      "g", "name", "attrs", "inputs_", "attr_map_", "graph_", "node_", "alignas", "and", "auto", "bool", "break", "case", "catch",
      "char", "class", "const", "continue", "default", "delete", "do", "double", "else", "enum", "explicit",
      "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable",
      "namespace", "new", "not", "operator", "or", "private", "protected", "public", "register", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true", "try",
      "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor"};
  return reserved.count(name) ? name + "_" : name;
}

// The C++ type of an attr parameter, or "" when there is none.
std::string CcType(const std::string& attr_type) {
  static const std::map<std::string, std::string> types = {
      {"int", "int64_t"},
      {"float", "float"},
      {"bool", "bool"},
      {"string", "std::string"},
      {"type", "DType"},
      {"shape", "PartialShape"},
      {"tensor", "Tensor"},
      {"list(int)", "std::vector<int64_t>"},
      {"list(float)", "std::vector<float>"},
      {"list(bool)", "std::vector<bool>"},
      {"list(string)", "std::vector<std::string>"},
      {"list(type)", "std::vector<DType>"},
      {"list(shape)", "std::vector<PartialShape>"},
      {"func", "std::string"}};  // The name of a function in the graph's library.
  auto it = types.find(attr_type);
  return it == types.end() ? "" : it->second;
}

std::string FloatLiteral(float f) {
  if (std::isnan(f)) return "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(f)) return f > 0 ? "std::numeric_limits<float>::infinity()" : "-std::numeric_limits<float>::infinity()";
  std::string s = absl::StrFormat("%.9g", f);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string ShapeLiteral(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "PartialShape::UnknownRank()";
  std::vector<std::string> dims;
  for (const auto& d : shape.dim()) dims.push_back(absl::StrCat("int64_t{", d.size(), "}"));
  return absl::StrCat("PartialShape(std::vector<int64_t>{", absl::StrJoin(dims, ", "), "})");
}

std::string TypeLiteral(int t) { return absl::StrCat("static_cast<DType>(", t, ")"); }

// The schema's default as a C++ initializer for the attr's parameter type.
std::string DefaultLiteral(const AttrParam& attr) {
  const AttrValue& v = *attr.default_value;
  const std::string& t = attr.type;
  if (t == "int") return absl::StrCat("int64_t{", v.i(), "}");
  if (t == "float") return FloatLiteral(v.f());
  if (t == "bool") return v.b() ? "true" : "false";
  if (t == "string") return absl::StrCat("\"", absl::CEscape(v.s()), "\"");
  if (t == "type") return TypeLiteral(v.type());
  if (t == "shape") return ShapeLiteral(v.shape());
  std::vector<std::string> items;
  if (t == "list(int)") for (int64_t i : v.list().i()) items.push_back(absl::StrCat("int64_t{", i, "}"));
  if (t == "list(float)") for (float f : v.list().f()) items.push_back(FloatLiteral(f));
  if (t == "list(bool)") for (bool b : v.list().b()) items.push_back(b ? "true" : "false");
  if (t == "list(string)") for (const auto& s : v.list().s()) items.push_back(absl::StrCat("\"", absl::CEscape(s), "\""));
  if (t == "list(type)") for (int ty : v.list().type()) items.push_back(TypeLiteral(ty));
  if (t == "list(shape)") for (const auto& s : v.list().shape()) items.push_back(ShapeLiteral(s));
  return absl::StrCat("{", absl::StrJoin(items, ", "), "}");
}

// The statement adding attr `value` (a C++ expression) to the AttrMap `a`.
std::string SetAttr(const AttrParam& attr, const std::string& value) {
  const std::string& t = attr.type;
  if (t == "func") {
    return absl::StrCat("  { AttrValue v; v.mutable_func()->set_name(", value, ");\n    attr_map_[\"", attr.name,
                        "\"] = v; }\n");
  }
  if (t == "list(float)" || t == "list(bool)") {
    const char* adder = t == "list(float)" ? "add_f" : "add_b";
    return absl::StrCat("  { AttrValue v; v.mutable_list();\n    for (auto x : ", value, ") v.mutable_list()->", adder,
                        "(x);\n    attr_map_[\"", attr.name, "\"] = v; }\n");
  }
  std::string arg = value;
  if (t == "list(int)") arg = absl::StrCat("absl::Span<const int64_t>(", value, ")");
  if (t == "list(string)") arg = absl::StrCat("absl::Span<const std::string>(", value, ")");
  if (t == "list(type)") arg = absl::StrCat("absl::Span<const DType>(", value, ")");
  if (t == "list(shape)") arg = absl::StrCat("absl::Span<const PartialShape>(", value, ")");
  return absl::StrCat("  attr_map_[\"", attr.name, "\"] = MakeAttr(", arg, ");\n");
}

std::string Comment(const std::string& doc) {
  std::string out;
  for (absl::string_view line : absl::StrSplit(doc, '\n')) absl::StrAppend(&out, "// ", line, "\n");
  return out;
}

}  // namespace

absl::Status WriteCc(const std::vector<OpSignature>& ops, std::string* header, std::string* source) {
  std::string h =
      "// Generated by tools/op_gen from the op registry at build time: do not edit.\n"
      "// One builder per registered op, named as the op: its inputs, then the attrs without a\n"
      "// default, then <Op>Attrs with the schema's defaults, then the node name. Type attrs and\n"
      "// list lengths come from the inputs. Errors throw tw::StatusError naming the node.\n"
      "#ifndef TENSORWEAVE_GEN_OPS_H_\n#define TENSORWEAVE_GEN_OPS_H_\n\n"
      "#include <cstdint>\n#include <limits>\n#include <string>\n#include <vector>\n\n"
      "#include \"tensorweave/graph.h\"\n\nnamespace tw::ops::gen {\n\n";
  std::string s =
      "// Generated by tools/op_gen from the op registry at build time: do not edit.\n"
      "#include \"tensorweave/gen_ops.h\"\n\n#include \"client/op_builder.h\"\n\n"
      "namespace tw::ops::gen {\nnamespace {\n\n"
      "// The graph of the first input tensor (an empty list input adds none), checked as\n"
      "// client::Op checks it: the hand-written builders forward here.\n"
      "Graph& GraphOf(const char* op, const std::vector<Output>& inputs) {\n"
      "  if (inputs.empty()) {\n"
      "    throw StatusError(absl::InvalidArgumentError(std::string(op) + \": no input tensor to take the graph from\"));\n"
      "  }\n"
      "  if (inputs[0].graph() == nullptr) {\n"
      "    throw StatusError(absl::InvalidArgumentError(std::string(op) + \": first input is empty\"));\n"
      "  }\n"
      "  return *inputs[0].graph();\n"
      "}\n\n}  // namespace\n\n";
  for (const OpSignature& op : ops) {
    std::vector<std::string> decl_params, def_params;
    if (op.inputs.empty()) {
      decl_params.push_back("Graph& g");
    }
    for (const InputParam& in : op.inputs) {
      decl_params.push_back(absl::StrCat(in.is_list ? "const std::vector<Output>& " : "const Output& ", Ident(in.name)));
    }
    std::vector<const AttrParam*> optional;
    for (const AttrParam& attr : op.attrs) {
      if (attr.inferred) continue;
      const std::string type = CcType(attr.type);
      if (type.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("op ", op.op, ": attr ", attr.name, " has type ", attr.type,
                                                       ", which tools/op_gen/cc_writer.cc cannot map to C++"));
      }
      if (attr.required()) {
        decl_params.push_back(absl::StrCat("const ", type, "& ", Ident(attr.name)));
      } else {
        optional.push_back(&attr);
      }
    }
    def_params = decl_params;
    const std::string attrs_struct = op.op + "Attrs";
    if (!optional.empty()) {
      absl::StrAppend(&h, "// The attrs of ", op.op, " that have defaults.\nstruct ", attrs_struct, " {\n");
      for (const AttrParam* attr : optional) {
        absl::StrAppend(&h, "  ", CcType(attr->type), " ", Ident(attr->name), " = ", DefaultLiteral(*attr), ";\n");
      }
      absl::StrAppend(&h, "};\n");
      decl_params.push_back(absl::StrCat("const ", attrs_struct, "& attrs = {}"));
      def_params.push_back(absl::StrCat("const ", attrs_struct, "& attrs"));
    }
    decl_params.push_back(absl::StrCat("const std::string& name = \"", op.op, "\""));
    def_params.push_back("const std::string& name");
    const std::string ret = op.single_output ? "Output" : "Operation";
    absl::StrAppend(&h, Comment(op.doc), ret, " ", op.op, "(", absl::StrJoin(decl_params, ", "), ");\n\n");

    absl::StrAppend(&s, ret, " ", op.op, "(", absl::StrJoin(def_params, ", "), ") {\n  std::vector<Output> inputs_;\n");
    for (const InputParam& in : op.inputs) {
      if (in.is_list) {
        absl::StrAppend(&s, "  inputs_.insert(inputs_.end(), ", Ident(in.name), ".begin(), ", Ident(in.name), ".end());\n");
      } else {
        absl::StrAppend(&s, "  inputs_.push_back(", Ident(in.name), ");\n");
      }
    }
    absl::StrAppend(&s, "  AttrMap attr_map_;\n");
    for (const InputParam& in : op.inputs) {
      if (in.number_attr.empty()) continue;  // Lists sharing one length attr: AddOperation checks the total input count.
      absl::StrAppend(&s, "  attr_map_[\"", in.number_attr, "\"] = MakeAttr(static_cast<int64_t>(", Ident(in.name), ".size()));\n");
    }
    for (const AttrParam& attr : op.attrs) {
      if (attr.inferred) continue;
      absl::StrAppend(&s, SetAttr(attr, attr.required() ? Ident(attr.name) : "attrs." + Ident(attr.name)));
    }
    absl::StrAppend(&s, "  Graph& graph_ = ", op.inputs.empty() ? "g" : absl::StrCat("GraphOf(\"", op.op, "\", inputs_)"),
                    ";\n  Operation node_ = client::AddOp(graph_, \"", op.op, "\", name, inputs_, std::move(attr_map_));\n",
                    op.single_output ? "  return node_.output(0);\n" : "  return node_;\n", "}\n\n");
  }
  absl::StrAppend(&h, "}  // namespace tw::ops::gen\n\n#endif  // TENSORWEAVE_GEN_OPS_H_\n");
  absl::StrAppend(&s, "}  // namespace tw::ops::gen\n");
  *header = std::move(h);
  *source = std::move(s);
  return absl::OkStatus();
}

}  // namespace tw::opgen
