// Array ops, part 1: shape queries and zero-copy reshapes, broadcasting helpers.
// The other parts live in array_ops_{slice,join,fill}.cc.
#include "graph/op_registry.h"
#include "ops/array_ops_gather.h"
#include "ops/array_ops_internal.h"
#include "ops/array_ops_pad.h"
#include "ops/array_ops_util.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {

namespace array_util {

bool ConstantIntScalar(const InferenceContext& c, int i, int64_t* out) {
  std::vector<int64_t> v;
  if (!c.ConstantIntVector(i, &v) || v.size() != 1) return false;
  *out = v[0];
  return true;
}

bool ConstantDims(const InferenceContext& c, int i, DimVector* out) {
  std::vector<int64_t> v;
  if (c.input_tensor(i) == nullptr || c.input_tensor(i)->rank() != 1 ||
      !c.ConstantIntVector(i, &v)) {
    return false;
  }
  out->assign(v.begin(), v.end());
  return true;
}

}  // namespace array_util

namespace {

using array_util::ConstantDims;
using array_util::ConstantIntScalar;

absl::Status ShapeOfShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  c.set_output(0, PartialShape({in.known_rank() ? int64_t{in.rank()} : -1}));
  return absl::OkStatus();
}

// A shape-like input (Reshape's shape, BroadcastTo's shape) must be a vector; when its
// value is unknown, its length still gives the output rank.
absl::Status RankFromShapeInput(InferenceContext& c, int i, const char* what) {
  const PartialShape& s = c.input_shape(i);
  if (s.known_rank() && s.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " input must be 1-D, not ", s.DebugString()));
  }
  if (s.known_rank() && s.rank() == 1 && s.dim(0) >= 0) {
    c.set_output(0, PartialShape::Unknown(static_cast<int>(s.dim(0))));
  } else {
    c.set_output(0, PartialShape::UnknownRank());
  }
  return absl::OkStatus();
}

absl::Status ReshapeShape(InferenceContext& c) {
  DimVector requested;
  if (!ConstantDims(c, 1, &requested)) {
    int64_t one;  // A scalar shape is a 1-element vector.
    if (c.input_tensor(1) != nullptr && c.input_tensor(1)->rank() == 0 &&
        ConstantIntScalar(c, 1, &one)) {
      requested = {one};
    } else {
      return RankFromShapeInput(c, 1, "sizes");
    }
  }
  TW_ASSIGN_OR_RETURN(DimVector dims,
                      array_util::ReshapeDims(c.input_shape(0), requested));
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status SqueezeShapeFn(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::vector<int64_t> dims, GetIntListAttr(c.attrs(), "squeeze_dims"));
  TW_ASSIGN_OR_RETURN(PartialShape out, array_util::SqueezeShape(c.input_shape(0), dims));
  c.set_output(0, out);
  return absl::OkStatus();
}

absl::Status ExpandDimsShape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  const int64_t dim_elements = c.input_shape(1).num_elements();
  if (dim_elements >= 0 && dim_elements != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'dim' must be a tensor with a single value, got shape ", c.input_shape(1).DebugString()));
  }
  int64_t dim;
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
  } else if (!ConstantIntScalar(c, 1, &dim)) {
    c.set_output(0, PartialShape::Unknown(in.rank() + 1));
  } else {
    TW_ASSIGN_OR_RETURN(int index, array_util::ExpandDimsIndex(dim, in.rank()));
    DimVector out(in.dims().begin(), in.dims().end());
    out.insert(out.begin() + index, 1);
    c.set_output(0, PartialShape(out));
  }
  return absl::OkStatus();
}

absl::Status BroadcastToShape(InferenceContext& c) {
  DimVector target;
  if (!ConstantDims(c, 1, &target)) return RankFromShapeInput(c, 1, "shape");
  TW_RETURN_IF_ERROR(array_util::CheckBroadcastTo(c.input_shape(0), target));
  c.set_output(0, PartialShape(target));
  return absl::OkStatus();
}

absl::Status BroadcastGradientArgsShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  DimVector s0, s1, r0, r1;
  if (ConstantDims(c, 0, &s0) && ConstantDims(c, 1, &s1)) {
    TW_RETURN_IF_ERROR(array_util::BroadcastGradientArgs(s0, s1, &r0, &r1));
    c.set_output(0, PartialShape({static_cast<int64_t>(r0.size())}));
    c.set_output(1, PartialShape({static_cast<int64_t>(r1.size())}));
  } else {
    c.set_output(0, PartialShape({-1}));
    c.set_output(1, PartialShape({-1}));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayShapeOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Shape").Input("input: T").Output("output: out_type").Attr("T: type")
                 .Attr("out_type: {int32, int64} = int32").SetShapeFn(ShapeOfShape));
  r.Register(OpDefBuilder("Size").Input("input: T").Output("output: out_type").Attr("T: type")
                 .Attr("out_type: {int32, int64} = int32").SetShapeFn(ScalarShape));
  r.Register(OpDefBuilder("Rank").Input("input: T").Output("output: int32").Attr("T: type")
                 .SetShapeFn(ScalarShape));
  r.Register(OpDefBuilder("Reshape").Input("tensor: T").Input("shape: Tshape").Output("output: T")
                 .Attr("T: type").Attr("Tshape: {int32, int64} = int32").SetShapeFn(ReshapeShape));
  r.Register(OpDefBuilder("Squeeze").Input("input: T").Output("output: T").Attr("T: type")
                 .Attr("squeeze_dims: list(int) = []").SetShapeFn(SqueezeShapeFn));
  r.Register(OpDefBuilder("ExpandDims").Input("input: T").Input("dim: Tdim").Output("output: T")
                 .Attr("T: type").Attr("Tdim: {int32, int64} = int32").SetShapeFn(ExpandDimsShape));
  r.Register(OpDefBuilder("BroadcastTo").Input("input: T").Input("shape: Tidx").Output("output: T")
                 .Attr("T: type").Attr("Tidx: {int32, int64} = int32").SetShapeFn(BroadcastToShape));
  r.Register(OpDefBuilder("BroadcastGradientArgs").Input("s0: T").Input("s1: T").Output("r0: T")
                 .Output("r1: T").Attr("T: {int32, int64} = int32")
                 .SetShapeFn(BroadcastGradientArgsShape));
  // tf.where(x) with one argument: the coordinates of the non-zero (true) elements.
  r.Register(OpDefBuilder("Where").Input("input: T").Output("index: int64")
                 .Attr("T: {float16, float32, float64, int8, int16, int32, int64, uint8, uint16, complex64, "
                       "complex128, bool} = bool")
                 .SetShapeFn([](InferenceContext& c) -> absl::Status {
                   const PartialShape& in = c.input_shape(0);
                   c.set_output(0, PartialShape({-1, in.known_rank() ? int64_t{in.rank()} : -1}));
                   return absl::OkStatus();
                 }));
}

void RegisterArrayPartitionOps(OpRegistry& r);  // array_ops_partition.cc
void RegisterArrayNdOps(OpRegistry& r);         // array_ops_nd.cc

void RegisterArrayOps(OpRegistry& r) {
  RegisterArrayShapeOps(r);
  RegisterArraySliceOps(r);
  RegisterArrayJoinOps(r);
  RegisterArrayFillOps(r);
  RegisterArrayPadOps(r);
  RegisterArrayGatherOps(r);
  RegisterArrayPartitionOps(r);
  RegisterArrayNdOps(r);
}

}  // namespace tw
