// Array ops, part 4: tensors made from a value or a description (Fill, Range, OneHot...).
#include "graph/op_registry.h"
#include "ops/array_ops_internal.h"
#include "ops/array_ops_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

using array_util::ConstantDims;
using array_util::ConstantIntScalar;

absl::Status MustBeScalar(const InferenceContext& c, int i, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a scalar, but got shape ", s.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status FillShapeFn(InferenceContext& c) {
  const PartialShape& dims_shape = c.input_shape(0);
  if (dims_shape.known_rank() && dims_shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("dims must be a vector, but got shape ", dims_shape.DebugString()));
  }
  TW_RETURN_IF_ERROR(MustBeScalar(c, 1, "value"));
  DimVector dims;
  if (ConstantDims(c, 0, &dims)) {
    TW_ASSIGN_OR_RETURN(TensorShape shape, array_util::FillShape(dims));
    c.set_output(0, shape);
  } else if (dims_shape.known_rank() && dims_shape.dim(0) >= 0) {
    c.set_output(0, PartialShape::Unknown(static_cast<int>(dims_shape.dim(0))));
  } else {
    c.set_output(0, PartialShape::UnknownRank());
  }
  return absl::OkStatus();
}

absl::Status RangeShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(MustBeScalar(c, 0, "start"));
  TW_RETURN_IF_ERROR(MustBeScalar(c, 1, "limit"));
  TW_RETURN_IF_ERROR(MustBeScalar(c, 2, "delta"));
  const Tensor *start = c.input_tensor(0), *limit = c.input_tensor(1), *delta = c.input_tensor(2);
  if (start == nullptr || limit == nullptr || delta == nullptr || start->NumElements() != 1 ||
      limit->NumElements() != 1 || delta->NumElements() != 1) {
    c.set_output(0, PartialShape({-1}));
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> size = absl::InvalidArgumentError("Range: unsupported dtype");
  VisitNumeric(start->dtype(), [&](auto tag) {
    using T = TypeOf<decltype(tag)>;
    size = array_util::RangeSize<T>(*start->data<T>(), *limit->data<T>(), *delta->data<T>());
  });
  TW_RETURN_IF_ERROR(size.status());
  c.set_output(0, PartialShape({*size}));
  return absl::OkStatus();
}

absl::Status OneHotShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(MustBeScalar(c, 1, "depth"));
  TW_RETURN_IF_ERROR(MustBeScalar(c, 2, "on_value"));
  TW_RETURN_IF_ERROR(MustBeScalar(c, 3, "off_value"));
  TW_ASSIGN_OR_RETURN(int64_t axis, GetIntAttr(c.attrs(), "axis"));
  int64_t depth = -1;
  if (ConstantIntScalar(c, 1, &depth) && depth < 0) {
    return absl::InvalidArgumentError(absl::StrCat("depth must be non-negative, got: ", depth));
  }
  const PartialShape& indices = c.input_shape(0);
  if (!indices.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(int a, array_util::OneHotAxis(axis, indices.rank()));
  DimVector dims(indices.dims().begin(), indices.dims().end());
  dims.insert(dims.begin() + a, depth);
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayFillOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Fill").Input("dims: index_type").Input("value: T").Output("output: T")
                 .Attr("T: type").Attr("index_type: {int32, int64} = int32")
                 .SetShapeFn(FillShapeFn));
  r.Register(OpDefBuilder("ZerosLike").Input("x: T").Output("y: T").Attr("T: type")
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("OnesLike").Input("x: T").Output("y: T").Attr("T: type")
                 .SetShapeFn(UnchangedShape));
  r.Register(OpDefBuilder("Range").Input("start: Tidx").Input("limit: Tidx").Input("delta: Tidx")
                 .Output("output: Tidx").Attr("Tidx: {float32, float64, int32, int64} = int32")
                 .SetShapeFn(RangeShape));
  r.Register(OpDefBuilder("OneHot").Input("indices: TI").Input("depth: int32")
                 .Input("on_value: T").Input("off_value: T").Output("output: T")
                 .Attr("axis: int = -1").Attr("T: type").Attr("TI: {int32, int64} = int64")
                 .SetShapeFn(OneHotShape));
}

}  // namespace tw
