// Array ops, part 3: joining and splitting along an axis (Concat, Pack, Split...).
#include "graph/op_registry.h"
#include "ops/array_ops_internal.h"
#include "ops/array_ops_util.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

using array_util::ConstantDims;
using array_util::ConstantIntScalar;

absl::Status CheckScalarAxis(const InferenceContext& c, int i, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " tensor should be a scalar integer, but got shape ",
                                                   s.DebugString()));
  }
  return absl::OkStatus();
}

// Values are inputs [first, first + n); the axis is input `axis_input`.
absl::Status ConcatShapeImpl(InferenceContext& c, int axis_input, int first, int n) {
  TW_RETURN_IF_ERROR(CheckScalarAxis(c, axis_input, "Concat dim"));
  std::vector<PartialShape> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(c.input_shape(first + i));
  int64_t axis;
  if (ConstantIntScalar(c, axis_input, &axis)) {
    TW_ASSIGN_OR_RETURN(PartialShape out, array_util::ConcatShape(shapes, axis));
    c.set_output(0, out);
    return absl::OkStatus();
  }
  // Unknown axis: all that is known is the rank (any axis, so use 0 to check shapes).
  for (const PartialShape& s : shapes) {
    if (s.known_rank()) {
      c.set_output(0, PartialShape::Unknown(s.rank()));
      return s.rank() == 0 ? array_util::ConcatShape(shapes, 0).status() : absl::OkStatus();
    }
  }
  c.set_output(0, PartialShape::UnknownRank());
  return absl::OkStatus();
}

absl::Status PackShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(int64_t axis, GetIntAttr(c.attrs(), "axis"));
  std::vector<PartialShape> shapes;
  for (int i = 0; i < c.num_inputs(); ++i) shapes.push_back(c.input_shape(i));
  TW_ASSIGN_OR_RETURN(PartialShape out, array_util::PackShape(shapes, axis));
  c.set_output(0, out);
  return absl::OkStatus();
}

absl::Status UnpackShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(int64_t axis, GetIntAttr(c.attrs(), "axis"));
  const PartialShape& in = c.input_shape(0);
  PartialShape out = PartialShape::UnknownRank();
  if (in.known_rank()) {
    TW_ASSIGN_OR_RETURN(int a, array_util::UnpackAxis(in, axis, c.num_outputs()));
    DimVector dims(in.dims().begin(), in.dims().end());
    dims.erase(dims.begin() + a);
    out = PartialShape(dims);
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return absl::OkStatus();
}

// The value is input `value`, the split dim input `dim_input`. Split passes no sizes
// (even pieces); SplitV passes its size_splits, or an empty vector while they are unknown.
absl::Status SplitShapeImpl(InferenceContext& c, int value, int dim_input, const DimVector* sizes) {
  TW_RETURN_IF_ERROR(CheckScalarAxis(c, dim_input, "split_dim"));
  const PartialShape& in = c.input_shape(value);
  const int n = c.num_outputs();
  int64_t split_dim;
  if (!in.known_rank() || !ConstantIntScalar(c, dim_input, &split_dim)) {
    PartialShape out = in.known_rank() ? PartialShape::Unknown(in.rank()) : PartialShape::UnknownRank();
    for (int i = 0; i < n; ++i) c.set_output(i, out);
    return absl::OkStatus();
  }
  TW_ASSIGN_OR_RETURN(int axis, array_util::CanonicalAxis(split_dim, in.rank(), "split_dim"));
  DimVector pieces(n, -1);
  if (sizes == nullptr) {
    TW_ASSIGN_OR_RETURN(int64_t size, array_util::SplitSize(in.dim(axis), axis, n));
    pieces.assign(n, size);
  } else if (!sizes->empty()) {
    TW_ASSIGN_OR_RETURN(pieces, array_util::SplitVSizes(*sizes, in.dim(axis), n));
  }
  for (int i = 0; i < n; ++i) {
    DimVector dims(in.dims().begin(), in.dims().end());
    dims[axis] = pieces[i];
    c.set_output(i, PartialShape(dims));
  }
  return absl::OkStatus();
}

absl::Status SplitVShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  DimVector sizes;
  if (!ConstantDims(c, 1, &sizes)) sizes.clear();
  return SplitShapeImpl(c, 0, 2, &sizes);
}

}  // namespace

void RegisterArrayJoinOps(OpRegistry& r) {
  r.Register(OpDefBuilder("ConcatV2").Input("values: N * T").Input("axis: Tidx")
                 .Output("output: T").Attr("N: int >= 2").Attr("T: type")
                 .Attr("Tidx: {int32, int64} = int32")
                 .SetShapeFn([](InferenceContext& c) {
                   return ConcatShapeImpl(c, c.num_inputs() - 1, 0, c.num_inputs() - 1);
                 }));
  r.Register(OpDefBuilder("Concat").Input("concat_dim: int32").Input("values: N * T")
                 .Output("output: T").Attr("N: int >= 2").Attr("T: type")
                 .SetShapeFn([](InferenceContext& c) {
                   return ConcatShapeImpl(c, 0, 1, c.num_inputs() - 1);
                 }));
  r.Register(OpDefBuilder("Pack").Input("values: N * T").Output("output: T").Attr("N: int >= 1")
                 .Attr("T: type").Attr("axis: int = 0").SetShapeFn(PackShapeFn));
  r.Register(OpDefBuilder("Unpack").Input("value: T").Output("output: num * T")
                 .Attr("num: int >= 0").Attr("T: type").Attr("axis: int = 0")
                 .SetShapeFn(UnpackShapeFn));
  r.Register(OpDefBuilder("Split").Input("split_dim: int32").Input("value: T")
                 .Output("output: num_split * T").Attr("num_split: int >= 1").Attr("T: type")
                 .SetShapeFn([](InferenceContext& c) { return SplitShapeImpl(c, 1, 0, nullptr); }));
  r.Register(OpDefBuilder("SplitV").Input("value: T").Input("size_splits: Tlen")
                 .Input("split_dim: int32").Output("output: num_split * T")
                 .Attr("num_split: int >= 1").Attr("T: type").Attr("Tlen: {int32, int64} = int64")
                 .SetShapeFn(SplitVShape));
}

}  // namespace tw
