// Reductions over axes (Sum, Mean, Max, Min, Prod) and along one axis (ArgMax, ArgMin).
#include <string_view>
#include <vector>

#include "ops/ops.h"
#include "ops/reduction_axes.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

absl::Status ReductionShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(bool keep_dims, GetBoolAttr(c.attrs(), "keep_dims"));
  const PartialShape& in = c.input_shape(0);
  const PartialShape& axes_shape = c.input_shape(1);
  if (axes_shape.known_rank() && axes_shape.rank() > 1) {
    return absl::InvalidArgumentError("reduction_indices must be a scalar or a vector, got shape " +
                                      axes_shape.DebugString());
  }
  std::vector<int64_t> axes;
  if (!c.ConstantIntVector(1, &axes)) {
    // An empty axes vector reduces nothing even when its values are unknown.
    if (axes_shape.known_rank() && axes_shape.rank() == 1 && axes_shape.dim(0) == 0) {
      c.set_output(0, in);
    } else if (in.known_rank() && keep_dims) {
      c.set_output(0, PartialShape::Unknown(in.rank()));
    } else {
      c.set_output(0, PartialShape::UnknownRank());
    }
    return absl::OkStatus();
  }
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  std::vector<bool> reduced;
  TW_RETURN_IF_ERROR(MarkReducedAxes(axes, in.rank(), &reduced));
  DimVector dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) {
      dims.push_back(in.dim(d));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status ArgReductionShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  const PartialShape& axis_shape = c.input_shape(1);
  if (axis_shape.known_rank() && axis_shape.rank() != 0) {
    return absl::InvalidArgumentError("dimension must be a scalar, got shape " +
                                      axis_shape.DebugString());
  }
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  std::vector<int64_t> axis;
  if (in.rank() == 0) {
    return absl::InvalidArgumentError("input must have rank at least 1, got a scalar");
  }
  if (!c.ConstantIntVector(1, &axis) || axis.size() != 1) {
    c.set_output(0, PartialShape::Unknown(in.rank() - 1));
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(int a, NormalizeArgAxis(axis[0], in.rank()));
  if (in.dim(a) == 0) {
    return absl::InvalidArgumentError("Reduction axis " + std::to_string(a) +
                                      " is empty in shape " + in.DebugString());
  }
  DimVector dims(in.dims().begin(), in.dims().end());
  dims.erase(dims.begin() + a);
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterReductionOps(OpRegistry& r) {
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    const bool complex = std::string_view(op) != "Max" && std::string_view(op) != "Min";
    r.Register(OpDefBuilder(op)
                   .Input("input: T")
                   .Input("reduction_indices: Tidx")
                   .Output("output: T")
                   .Attr("keep_dims: bool = false")
                   .Attr(complex ? "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16, complex64, "
                                   "complex128}"
                                 : "T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                   .Attr("Tidx: {int32, int64} = int32")
                   .SetShapeFn(ReductionShape));
  }
  for (const char* op : {"All", "Any"}) {
    r.Register(OpDefBuilder(op)
                   .Input("input: bool")
                   .Input("reduction_indices: Tidx")
                   .Output("output: bool")
                   .Attr("keep_dims: bool = false")
                   .Attr("Tidx: {int32, int64} = int32")
                   .SetShapeFn(ReductionShape));
  }
  for (const char* op : {"ArgMax", "ArgMin"}) {
    r.Register(OpDefBuilder(op)
                   .Input("input: T")
                   .Input("dimension: Tidx")
                   .Output("output: output_type")
                   .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                   .Attr("Tidx: {int32, int64} = int32")
                   .Attr("output_type: {int32, int64} = int64")
                   .SetShapeFn(ArgReductionShape));
  }
}

}  // namespace tw
