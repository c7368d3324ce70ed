// Segment reductions beside UnsortedSegmentSum (array_ops_gather.cc): SegmentSum, SegmentMean,
// SegmentMax, SegmentMin and SegmentProd (sorted ids: one output row per id up to the last),
// UnsortedSegmentMax, UnsortedSegmentMin and UnsortedSegmentProd (num_segments rows; ids a
// prefix of data's shape, negative ids dropped).
#include "absl/strings/str_cat.h"
#include "ops/array_ops_internal.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// [unknown] + data.shape[1:]; segment_ids a vector as long as data's first dim.
absl::Status SortedSegmentShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  const PartialShape& data = c.input_shape(0);
  const PartialShape& ids = c.input_shape(1);
  if (!data.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (data.rank() < 1) return absl::InvalidArgumentError("data must be at least 1 dimensional");
  if (ids.known_rank() && ids.dim(0) >= 0 && data.dim(0) >= 0 && ids.dim(0) != data.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat("segment_ids ", ids.DebugString(),
                                                   " should be the size of data's first dimension ",
                                                   data.DebugString()));
  }
  DimVector dims = {-1};
  dims.insert(dims.end(), data.dims().begin() + 1, data.dims().end());
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// [num_segments] + data.shape[segment_ids.rank:].
absl::Status UnsortedSegmentShape(InferenceContext& c) {
  const PartialShape& data = c.input_shape(0);
  const PartialShape& ids = c.input_shape(1);
  TW_RETURN_IF_ERROR(c.WithRank(2, 0));
  int64_t num = -1;
  if (array_util::ConstantIntScalar(c, 2, &num) && num < 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_segments must be non-negative, got ", num));
  }
  if (!data.known_rank() || !ids.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (ids.rank() > data.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("segment_ids ", ids.DebugString(),
                                                   " has more dimensions than data ", data.DebugString()));
  }
  DimVector dims = {num};
  dims.insert(dims.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterMathSegmentOps(OpRegistry& r) {
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    r.Register(OpDefBuilder(op)
                   .Input("data: T")
                   .Input("segment_ids: Tindices")
                   .Output("output: T")
                   .Attr("T: {float32, float64, int32, int64}")
                   .Attr("Tindices: {int32, int64}")
                   .SetShapeFn(SortedSegmentShape));
  }
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    r.Register(OpDefBuilder(op)
                   .Input("data: T")
                   .Input("segment_ids: Tindices")
                   .Input("num_segments: Tnumsegments")
                   .Output("output: T")
                   .Attr("T: {float32, float64, int32, int64}")
                   .Attr("Tindices: {int32, int64}")
                   .Attr("Tnumsegments: {int32, int64} = int32")
                   .SetShapeFn(UnsortedSegmentShape));
  }
}

}  // namespace tw
