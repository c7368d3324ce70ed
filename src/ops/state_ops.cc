// Resource variables: a VarHandleOp names a variable in its device's ResourceMgr; the
// other ops read, assign, update, test or destroy the variable a handle names.
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status VarHandleShape(InferenceContext& c) {
  // Rejects a malformed "shape" attr now rather than at the first assignment.
  TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
  (void)shape;
  c.set_output(0, PartialShape({}));
  return absl::OkStatus();
}

// The handle input (0) is a scalar; the value has the variable's declared shape (its
// assignments are checked against it) when the graph shows the VarHandleOp.
absl::Status ReadVariableShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  c.set_output(0, c.input_handle_shape(0));
  return absl::OkStatus();
}

// Assignments output the new value, which has the shape of the value input (1).
absl::Status AssignShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  c.set_output(0, c.input_shape(1));
  return absl::OkStatus();
}

absl::Status HandleOnlyShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, PartialShape({}));
  return absl::OkStatus();
}

OpDefBuilder AssignOp(const char* name) {
  return OpDefBuilder(name)
      .Input("resource: resource")
      .Input("value: dtype")
      .Output("output: dtype")
      .Attr("dtype: type")
      .SetStateful()
      .SetShapeFn(AssignShape);
}

}  // namespace

void RegisterStateOps(OpRegistry& r) {
  // The variable is named shared_name, or the node's name when shared_name is empty.
  // allowed_devices and debug_name are accepted (and ignored) so that newer TensorFlow
  // GraphDefs load.
  r.Register(OpDefBuilder("VarHandleOp")
                 .Output("resource: resource")
                 .Attr("container: string = ''")
                 .Attr("shared_name: string = ''")
                 .Attr("debug_name: string = ''")
                 .Attr("dtype: type")
                 .Attr("shape: shape")
                 .Attr("allowed_devices: list(string) = []")
                 .SetStateful()
                 .SetShapeFn(VarHandleShape));
  r.Register(OpDefBuilder("ReadVariableOp")
                 .Input("resource: resource")
                 .Output("value: dtype")
                 .Attr("dtype: type")
                 .SetStateful()
                 .SetShapeFn(ReadVariableShape));
  // Unlike TensorFlow's, AssignVariableOp outputs the new value (as TF1's Assign does),
  // so running it returns the value. validate_shape: also require the current shape.
  r.Register(AssignOp("AssignVariableOp").Attr("validate_shape: bool = false"));
  r.Register(AssignOp("AssignAddVariableOp"));
  r.Register(AssignOp("AssignSubVariableOp"));
  r.Register(OpDefBuilder("VarIsInitializedOp")
                 .Input("resource: resource")
                 .Output("is_initialized: bool")
                 .SetStateful()
                 .SetShapeFn(HandleOnlyShape));
  r.Register(OpDefBuilder("DestroyResourceOp")
                 .Input("resource: resource")
                 .Attr("ignore_lookup_error: bool = true")
                 .SetStateful()
                 .SetShapeFn(HandleOnlyShape));
}

}  // namespace tw
