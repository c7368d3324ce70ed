// TF1's TensorArray (V3): a resource handle plus a float "flow" scalar that orders the ops
// on one array (each write's flow_out feeds the next op's flow_in; its value is unused).
// Kernels: src/kernels/cpu/tensor_array_kernels.cc; gradients: src/autodiff/tensor_array_grad.cc.
#include "graph/attr_value.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status ScalarFlow(InferenceContext& c, int output) {
  c.set_output(output, PartialShape({}));
  return absl::OkStatus();
}

// [?] + element_shape (unknown rank when the element shape's rank is unknown).
PartialShape Stacked(const PartialShape& element) {
  if (!element.known_rank()) return PartialShape::UnknownRank();
  std::vector<int64_t> dims{-1};
  dims.insert(dims.end(), element.dims().begin(), element.dims().end());
  return PartialShape(absl::MakeConstSpan(dims));
}

}  // namespace

void RegisterTensorArrayOps(OpRegistry& r) {
  r.Register(OpDefBuilder("TensorArrayV3")
                 .Input("size: int32")
                 .Output("handle: resource")
                 .Output("flow: float")
                 .Attr("dtype: type")
                 .Attr("element_shape: shape = unknown")
                 .Attr("dynamic_size: bool = false")
                 .Attr("clear_after_read: bool = true")
                 .Attr("identical_element_shapes: bool = false")
                 .Attr("tensor_array_name: string = ''")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(0, 0));
                   c.set_output(0, PartialShape({}));
                   return ScalarFlow(c, 1);
                 }));
  r.Register(OpDefBuilder("TensorArrayGradV3")
                 .Input("handle: resource")
                 .Input("flow_in: float")
                 .Output("grad_handle: resource")
                 .Output("flow_out: float")
                 .Attr("source: string")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   c.set_output(0, PartialShape({}));
                   return ScalarFlow(c, 1);
                 }));
  r.Register(OpDefBuilder("TensorArrayWriteV3")
                 .Input("handle: resource")
                 .Input("index: int32")
                 .Input("value: T")
                 .Input("flow_in: float")
                 .Output("flow_out: float")
                 .Attr("T: type")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(1, 0));
                   return ScalarFlow(c, 0);
                 }));
  r.Register(OpDefBuilder("TensorArrayReadV3")
                 .Input("handle: resource")
                 .Input("index: int32")
                 .Input("flow_in: float")
                 .Output("value: dtype")
                 .Attr("dtype: type")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(1, 0));
                   c.set_output(0, PartialShape::UnknownRank());  // The Python wrapper knows the element shape.
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("TensorArrayGatherV3")
                 .Input("handle: resource")
                 .Input("indices: int32")
                 .Input("flow_in: float")
                 .Output("value: dtype")
                 .Attr("dtype: type")
                 .Attr("element_shape: shape = unknown")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(1, 1));
                   TW_ASSIGN_OR_RETURN(PartialShape element, GetShapeAttr(c.attrs(), "element_shape"));
                   c.set_output(0, Stacked(element));  // As TF's: the first dim left unknown.
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("TensorArrayScatterV3")
                 .Input("handle: resource")
                 .Input("indices: int32")
                 .Input("value: T")
                 .Input("flow_in: float")
                 .Output("flow_out: float")
                 .Attr("T: type")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRank(1, 1));
                   TW_RETURN_IF_ERROR(c.WithRankAtLeast(2, 1));
                   return ScalarFlow(c, 0);
                 }));
  r.Register(OpDefBuilder("TensorArrayConcatV3")
                 .Input("handle: resource")
                 .Input("flow_in: float")
                 .Output("value: dtype")
                 .Output("lengths: int64")
                 .Attr("dtype: type")
                 .Attr("element_shape_except0: shape = unknown")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_ASSIGN_OR_RETURN(PartialShape rest, GetShapeAttr(c.attrs(), "element_shape_except0"));
                   c.set_output(0, Stacked(rest));
                   c.set_output(1, PartialShape::Unknown(1));
                   return absl::OkStatus();
                 }));
  r.Register(OpDefBuilder("TensorArraySplitV3")
                 .Input("handle: resource")
                 .Input("value: T")
                 .Input("lengths: int64")
                 .Input("flow_in: float")
                 .Output("flow_out: float")
                 .Attr("T: type")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   TW_RETURN_IF_ERROR(c.WithRankAtLeast(1, 1));
                   TW_RETURN_IF_ERROR(c.WithRank(2, 1));
                   return ScalarFlow(c, 0);
                 }));
  r.Register(OpDefBuilder("TensorArraySizeV3")
                 .Input("handle: resource")
                 .Input("flow_in: float")
                 .Output("size: int32")
                 .SetStateful()
                 .SetShapeFn([](InferenceContext& c) { return ScalarFlow(c, 0); }));
  r.Register(OpDefBuilder("TensorArrayCloseV3").Input("handle: resource").SetStateful().SetShapeFn(
      [](InferenceContext&) { return absl::OkStatus(); }));
}

}  // namespace tw
