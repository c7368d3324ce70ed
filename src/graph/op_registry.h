// Op schemas: inputs, outputs, typed attrs with defaults, a shape function. Written as
// short specs, e.g.
//   OpDefBuilder("MatMul").Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("T: {float, double, int32, int64}")
//       .SetShapeFn(MatMulShape)
// Registration is plain code: the ops layer's RegisterAllOps() (src/ops/ops.h) calls each
// family's RegisterXxxOps() and is handed down to Global() with SetGlobalOpList.
#ifndef TENSORWEAVE_SRC_GRAPH_OP_REGISTRY_H_
#define TENSORWEAVE_SRC_GRAPH_OP_REGISTRY_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/attr_value.h"
#include "graph/shape_inference.h"

namespace tw {

struct ArgDef {
  std::string name;
  DType fixed_type = DType::kInvalid;  // Set for "x: float32", "h: resource".
  std::string type_attr;               // Set for "x: T".
  std::string number_attr;             // Set for "values: N * T" (a list of N tensors).
  // Set for "values: dtypes" with dtypes a list(type) attr: one tensor per listed type.
  std::string type_list_attr;
};

struct AttrDef {
  std::string name;
  std::string type;  // "int", "float", "bool", "string", "type", "shape", "tensor", "list(int)", ...
  std::optional<AttrValue> default_value;
  std::vector<DType> allowed_types;  // For "type" attrs; empty means any.
  std::optional<int64_t> minimum;    // For "int" attrs: "N: int >= 1".
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  // Stateful ops (variables, random) are never merged or pruned as duplicates and
  // their kernels are kept across runs of a session.
  bool stateful = false;
  ShapeFn shape_fn;

  const AttrDef* FindAttr(const std::string& name) const;
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(const std::string& spec);
  OpDefBuilder& Output(const std::string& spec);
  OpDefBuilder& Attr(const std::string& spec);
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& SetStateful();
  // Parse errors in specs are programming errors in the registration code.
  absl::StatusOr<OpDef> Build() const;

 private:
  OpDef def_;
  std::vector<std::string> input_specs_, output_specs_, attr_specs_;
};

class OpRegistry {
 public:
  // The process-wide registry with every op of tensorweave, built on first use.
  static const OpRegistry& Global();

  // Aborts on a malformed spec or a duplicate name: both are bugs in registration code.
  void Register(const OpDefBuilder& builder);
  // NotFound naming the op when it is unknown.
  absl::StatusOr<const OpDef*> Find(const std::string& op) const;
  std::vector<std::string> ListOps() const;

 private:
  absl::flat_hash_map<std::string, std::unique_ptr<OpDef>> ops_;
};

// The op list of the process-wide registry, handed down by the layer above (src/ops sets
// RegisterAllOps at static initialization) so that this layer never calls up. Global()
// calls it once, on first use; it aborts if no list was set (the ops library not linked).
using OpListFn = void (*)(OpRegistry& registry);
void SetGlobalOpList(OpListFn fn);

// Fills defaults, then checks every attr of `op` is present with the right type,
// allowed value and minimum, and that no unknown attr (other than "_"-prefixed) is set.
absl::Status ValidateAndCompleteAttrs(const OpDef& op, AttrMap& attrs);
// Fills type attrs, list-length attrs and list(type) attrs that are not in `attrs` from
// the dtypes of the given inputs, as a client library does (`add(x, y)` takes T from x).
// Only one list arg's length can be inferred; ops with more need them given.
void InferAttrsFromInputs(const OpDef& op, const std::vector<DType>& input_types, AttrMap& attrs);
// Expands the op's input or output args to one dtype per tensor, given complete attrs.
absl::StatusOr<std::vector<DType>> ArgTypes(const OpDef& op, const std::vector<ArgDef>& args,
                                            const AttrMap& attrs);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_OP_REGISTRY_H_
