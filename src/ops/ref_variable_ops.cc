// TensorFlow 1's reference-variable ops (VariableV2, Assign, Apply*, Scatter*, ...), as
// schemas only. Their "ref" edges are written here as plain dtypes (tensorweave has no
// ref types): ImportGraphDef lowers every one of these nodes to resource-variable ops
// before the graph is built (src/graph/ref_variable_lowering.h), and uses these schemas to
// check and complete the nodes' attrs first, so a bad attr is refused naming the node.
// No kernel runs them.
#include <initializer_list>

#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status VariableShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
  c.set_output(0, shape);
  return absl::OkStatus();
}

absl::Status ValueShape(InferenceContext& c) {  // output = input 1 (the assigned value)
  c.set_output(0, c.input_shape(1));
  return absl::OkStatus();
}

OpDefBuilder Variable(const char* name) {
  return OpDefBuilder(name)
      .Output("ref: dtype")
      .Attr("shape: shape")
      .Attr("dtype: type")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .SetStateful()
      .SetShapeFn(VariableShape);
}

OpDefBuilder AssignLike(const char* name) {
  return OpDefBuilder(name)
      .Input("ref: T")
      .Input("value: T")
      .Output("output_ref: T")
      .Attr("T: type")
      .Attr("use_locking: bool = false")
      .SetStateful()
      .SetShapeFn(ValueShape);
}

// ApplyXxx(var, slots..., scalars and grad) -> out (the variable, as a ref).
OpDefBuilder Apply(const char* name, std::initializer_list<const char*> inputs) {
  OpDefBuilder b(name);
  for (const char* in : inputs) b.Input(std::string(in) + ": T");
  b.Output("out: T").Attr("T: {float32, float64}").Attr("use_locking: bool = false").SetStateful();
  b.SetShapeFn(UnchangedShape);
  return b;
}

OpDefBuilder Scatter(const char* name) {
  return OpDefBuilder(name)
      .Input("ref: T")
      .Input("indices: Tindices")
      .Input("updates: T")
      .Output("output_ref: T")
      .Attr("T: type")
      .Attr("Tindices: {int32, int64}")
      .Attr("use_locking: bool = true")
      .SetStateful()
      .SetShapeFn(UnchangedShape);
}

// ResourceScatterXxx(resource, indices, updates): var[indices[i], ...] = (+=, -=) updates[i, ...].
OpDefBuilder ResourceScatter(const char* name) {
  return OpDefBuilder(name)
      .Input("resource: resource")
      .Input("indices: Tindices")
      .Input("updates: dtype")
      .Attr("dtype: type")
      .Attr("Tindices: {int32, int64}")
      .SetStateful()
      .SetShapeFn([](InferenceContext& c) { return c.WithRank(0, 0); });
}

}  // namespace

void RegisterRefVariableOps(OpRegistry& r) {
  r.Register(Variable("VariableV2"));
  r.Register(Variable("Variable"));
  r.Register(AssignLike("Assign").Attr("validate_shape: bool = true"));
  r.Register(AssignLike("AssignAdd"));
  r.Register(AssignLike("AssignSub"));
  r.Register(OpDefBuilder("IsVariableInitialized")
                 .Input("ref: dtype")
                 .Output("is_initialized: bool")
                 .Attr("dtype: type")
                 .SetStateful()
                 .SetShapeFn(ScalarShape));
  r.Register(Apply("ApplyGradientDescent", {"var", "alpha", "delta"}));
  r.Register(Apply("ApplyMomentum", {"var", "accum", "lr", "grad", "momentum"})
                 .Attr("use_nesterov: bool = false"));
  r.Register(Apply("ApplyAdagrad", {"var", "accum", "lr", "grad"}).Attr("update_slots: bool = true"));
  r.Register(Apply("ApplyRMSProp", {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}));
  r.Register(Apply("ApplyCenteredRMSProp", {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}));
  r.Register(Apply("ApplyAdam", {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                                 "epsilon", "grad"})
                 .Attr("use_nesterov: bool = false"));
  r.Register(Scatter("ScatterUpdate"));
  r.Register(Scatter("ScatterAdd"));
  r.Register(Scatter("ScatterSub"));
  // What the lowering turns ScatterUpdate / ScatterAdd / ScatterSub into.
  r.Register(ResourceScatter("ResourceScatterUpdate"));
  r.Register(ResourceScatter("ResourceScatterAdd"));
  r.Register(ResourceScatter("ResourceScatterSub"));
}

}  // namespace tw
