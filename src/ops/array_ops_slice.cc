// Array ops, part 2: Slice, StridedSlice, Transpose, Tile (strided copies of one input).
#include "graph/op_registry.h"
#include "ops/array_ops_internal.h"
#include "ops/array_ops_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

using array_util::ConstantDims;

// The rank an index vector input implies, when its length is known.
int VectorLength(const InferenceContext& c, int i) {
  const PartialShape& s = c.input_shape(i);
  return s.known_rank() && s.rank() == 1 && s.dim(0) >= 0 ? static_cast<int>(s.dim(0)) : -1;
}

absl::Status SliceShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  TW_RETURN_IF_ERROR(c.WithRank(2, 1));
  const PartialShape& in = c.input_shape(0);
  DimVector begin, size;
  const bool known_begin = ConstantDims(c, 1, &begin), known_size = ConstantDims(c, 2, &size);
  if (!in.known_rank()) {
    // Sizes other than -1 are the output dims whatever the input is.
    if (known_size) {
      c.set_output(0, PartialShape(size));
    } else {
      const int n = VectorLength(c, 1) >= 0 ? VectorLength(c, 1) : VectorLength(c, 2);
      c.set_output(0, n >= 0 ? PartialShape::Unknown(n) : PartialShape::UnknownRank());
    }
    return absl::OkStatus();
  }
  const int rank = in.rank();
  if (!known_begin) begin.assign(rank, 0);  // Checks only what is known below.
  if (!known_size) size.assign(rank, -1);
  TW_ASSIGN_OR_RETURN(DimVector out, array_util::SliceSizes(in.dims(), begin, size));
  // With begin unknown, "to the end" sizes are unknown too.
  if (!known_begin || !known_size) {
    for (int i = 0; i < rank; ++i)
      if (!known_size || size[i] == -1) out[i] = -1;
  }
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

absl::Status StridedSliceShape(InferenceContext& c) {
  for (int i = 1; i <= 3; ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 1));
  const PartialShape& in = c.input_shape(0);
  DimVector begin, end, strides;
  if (!in.known_rank() || !ConstantDims(c, 3, &strides)) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  array_util::StridedSliceMasks m;
  TW_ASSIGN_OR_RETURN(m.begin_mask, GetIntAttr(c.attrs(), "begin_mask"));
  TW_ASSIGN_OR_RETURN(m.end_mask, GetIntAttr(c.attrs(), "end_mask"));
  TW_ASSIGN_OR_RETURN(m.ellipsis_mask, GetIntAttr(c.attrs(), "ellipsis_mask"));
  TW_ASSIGN_OR_RETURN(m.new_axis_mask, GetIntAttr(c.attrs(), "new_axis_mask"));
  TW_ASSIGN_OR_RETURN(m.shrink_axis_mask, GetIntAttr(c.attrs(), "shrink_axis_mask"));
  const bool known_begin = ConstantDims(c, 1, &begin), known_end = ConstantDims(c, 2, &end);
  array_util::StridedSliceResult r;
  TW_RETURN_IF_ERROR(array_util::ValidateStridedSlice(in, known_begin ? &begin : nullptr,
                                                      known_end ? &end : nullptr, strides, m, &r));
  c.set_output(0, PartialShape(r.final_dims));
  return absl::OkStatus();
}

absl::Status TransposeShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  const PartialShape& in = c.input_shape(0);
  DimVector perm;
  if (!ConstantDims(c, 1, &perm)) {
    const int rank = in.known_rank() ? in.rank() : VectorLength(c, 1);
    c.set_output(0, rank >= 0 ? PartialShape::Unknown(rank) : PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  const int rank = in.known_rank() ? in.rank() : static_cast<int>(perm.size());
  TW_RETURN_IF_ERROR(array_util::CheckPermutation(perm, rank));
  DimVector out(rank, -1);
  if (in.known_rank())
    for (int i = 0; i < rank; ++i) out[i] = in.dim(static_cast<int>(perm[i]));
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

absl::Status TileShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  const PartialShape& in = c.input_shape(0);
  DimVector multiples;
  if (!ConstantDims(c, 1, &multiples)) {
    const int rank = in.known_rank() ? in.rank() : VectorLength(c, 1);
    c.set_output(0, rank >= 0 ? PartialShape::Unknown(rank) : PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown(static_cast<int>(multiples.size())));
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(DimVector out, array_util::TiledDims(in.dims(), multiples));
  c.set_output(0, PartialShape(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterArraySliceOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Slice").Input("input: T").Input("begin: Index").Input("size: Index")
                 .Output("output: T").Attr("T: type").Attr("Index: {int32, int64}")
                 .SetShapeFn(SliceShape));
  r.Register(OpDefBuilder("StridedSlice").Input("input: T").Input("begin: Index")
                 .Input("end: Index").Input("strides: Index").Output("output: T").Attr("T: type")
                 .Attr("Index: {int32, int64}").Attr("begin_mask: int = 0")
                 .Attr("end_mask: int = 0").Attr("ellipsis_mask: int = 0")
                 .Attr("new_axis_mask: int = 0").Attr("shrink_axis_mask: int = 0")
                 .SetShapeFn(StridedSliceShape));
  r.Register(OpDefBuilder("Transpose").Input("x: T").Input("perm: Tperm").Output("y: T")
                 .Attr("T: type").Attr("Tperm: {int32, int64} = int32").SetShapeFn(TransposeShape));
  r.Register(OpDefBuilder("Tile").Input("input: T").Input("multiples: Tmultiples")
                 .Output("output: T").Attr("T: type").Attr("Tmultiples: {int32, int64} = int32")
                 .SetShapeFn(TileShape));
}

}  // namespace tw
