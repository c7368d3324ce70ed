// Shape plumbing: ShapeN (the shapes of N tensors), IdentityN (N tensors passed through),
// EnsureShape (a run-time check of a tensor's shape) and BroadcastArgs (the shape two shapes
// broadcast to), with TensorFlow's names and attrs.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

void RegisterArrayShapeNOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ShapeN")
                 .Input("input: N * T")
                 .Output("output: N * out_type")
                 .Attr("N: int >= 1")
                 .Attr("T: type")
                 .Attr("out_type: {int32, int64} = int32")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   for (int i = 0; i < c.num_inputs(); ++i) {
                     const PartialShape& s = c.input_shape(i);
                     c.set_output(i, PartialShape({s.known_rank() ? static_cast<int64_t>(s.rank()) : -1}));
                   }
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("IdentityN")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("T: list(type)")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   for (int i = 0; i < c.num_inputs(); ++i) c.set_output(i, c.input_shape(i));
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("EnsureShape")
                 .Input("input: T")
                 .Output("output: T")
                 .Attr("shape: shape")
                 .Attr("T: type")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_ASSIGN_OR_RETURN(PartialShape shape, GetShapeAttr(c.attrs(), "shape"));
                   auto merged = c.input_shape(0).Merge(shape);
                   if (!merged.ok()) {
                     return absl::InvalidArgumentError(absl::StrCat("Shape of tensor input ",
                                                                    c.input_shape(0).DebugString(),
                                                                    " is not compatible with expected shape ",
                                                                    shape.DebugString(), "."));
                   }
                   c.set_output(0, *merged);
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("BroadcastArgs")
                 .Input("s0: T")
                 .Input("s1: T")
                 .Output("r0: T")
                 .Attr("T: {int32, int64} = int32")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(0, 1));
                   TW_RETURN_IF_ERROR(c.WithRank(1, 1));
                   const PartialShape& a = c.input_shape(0);
                   const PartialShape& b = c.input_shape(1);
                   // Known only when both lengths are: the longer one.
                   const bool known = a.known_rank() && b.known_rank() && a.dim(0) >= 0 && b.dim(0) >= 0;
                   c.set_output(0, PartialShape({known ? std::max(a.dim(0), b.dim(0)) : -1}));
                   return absl::OkStatus();
                 }));
}

}  // namespace tw
