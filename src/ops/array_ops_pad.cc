// Pad and StridedSliceGrad schemas, and the shape checks their kernels share.
#include "ops/array_ops_pad.h"

#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "ops/array_ops_util.h"
#include "tensorweave/status.h"

namespace tw {

namespace array_util {

absl::Status CheckPaddingsShape(const PartialShape& input, const PartialShape& paddings) {
  if (paddings.known_rank() &&
      (paddings.rank() != 2 || (paddings.dim(1) >= 0 && paddings.dim(1) != 2))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "paddings must be a matrix with 2 columns, got shape ", paddings.DebugString()));
  }
  if (input.known_rank() && paddings.known_rank() && paddings.dim(0) >= 0 &&
      paddings.dim(0) != input.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("The first dimension of paddings must be the rank of inputs: paddings shape ",
                     paddings.DebugString(), ", input shape ", input.DebugString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<DimVector> PaddedDims(absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> paddings) {
  DimVector out;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t before = paddings[2 * d], after = paddings[2 * d + 1];
    if (before < 0 || after < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Paddings must be non-negative: ", before, " ", after));
    }
    if (dims[d] < 0) {
      out.push_back(-1);
      continue;
    }
    if (before > kMaxTensorElements - dims[d] || after > kMaxTensorElements - dims[d] - before) {
      return absl::InvalidArgumentError(
          absl::StrCat("Padded dimension ", d, " is larger than ", kMaxTensorElements));
    }
    out.push_back(dims[d] + before + after);
  }
  return out;
}

absl::Status CheckSliceGradShape(const PartialShape& dy, absl::Span<const int64_t> final_dims) {
  if (!dy.IsCompatibleWith(PartialShape(final_dims))) {
    return absl::InvalidArgumentError(absl::StrCat("shape of dy was ", dy.DebugString(),
                                                   " instead of ",
                                                   PartialShape(final_dims).DebugString()));
  }
  return absl::OkStatus();
}

}  // namespace array_util

namespace {

absl::Status PadShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  const PartialShape& paddings = c.input_shape(1);
  TW_RETURN_IF_ERROR(array_util::CheckPaddingsShape(in, paddings));
  const Tensor* value = c.input_tensor(1);
  if (value == nullptr) {
    int rank = in.known_rank() ? in.rank() : -1;
    if (rank < 0 && paddings.known_rank() && paddings.dim(0) >= 0)
      rank = static_cast<int>(paddings.dim(0));
    c.set_output(0, rank >= 0 ? PartialShape::Unknown(rank) : PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  DimVector flat;
  if (value->dtype() == DType::kInt32) {
    for (int32_t v : value->flat<int32_t>()) flat.push_back(v);
  } else {
    for (int64_t v : value->flat<int64_t>()) flat.push_back(v);
  }
  const DimVector dims = in.known_rank() ? DimVector(in.dims().begin(), in.dims().end())
                                         : DimVector(paddings.dim(0), -1);
  TW_ASSIGN_OR_RETURN(DimVector out, array_util::PaddedDims(dims, flat));
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

absl::Status StridedSliceGradShape(InferenceContext& c) {
  const char* names[] = {"shape", "begin", "end", "strides"};
  for (int i = 0; i <= 3; ++i) {
    const PartialShape& s = c.input_shape(i);
    if (s.known_rank() && s.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(names[i], " must be a vector, but got shape ", s.DebugString()));
    }
  }
  DimVector shape, begin, end, strides;
  if (!array_util::ConstantDims(c, 0, &shape)) {
    const PartialShape& s = c.input_shape(0);
    const bool known_length = s.known_rank() && s.dim(0) >= 0;
    c.set_output(0, known_length ? PartialShape::Unknown(static_cast<int>(s.dim(0)))
                                 : PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(TensorShape out, TensorShape::Build(shape));
  if (array_util::ConstantDims(c, 1, &begin) && array_util::ConstantDims(c, 2, &end) &&
      array_util::ConstantDims(c, 3, &strides)) {
    array_util::StridedSliceMasks m;
    TW_ASSIGN_OR_RETURN(m.begin_mask, GetIntAttr(c.attrs(), "begin_mask"));
    TW_ASSIGN_OR_RETURN(m.end_mask, GetIntAttr(c.attrs(), "end_mask"));
    TW_ASSIGN_OR_RETURN(m.ellipsis_mask, GetIntAttr(c.attrs(), "ellipsis_mask"));
    TW_ASSIGN_OR_RETURN(m.new_axis_mask, GetIntAttr(c.attrs(), "new_axis_mask"));
    TW_ASSIGN_OR_RETURN(m.shrink_axis_mask, GetIntAttr(c.attrs(), "shrink_axis_mask"));
    array_util::StridedSliceResult r;
    TW_RETURN_IF_ERROR(array_util::ValidateStridedSlice(out, &begin, &end, strides, m, &r));
    TW_RETURN_IF_ERROR(array_util::CheckSliceGradShape(c.input_shape(4), r.final_dims));
  }
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayPadOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Pad")
                 .Input("input: T")
                 .Input("paddings: Tpaddings")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("Tpaddings: {int32, int64} = int32")
                 .SetShapeFn(PadShape));
  r.Register(OpDefBuilder("StridedSliceGrad")
                 .Input("shape: Index")
                 .Input("begin: Index")
                 .Input("end: Index")
                 .Input("strides: Index")
                 .Input("dy: T")
                 .Output("output: T")
                 .Attr("T: type")
                 .Attr("Index: {int32, int64}")
                 .Attr("begin_mask: int = 0")
                 .Attr("end_mask: int = 0")
                 .Attr("ellipsis_mask: int = 0")
                 .Attr("new_axis_mask: int = 0")
                 .Attr("shrink_axis_mask: int = 0")
                 .SetShapeFn(StridedSliceGradShape));
}

}  // namespace tw
