// TensorFlow 1's reference-variable ops (VariableV2, Assign, Apply*, Scatter*, ...), as
// schemas only. Their "ref" edges are written here as plain dtypes (tensorweave has no
// ref types): ImportGraphDef lowers every one of these nodes to resource-variable ops
// before the graph is built (src/graph/ref_variable_lowering.h), and uses these schemas to
// check and complete the nodes' attrs first, so a bad attr is refused naming the node.
// No kernel runs them.
#include <initializer_list>
#include <string>

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

// SparseApplyXxx(var, slots..., scalars, grad, indices, trailing scalars) -> out (the variable).
OpDefBuilder SparseApply(const char* name, std::initializer_list<const char*> inputs,
                         std::initializer_list<const char*> after_indices = {}) {
  OpDefBuilder b(name);
  for (const char* in : inputs) b.Input(std::string(in) + ": T");
  b.Input("indices: Tindices");
  for (const char* in : after_indices) b.Input(std::string(in) + ": T");
  b.Output("out: T").Attr("T: {float32, float64}").Attr("Tindices: {int32, int64}").Attr("use_locking: bool = false");
  b.SetStateful().SetShapeFn(UnchangedShape);
  return b;
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
  // A variable for one step (TF1's accumulate_n): DestroyTemporaryVariable returns its value
  // and removes it.
  r.Register(OpDefBuilder("TemporaryVariable")
                 .Output("ref: dtype")
                 .Attr("shape: shape")
                 .Attr("dtype: type")
                 .Attr("var_name: string = ''")
                 .SetStateful()
                 .SetShapeFn(VariableShape));
  r.Register(OpDefBuilder("DestroyTemporaryVariable")
                 .Input("ref: T")
                 .Output("value: T")
                 .Attr("T: type")
                 .Attr("var_name: string")
                 .SetStateful()
                 .SetShapeFn(UnchangedShape));
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
  // What the lowering turns Scatter<Mode> into: ResourceScatter<Mode>.
  for (const char* mode : {"Update", "Add", "Sub", "Mul", "Div", "Min", "Max"}) {
    r.Register(Scatter((std::string("Scatter") + mode).c_str()));
    r.Register(ResourceScatter((std::string("ResourceScatter") + mode).c_str()));
  }
  // Sparse optimizer updates of reference variables, lowered to the ResourceSparseApply*
  // ops (src/ops/training_ops_sparse.cc) of the same inputs.
  r.Register(SparseApply("SparseApplyProximalGradientDescent", {"var", "alpha", "l1", "l2", "grad"}));
  r.Register(SparseApply("SparseApplyMomentum", {"var", "accum", "lr", "grad"}, {"momentum"})
                 .Attr("use_nesterov: bool = false"));
  r.Register(SparseApply("SparseApplyAdagrad", {"var", "accum", "lr", "grad"}).Attr("update_slots: bool = true"));
  r.Register(SparseApply("SparseApplyRMSProp", {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}));
}

}  // namespace tw
