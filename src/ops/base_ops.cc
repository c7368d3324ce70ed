#include "graph/op_registry.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status ShapeFromAttr(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
  c.set_output(0, shape);
  return absl::OkStatus();
}

absl::Status ConstShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(Tensor value, GetTensorAttr(c.attrs(), "value"));
  c.set_output(0, value.shape());
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext& c) { return absl::OkStatus(); }

}  // namespace

void RegisterBaseOps(OpRegistry& r) {
  // Internal: the session's feeds and fetches.
  r.Register(OpDefBuilder("_Arg").Output("output: T").Attr("T: type").Attr("index: int >= 0")
                 .Attr("shape: shape = unknown").SetShapeFn(ShapeFromAttr));
  r.Register(OpDefBuilder("_Retval").Input("input: T").Attr("T: type").Attr("index: int >= 0")
                 .SetShapeFn(NoOutputs));

  r.Register(OpDefBuilder("NoOp").SetShapeFn(NoOutputs));
  r.Register(OpDefBuilder("Const").Output("output: dtype").Attr("value: tensor").Attr("dtype: type")
                 .SetShapeFn(ConstShape));
  r.Register(OpDefBuilder("Placeholder").Output("output: dtype").Attr("dtype: type")
                 .Attr("shape: shape = unknown").SetShapeFn(ShapeFromAttr));
  r.Register(OpDefBuilder("PlaceholderWithDefault").Input("input: dtype").Output("output: dtype")
                 .Attr("dtype: type").Attr("shape: shape = unknown")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
                   if (!shape.IsCompatibleWith(c.input_shape(0))) {
                     return absl::InvalidArgumentError(
                         "default value of shape " + c.input_shape(0).DebugString() +
                         " does not fit shape " + shape.DebugString());
                   }
                   c.set_output(0, shape);
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("Identity").Input("input: T").Output("output: T").Attr("T: type")
                 .SetShapeFn(UnchangedShape));
  // Identity that blocks gradients (tf.stop_gradient).
  r.Register(OpDefBuilder("StopGradient").Input("input: T").Output("output: T").Attr("T: type")
                 .SetShapeFn(UnchangedShape));
}

}  // namespace tw
