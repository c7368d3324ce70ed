// GatherV2 and UnsortedSegmentSum (its gradient's scatter): gathering rows by index and
// summing rows back by index. GatherV2's batch_dims gathers per batch row, as TF 1.14+.
#include "ops/array_ops_gather.h"

#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "tensorweave/status.h"

namespace tw {
namespace array_util {

absl::StatusOr<int> GatherAxis(int64_t axis, int params_rank) {
  if (axis < -params_rank || axis >= params_rank) {
    return absl::InvalidArgumentError(absl::StrCat("Expected axis in the range [", -params_rank, ", ",
                                                   params_rank, "), but got ", axis));
  }
  return static_cast<int>(axis < 0 ? axis + params_rank : axis);
}

absl::StatusOr<int> GatherBatchDims(int64_t batch_dims, absl::Span<const int64_t> params,
                                    absl::Span<const int64_t> indices, int axis) {
  if (batch_dims == 0) return 0;
  const int64_t irank = static_cast<int64_t>(indices.size());
  if (batch_dims < -irank || batch_dims > irank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected batch_dims in the range [", -irank, ", ", irank, "], but got ", batch_dims));
  }
  const int b = static_cast<int>(batch_dims < 0 ? batch_dims + irank : batch_dims);
  if (b >= static_cast<int>(params.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_dims (", b, ") must be less than rank(params) (", params.size(), ")."));
  }
  if (axis < b) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch_dims (", b, ") must be less than or equal to axis (", axis, ")."));
  }
  for (int i = 0; i < b; ++i) {
    if (params[i] >= 0 && indices[i] >= 0 && params[i] != indices[i]) {
      return absl::InvalidArgumentError(absl::StrCat("params.shape[", i, "]: ", params[i],
                                                     " should be equal to indices.shape[", i, "]: ", indices[i]));
    }
  }
  return b;
}

DimVector GatherDims(absl::Span<const int64_t> params, absl::Span<const int64_t> indices, int axis,
                     int batch_dims) {
  DimVector out(params.begin(), params.begin() + axis);
  for (int d = 0; d < batch_dims; ++d) {  // the batch dims are both's: a known one wins
    if (out[d] < 0) out[d] = indices[d];
  }
  out.insert(out.end(), indices.begin() + batch_dims, indices.end());
  out.insert(out.end(), params.begin() + axis + 1, params.end());
  return out;
}

}  // namespace array_util

namespace {

absl::Status GatherV2Shape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(int64_t batch_dims, GetIntAttr(c.attrs(), "batch_dims"));
  const PartialShape& axis_shape = c.input_shape(2);
  if (axis_shape.known_rank() && axis_shape.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis must be a scalar, but got shape ", axis_shape.DebugString()));
  }
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (params.known_rank() && params.rank() == 0) {
    return absl::InvalidArgumentError("params must be at least 1 dimensional");
  }
  int64_t axis;
  if (!params.known_rank() || !indices.known_rank() || !array_util::ConstantIntScalar(c, 2, &axis)) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(int a, array_util::GatherAxis(axis, params.rank()));
  TW_ASSIGN_OR_RETURN(int b, array_util::GatherBatchDims(batch_dims, params.dims(), indices.dims(), a));
  c.set_output(0, PartialShape(array_util::GatherDims(params.dims(), indices.dims(), a, b)));
  return absl::OkStatus();
}

// [num_segments] + data.shape[segment_ids.rank:]; segment_ids' shape must prefix data's.
absl::Status UnsortedSegmentSumShape(InferenceContext& c) {
  const PartialShape& data = c.input_shape(0);
  const PartialShape& ids = c.input_shape(1);
  TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  int64_t num_segments = -1;
  if (array_util::ConstantIntScalar(c, 2, &num_segments) && num_segments < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_segments must be non-negative, got ", num_segments));
  }
  if (!data.known_rank() || !ids.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (ids.rank() > data.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("segment_ids ", ids.DebugString(),
                                                   " has more dimensions than data ", data.DebugString()));
  }
  for (int d = 0; d < ids.rank(); ++d) {
    if (ids.dim(d) >= 0 && data.dim(d) >= 0 && ids.dim(d) != data.dim(d)) {
      return absl::InvalidArgumentError(absl::StrCat("segment_ids ", ids.DebugString(),
                                                     " is not a prefix of data's shape ", data.DebugString()));
    }
  }
  DimVector out = {num_segments};
  out.insert(out.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayGatherOps(OpRegistry& r) {
  r.Register(OpDefBuilder("UnsortedSegmentSum")
                 .Input("data: T")
                 .Input("segment_ids: Tindices")
                 .Input("num_segments: Tnumsegments")
                 .Output("output: T")
                 .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16}")
                 .Attr("Tindices: {int32, int64}")
                 .Attr("Tnumsegments: {int32, int64} = int32")
                 .SetShapeFn(UnsortedSegmentSumShape));
  r.Register(OpDefBuilder("GatherV2")
                 .Input("params: Tparams")
                 .Input("indices: Tindices")
                 .Input("axis: Taxis")
                 .Output("output: Tparams")
                 .Attr("batch_dims: int = 0")
                 .Attr("Tparams: type")
                 .Attr("Tindices: {int32, int64}")
                 .Attr("Taxis: {int32, int64}")
                 .SetShapeFn(GatherV2Shape));
}

}  // namespace tw
