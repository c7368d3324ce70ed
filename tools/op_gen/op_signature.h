// The calling signature of one registered op, as the generated C++ builders and Python
// wrappers present it: which inputs are lists, which attrs the caller passes (type and
// list-length attrs the inputs determine are inferred, as Graph::AddOperation does), their
// defaults, and a one-paragraph summary of the schema for the generated docs.
#ifndef TENSORWEAVE_TOOLS_OP_GEN_OP_SIGNATURE_H_
#define TENSORWEAVE_TOOLS_OP_GEN_OP_SIGNATURE_H_

#include <optional>
#include <string>
#include <vector>

#include "graph/op_registry.h"

namespace tw::opgen {

struct InputParam {
  std::string name;
  bool is_list = false;  // "N * T" or a list(type) arg: one parameter holding several tensors.
  std::string number_attr;  // "N" of "N * T": set from the list's length.
};

struct AttrParam {
  std::string name;
  std::string type;  // The schema's attr type: "int", "list(type)", ...
  std::optional<AttrValue> default_value;
  // A type or list-length attr the inputs determine: optional for the caller.
  bool inferred = false;
  bool required() const { return !default_value.has_value() && !inferred; }
};

struct OpSignature {
  std::string op;
  std::vector<InputParam> inputs;
  std::vector<AttrParam> attrs;  // The required ones first, each group in schema order.
  int num_output_args = 0;
  bool single_output = false;  // Exactly one output arg, not a list.
  bool stateful = false;
  std::string doc;  // "MatMul(a: T, b: T) -> (product: T)\nattrs: ..."
};

OpSignature SignatureOf(const OpDef& def);
// The op's name in snake case, as TensorFlow's generated Python modules spell it
// ("MatMul" -> "mat_mul", "Conv2DBackpropInput" -> "conv2d_backprop_input").
std::string SnakeCase(const std::string& camel);
// Whether the op gets a generated wrapper: internal ops ("_Arg", "_Send") do not.
bool IsPublicOp(const std::string& op);

}  // namespace tw::opgen

#endif  // TENSORWEAVE_TOOLS_OP_GEN_OP_SIGNATURE_H_
