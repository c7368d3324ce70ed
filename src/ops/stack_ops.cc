// TF1's stacks (StackV2, StackPushV2, StackPopV2, StackCloseV2): a LIFO of tensors behind a
// resource handle. TF1's while_loop gradient keeps each iteration's forward values on them
// (pushed in the forward loop, popped in reverse by the gradient loop).
#include "ops/ops.h"

namespace tw {

void RegisterStackOps(OpRegistry& r) {
  r.Register(OpDefBuilder("StackV2")
                 .Input("max_size: int32")
                 .Output("handle: resource")
                 .Attr("elem_type: type")
                 .Attr("stack_name: string = ''")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   c.set_output(0, PartialShape({}));
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("StackPushV2")
                 .Input("handle: resource")
                 .Input("elem: T")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("swap_memory: bool = false")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   c.set_output(0, c.input_shape(1));
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("StackPopV2")
                 .Input("handle: resource")
                 .Output("elem: elem_type")
                 .Attr("elem_type: type")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   c.set_output(0, PartialShape::UnknownRank());
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("StackCloseV2").Input("handle: resource").SetStateful().SetShapeFn(
      [](InferenceContext&) { return absl::OkStatus(); }));
}

}  // namespace tw
